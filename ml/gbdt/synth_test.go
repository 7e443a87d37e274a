package gbdt

import (
	"math"
	"math/rand/v2"
)

// synthNoise is the noise standard deviation of the synthetic regression.
const synthNoise = 0.3

// synth draws n rows of the synthetic regression of docs/gbdt.md §5:
// x0, x1, x2, x3 uniform on [-2, 2], y = sin(x0) + x1·x2 + N(0, 0.3²); x3 is
// pure noise. It also returns the noise-free targets f(x).
func synth(seed uint64, n int) (Data, []float64) {
	r := rand.New(rand.NewPCG(seed, 0x9bd1))
	d := Data{X: make([][]float64, n), Y: make([]float64, n)}
	f := make([]float64, n)
	for i := range n {
		x := make([]float64, 4)
		for j := range x {
			x[j] = 4*r.Float64() - 2
		}
		f[i] = math.Sin(x[0]) + x[1]*x[2]
		d.X[i], d.Y[i] = x, f[i]+synthNoise*r.NormFloat64()
	}
	return d, f
}

// rmseOf is the RMSE of m on d.
func rmseOf(m *Model, d Data) float64 {
	sse := 0.0
	for i, x := range d.X {
		e := m.Predict(x) - d.Y[i]
		sse += e * e
	}
	return math.Sqrt(sse / float64(len(d.X)))
}
