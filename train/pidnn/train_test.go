package pidnn

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/cc/pidnnmodel"
)

// The shipped model files are exactly what `ccsim train pidnn` writes with
// the default configuration (seed 1); the full pipeline takes about a
// second.
func TestShippedFilesReproduce(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	cfg := DefaultConfig()
	cfg.Workers = 1
	res, err := Run(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{pidnnmodel.PredictorFile, pidnnmodel.GainsFile, pidnnmodel.LogFile} {
		want, err := os.ReadFile(filepath.Join("..", "..", "cc", "pidnnmodel", name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(res.Files[name], want) {
			t.Errorf("%s differs from the shipped file (regenerate with `go run ./cmd/ccsim train pidnn --out cc/pidnnmodel`)", name)
		}
	}
	if !bytes.Equal(res.Files[pidnnmodel.PredictorFile], pidnnmodel.ShippedPredictorBytes()) {
		t.Error("embedded predictor differs")
	}
	// the dataset is balanced and the size the paper used
	if d := res.Log.Dataset; d.Total != 4*d.PerBin || d.Total > 19058 || d.Total < 19000 {
		t.Errorf("dataset %d pairs, %d per range", d.Total, d.PerBin)
	}
	if n := len(res.Log.Epochs); n != 19 {
		t.Errorf("%d epochs", n)
	}
}

// Pairs: input [K_{t−2}, K_{t−1}, K_t], label L_t = (R_{t+1} − S_t)/S_t.
func TestPairs(t *testing.T) {
	x, y := Pairs([]float64{5, 10, 5, 7}, 0.2) // S = 5, 6, 5.8, 6.04
	if len(x) != 1 || len(y) != 1 {
		t.Fatalf("%d pairs, want 1", len(x))
	}
	want := []float64{0, 4.0 / 6, -0.8 / 5.8}
	for i := range want {
		if d := x[0][i] - want[i]; d > 1e-15 || d < -1e-15 {
			t.Fatalf("x %v, want %v", x[0], want)
		}
	}
	if d := y[0][0] - (7-5.8)/5.8; d > 1e-15 || d < -1e-15 {
		t.Fatalf("label %v, want %v", y[0][0], (7-5.8)/5.8)
	}
	if kBin(0.019) != 0 || kBin(-0.02) != 1 || kBin(0.0799) != 1 || kBin(0.08) != 2 || kBin(-0.15) != 3 || kBin(3) != 3 {
		t.Fatal("|K| ranges")
	}
}

func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		set  func(c *Config)
		want string
	}{
		{func(c *Config) { c.Epochs = 0 }, "epochs"},
		{func(c *Config) { c.BatchSize = 0 }, "batch size"},
		{func(c *Config) { c.LR = 0 }, "learning rate"},
		{func(c *Config) { c.MaxPairs = 10 }, "max pairs"},
		{func(c *Config) { c.Training.Clip = 0 }, "gradient clip"},
	} {
		c := DefaultConfig()
		tc.set(&c)
		if _, err := Run(c, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want one naming %q", err, tc.want)
		}
	}
}
