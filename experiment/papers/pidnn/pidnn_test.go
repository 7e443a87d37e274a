package pidnn

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/experiment/exptest"
	"github.com/ccsim/ccsim/metrics"
	"github.com/ccsim/ccsim/report/htmlcheck"
	"github.com/ccsim/ccsim/sim"
)

// RATE_mean (eq. 30) = Σ sizes / Σ FCTs: flows of 1 MB in 1 ms and 3 MB in
// 3 ms → 4 MB·8 / 4 ms = 8 Gb/s (not the mean of the per-flow rates, which
// is also 8 here, so a third flow of 1 MB in 4 ms tells them apart:
// 5 MB·8 / 8 ms = 5 Gb/s, the per-flow mean would be 6 Gb/s). FCT_mean =
// 8/3 ms, T_finish = 4 ms set by flow 2; an unfinished flow is counted and
// left out.
func TestIncastMetrics(t *testing.T) {
	ms := sim.Millisecond
	fl := []metrics.FlowRecord{
		{ID: 0, SizeBytes: 1_000_000, Start: 0, Finish: ms, Done: true},
		{ID: 1, SizeBytes: 3_000_000, Start: 0, Finish: 3 * ms, Done: true},
		{ID: 2, SizeBytes: 1_000_000, Start: ms, Finish: 5 * ms, Done: true},
		{ID: 3, SizeBytes: 9_000_000, Start: 0},
	}
	r := incastMetrics(fl)
	if r.rate != 5 || math.Abs(r.fctMean-8.0/3) > 1e-12 || r.tFinish != 4 || r.lastFlow != 2 || r.lastSize != 1_000_000 || r.unfinished != 1 {
		t.Errorf("got %+v; want rate 5 Gb/s, FCT_mean 2.667 ms, T_finish 4 ms by flow 2, 1 unfinished", r)
	}
	if r := incastMetrics(nil); !math.IsNaN(r.rate) || !math.IsNaN(r.fctMean) {
		t.Errorf("no flows: %+v, want NaN", r)
	}
}

// The paper's percentage changes: increases over the PID-only value,
// decreases over the LSTM+PID value (Tables 4, 5 → +1.38, +43.12, −18.9,
// −16.12 %).
func TestChange(t *testing.T) {
	for _, c := range []struct{ a, b, want float64 }{
		{4.9616, 5.0302, 1.38}, {14.7977, 21.1789, 43.12}, {7.462, 6.276, -18.90}, {24.552, 21.144, -16.12}, {3, 3, 0},
	} {
		if got := change(c.a, c.b); math.Abs(got-c.want) > 0.005 {
			t.Errorf("change(%v, %v) = %.4f, want %.2f", c.a, c.b, got, c.want)
		}
	}
}

// Table 8's bins: 40 background flows of sizes 1..40 KB (slowdown = the
// size in KB) and 5 incast flows (excluded) → 20 bins of 2 flows; bin k
// holds sizes 2k−1, 2k KB: label 2k KB, p95 = index ⌊0.95·2⌋ = 1 of the
// sorted pair = 2k. An unfinished background flow is counted and not
// binned.
func TestBackgroundBins(t *testing.T) {
	var fl []metrics.FlowRecord
	for i := 40; i >= 1; i-- {
		fl = append(fl, metrics.FlowRecord{ID: len(fl), SizeBytes: int64(i) * 1000, IdealFCT: sim.Microsecond, Finish: sim.Time(i) * sim.Microsecond, Done: true})
	}
	for range 5 {
		fl = append(fl, metrics.FlowRecord{ID: len(fl), SizeBytes: 500_000, IdealFCT: sim.Microsecond, Finish: 1000 * sim.Microsecond, Done: true, Group: "incast"})
	}
	fl = append(fl, metrics.FlowRecord{ID: len(fl), SizeBytes: 7, IdealFCT: sim.Microsecond})
	bins, unf := backgroundBins(fl, metrics.NoCensoring)
	if unf != 1 || len(bins) != 20 {
		t.Fatalf("%d bins, %d unfinished; want 20, 1", len(bins), unf)
	}
	for k, b := range bins {
		want := float64(2 * (k + 1))
		if b.N != 2 || b.MaxSizeBytes != int64(want)*1000 || b.P95 != want {
			t.Errorf("bin %d = %+v, want 2 flows, max %v KB, p95 %v", k+1, b, want, want)
		}
	}
	// slowdowns below 1 are clamped
	fl = fl[:0]
	for i := range 20 {
		fl = append(fl, metrics.FlowRecord{SizeBytes: int64(i + 1), IdealFCT: 10 * sim.Microsecond, Finish: sim.Microsecond, Done: true})
	}
	if bins, _ = backgroundBins(fl, metrics.NoCensoring); bins[0].P95 != 1 {
		t.Errorf("p95 %v, want 1 (slowdown clamped)", bins[0].P95)
	}
}

// Runs shared between E1's experiments have equal specs (one content hash,
// one run), and the quick scale divides every flow by 10.
func TestE1SharedRuns(t *testing.T) {
	specs := map[string]experiment.RunSpec{}
	for _, e := range []*experiment.Experiment{e1b(), e1cd(), e1e(), e1f()} {
		for _, r := range e.Runs(experiment.ScaleQuick) {
			if o, ok := specs[r.Key]; ok && (o.CC != r.CC || o.Base != r.Base) {
				t.Errorf("%s: two different runs", r.Key)
			}
			specs[r.Key] = r
			sz := r.Patch["workload"].(map[string]any)["incast"].(map[string]any)["sizes_bytes"].([]any)
			if len(sz) != 20 || sz[0] != int64(20_000_000) || sz[19] != int64(500_000) {
				t.Errorf("%s: quick sizes %v", r.Key, sz)
			}
		}
	}
	// (pid + pidnn × 3 targets) × {trained, paper's gains} + hpcc, timely, dctcp
	if len(specs) != 11 {
		t.Errorf("%d distinct E1 runs, want 11", len(specs))
	}
	for _, k := range []string{"cc=pid target=5 gains=paper", "cc=pidnn target=7 gains=paper"} {
		r, ok := specs[k]
		if !ok {
			t.Errorf("no run %q", k)
			continue
		}
		if g := r.Patch["params"].(map[string]any)[r.CC].(map[string]any)["gains"]; g != "paper" {
			t.Errorf("%s: gains %v", k, g)
		}
	}
}

// Every experiment of the paper at quick scale: all runs succeed, every
// claim has a row with a value, the report renders.
func TestQuickReproduction(t *testing.T) {
	if testing.Short() {
		t.Skip("quick reproduction: 14 runs")
	}
	dir, _ := exptest.QuickReproduce(t, "pidnn")
	exptest.Files(t, dir, "tables/e1b_table1.csv", "tables/e1cd_table45.csv", "tables/e1e_prediction.csv", "tables/e1f_table6.csv", "tables/e2_table8.csv", "tables/e2_cost.csv", "plots/e1b_predicted-rtt.svg", "plots/e1b_mape.svg")
	htmlcheck.Check(t, filepath.Join(dir, "report.html"), []string{"e2: Random flows with incasts", "Table 8"})
}
