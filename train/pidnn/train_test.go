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
	// the training logs of the other seeds (E1b's MAPE over seeds)
	for _, seed := range pidnnmodel.LogSeeds[1:] {
		cfg.Seed = seed
		res, err := Run(cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(res.Files[pidnnmodel.LogFile], pidnnmodel.ShippedSeedLog(seed)) {
			t.Errorf("%s differs from `ccsim train pidnn --seed %d`'s train.json (regenerate it)", pidnnmodel.SeedLogFile(seed), seed)
		}
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

// The PID half of the predictor's dataset is the gain-training run's
// samples (paper 001 §3.4.2: "the RTT data come from the simulations in
// which the PIDNN parameters were later optimised and from TIMELY
// simulations"): every flow of that run makes one gain update per sample
// but its first, so the dataset's PID samples are the run's updates plus
// one per flow (20).
func TestGainTrainingFeedsDataset(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	cfg := DefaultConfig()
	cfg.Workers = 1
	res, err := Run(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	lg := res.Log
	if len(lg.GainRuns) != 1 {
		t.Fatalf("%d gain runs, want 1", len(lg.GainRuns))
	}
	if got, want := int64(lg.Dataset.Samples["pid"]), lg.GainRuns[0].Updates+20; got != want {
		t.Errorf("dataset: %d PID samples, want the gain-training run's %d (its updates + 20 flows)", got, want)
	}
	// every flow trained its own controller: one update per sample but
	// its first; the shipped gains are the long flow's (the most updates,
	// the lowest id among equals)
	run := lg.GainRuns[0]
	if len(run.Flows) != 20 {
		t.Fatalf("%d flows in the gain run, want 20", len(run.Flows))
	}
	var samples, updates, pos int64
	long := run.Flows[0]
	for i, f := range run.Flows {
		if f.Flow != int32(i) || f.Updates != int64(f.Samples-1) || f.KpGradPositive <= 0 || f.KpGradPositive >= f.Updates {
			t.Errorf("flow %d: %+v", i, f)
		}
		samples += int64(f.Samples)
		updates += f.Updates
		pos += f.KpGradPositive
		if f.Updates > long.Updates {
			long = f
		}
	}
	if samples != int64(lg.Dataset.Samples["pid"]) || updates != run.Updates || pos != run.KpGradPositive || lg.KpGrad != (GradSignLog{Positive: pos, Updates: updates}) {
		t.Errorf("totals: %d samples, %d updates, %d positive; log %+v, run %+v", samples, updates, pos, lg.KpGrad, run)
	}
	if lg.LongFlow != long.Flow || lg.Gains != long.Gains {
		t.Errorf("long flow %d with %+v, want %d with %+v", lg.LongFlow, lg.Gains, long.Flow, long.Gains)
	}
	tr := lg.LongFlowTrace
	if len(tr) != 11 || tr[0].Gains != pidnnmodel.PaperInitialGains || tr[10].Updates != long.Updates || tr[10].Gains != long.Gains {
		t.Errorf("long flow's trace %+v", tr)
	}
}

// tenths: the gains at every tenth of the updates and the path of each
// gain since the previous point.
func TestTenths(t *testing.T) {
	g0 := pidnnmodel.Gains{}
	var trace []pidnnmodel.Gains
	for i := 1; i <= 20; i++ { // K_p: +1, −1 alternately from 0; K_i: +0.5 each step
		kp := 0.0
		if i%2 == 1 {
			kp = 1
		}
		trace = append(trace, pidnnmodel.Gains{Kp: kp, Ki: 0.5 * float64(i)})
	}
	pts := tenths(g0, trace)
	if len(pts) != 11 || pts[0].Gains != g0 || pts[0].Updates != 0 {
		t.Fatalf("%+v", pts)
	}
	for i, p := range pts[1:] {
		want := GainPoint{Updates: int64(2 * (i + 1)), Gains: pidnnmodel.Gains{Ki: float64(i + 1)}, Path: pidnnmodel.Gains{Kp: 2, Ki: 1}}
		if p != want {
			t.Errorf("point %d: %+v, want %+v", i+1, p, want)
		}
	}
	if got := longFlow([]FlowGainLog{{Flow: 3, Updates: 5}, {Flow: 1, Updates: 7}, {Flow: 2, Updates: 7}}); got.Flow != 1 {
		t.Errorf("long flow %d, want 1 (most updates, lowest id)", got.Flow)
	}
}
