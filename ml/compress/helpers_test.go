package compress

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/ml/nn"
)

func must[T any](t testing.TB) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

func seq(t testing.TB, ls ...nn.Layer) *nn.Sequential {
	t.Helper()
	m, err := nn.NewSequential(ls...)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func dense(t testing.TB, in, out int) nn.Layer {
	return must[*nn.Dense](t)(nn.NewDense(in, out, nn.KaimingUniform))
}

func act(t testing.TB, fn nn.Act, n int) nn.Layer {
	return must[*nn.Activation](t)(nn.NewActivation(fn, n))
}

// deccActor is decc.md §1.7's actor: dense 5→128→64→32 (ReLU), LSTM
// 32→32 (last step), dense 32→16 (ReLU) → 11.
func deccActor(t testing.TB) *nn.Sequential {
	return seq(t, dense(t, 5, 128), act(t, nn.ReLU, 128), dense(t, 128, 64), act(t, nn.ReLU, 64),
		dense(t, 64, 32), act(t, nn.ReLU, 32), must[*nn.LSTM](t)(nn.NewLSTM(32, 32, false)),
		dense(t, 32, 16), act(t, nn.ReLU, 16), dense(t, 16, 11))
}

// deccMLP is the actor with its LSTM replaced by a dense 32→32 (ReLU)
// layer: the feed-forward network of DECC's size.
func deccMLP(t testing.TB) *nn.Sequential {
	return seq(t, dense(t, 5, 128), act(t, nn.ReLU, 128), dense(t, 128, 64), act(t, nn.ReLU, 64),
		dense(t, 64, 32), act(t, nn.ReLU, 32), dense(t, 32, 32), act(t, nn.ReLU, 32),
		dense(t, 32, 16), act(t, nn.ReLU, 16), dense(t, 16, 11))
}

// laplaceDraws returns n draws of Laplace(mu, b) by inversion.
func laplaceDraws(r *rand.Rand, n int, mu, b float64) []float64 {
	w := make([]float64, n)
	for i := range w {
		u := r.Float64() - 0.5
		s := 1.0
		if u < 0 {
			s = -1
		}
		w[i] = mu - b*s*math.Log(1-2*math.Abs(u))
	}
	return w
}

// inputs returns n random inputs of steps×in values in [−1, 1).
func inputs(r *rand.Rand, n, steps, in int) [][]float64 {
	xs := make([][]float64, n)
	for i := range xs {
		xs[i] = make([]float64, steps*in)
		for j := range xs[i] {
			xs[i][j] = 2*r.Float64() - 1
		}
	}
	return xs
}

func wantErr(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one mentioning %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not mention %q", err, p)
		}
	}
}
