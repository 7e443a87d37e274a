package pidnn

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ccsim/ccsim/cc/pidnnmodel"
	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/metrics"
	"github.com/ccsim/ccsim/sim"
	pidnntrain "github.com/ccsim/ccsim/train/pidnn"
)

// verdicts decides every claim of e that ms measures (the paper-wide
// tolerance), by claim id.
func verdicts(t *testing.T, e *experiment.Experiment, ms map[string]experiment.Measure) map[string]experiment.Verdict {
	t.Helper()
	out := map[string]experiment.Verdict{}
	for i := range e.Claims {
		c := &e.Claims[i]
		m, ok := ms[c.ID]
		if !ok {
			continue
		}
		v, err := experiment.Evaluate(c, experiment.DefaultTolerance, m)
		if err != nil {
			t.Fatalf("%s: %v", c.ID, err)
		}
		out[c.ID] = v
	}
	return out
}

// want checks the outcome ("yes", "no", …) of each claim of e.
func want(t *testing.T, vs map[string]experiment.Verdict, outcomes map[string]experiment.Outcome) {
	t.Helper()
	for id, o := range outcomes {
		v, ok := vs[id]
		if !ok {
			t.Errorf("%s: not measured", id)
			continue
		}
		if v.Holds != o {
			t.Errorf("%s: %s (%s; %s), want %s", id, v.Holds, v.Value, v.Why, o)
		}
	}
}

// allYes checks that every claim of e is measured and holds.
func allYes(t *testing.T, e *experiment.Experiment, vs map[string]experiment.Verdict) {
	t.Helper()
	for _, c := range e.Claims {
		if v, ok := vs[c.ID]; !ok || v.Holds != experiment.Yes {
			t.Errorf("%s/%s: %+v, want yes", e.ID, c.ID, v)
		}
	}
}

// RATE_mean (eq. 30) = Σ sizes / Σ FCTs, FCT_mean, T_finish (eq. 33) and
// the last flow, with an unfinished flow censored at the run's end: with
// end = 10 ms, the unfinished 9-MB flow started at 0 counts 10 ms, so
// RATE_mean = 14 MB · 8 / (1 + 3 + 4 + 10) ms = 6.222 Gb/s, FCT_mean 4.5 ms,
// T_finish 10 ms by flow 3 (before issue 16 it was left out: 5 Gb/s,
// 2.667 ms, 4 ms by flow 2).
func TestIncastMetrics(t *testing.T) {
	ms := sim.Millisecond
	fl := []metrics.FlowRecord{
		{ID: 0, SizeBytes: 1_000_000, Start: 0, Finish: ms, Done: true},
		{ID: 1, SizeBytes: 3_000_000, Start: 0, Finish: 3 * ms, Done: true},
		{ID: 2, SizeBytes: 1_000_000, Start: ms, Finish: 5 * ms, Done: true},
		{ID: 3, SizeBytes: 9_000_000, Start: 0},
	}
	r := incastMetrics(fl, 10*ms)
	if math.Abs(r.rate-14e6*8/18e-3/1e9) > 1e-12 || math.Abs(r.fctMean-4.5) > 1e-12 || r.tFinish != 10 || r.lastFlow != 3 || r.censored != 1 {
		t.Errorf("got %+v; want rate 6.222 Gb/s, FCT_mean 4.5 ms, T_finish 10 ms by flow 3, 1 censored", r)
	}
	// the three large flows (ids 0–2) and the others: flow 3 is censored
	if r.maxLarge != 4 || r.largeCens || r.maxSmall != 10 || !r.smallCens {
		t.Errorf("large/small: %v %v / %v %v, want 4 exact / 10 censored", r.maxLarge, r.largeCens, r.maxSmall, r.smallCens)
	}
	// the reference's rule (finished flows only) on the same records
	r = incastMetrics(fl, metrics.NoCensoring)
	if r.rate != 5 || math.Abs(r.fctMean-8.0/3) > 1e-12 || r.tFinish != 4 || r.lastFlow != 2 || r.censored != 0 {
		t.Errorf("finished only: %+v; want 5 Gb/s, 2.667 ms, 4 ms by flow 2", r)
	}
	if r := incastMetrics(nil, 10*ms); !math.IsNaN(r.rate) || !math.IsNaN(r.fctMean) {
		t.Errorf("no flows: %+v, want NaN", r)
	}
	// magnitudes: FCT_mean a lower bound, RATE_mean (an upper bound) not measured
	r = incastMetrics(fl, 10*ms)
	if m, ok := magnitude(mFCT, &r); !ok || len(m.MagLower) != 1 || !m.MagLower[0] {
		t.Errorf("FCT_mean with a censored flow: %+v, want a lower bound", m)
	}
	if _, ok := magnitude(mRate, &r); ok {
		t.Error("RATE_mean with a censored flow: measured, want left out (an upper bound)")
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
// sorted pair = 2k. An unfinished background flow of 7 B started at 0
// counts censored at the end (10 µs / 1 µs ideal: slowdown 10) in bin 1,
// which then holds 3 flows (sizes 7 B, 1 KB, 2 KB).
func TestBackgroundBins(t *testing.T) {
	var fl []metrics.FlowRecord
	for i := 40; i >= 1; i-- {
		fl = append(fl, metrics.FlowRecord{ID: len(fl), SizeBytes: int64(i) * 1000, IdealFCT: sim.Microsecond, Finish: sim.Time(i) * sim.Microsecond, Done: true})
	}
	for range 5 {
		fl = append(fl, metrics.FlowRecord{ID: len(fl), SizeBytes: 500_000, IdealFCT: sim.Microsecond, Finish: 1000 * sim.Microsecond, Done: true, Group: "incast"})
	}
	bins := sizeBins(background(fl, metrics.NoCensoring), nBins)
	for k, b := range bins {
		want := float64(2 * (k + 1))
		if b.n != 2 || b.maxSize != int64(want)*1000 || b.p95 != want || b.p95Lower || b.censored != 0 {
			t.Errorf("bin %d = %+v, want 2 flows, max %v KB, p95 %v", k+1, b, want, want)
		}
	}
	fl = append(fl, metrics.FlowRecord{ID: len(fl), SizeBytes: 7, IdealFCT: sim.Microsecond})
	bg := background(fl, 10*sim.Microsecond)
	if len(bg) != 41 || bg[0].size != 7 || bg[0].sd != 10 || !bg[0].censored {
		t.Fatalf("background %+v", bg[:2])
	}
	bins = sizeBins(bg, nBins)
	// bin 1 = flows 0, 1 of 41 ([0, 41/20 = 2)): sizes 7 B (censored, 10) and 1 KB (1);
	// p95 = index 1 = 10, the censored one: a lower bound
	if b := bins[0]; b.n != 2 || b.censored != 1 || b.p95 != 10 || !b.p95Lower {
		t.Errorf("bin 1 = %+v, want 2 flows, 1 censored, p95 10 (a lower bound)", b)
	}
	// slowdowns below 1 are clamped
	fl = fl[:0]
	for i := range 20 {
		fl = append(fl, metrics.FlowRecord{SizeBytes: int64(i + 1), IdealFCT: 10 * sim.Microsecond, Finish: sim.Microsecond, Done: true})
	}
	if bins = sizeBins(background(fl, metrics.NoCensoring), nBins); bins[0].p95 != 1 {
		t.Errorf("p95 %v, want 1 (slowdown clamped)", bins[0].p95)
	}
}

// sizeBins bins and takes percentiles exactly as metrics.SizeBins (the
// reference analysis's rule), censored flows included.
func TestSizeBinsMatchMetrics(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var fl []metrics.FlowRecord
	for i := range 2000 {
		f := metrics.FlowRecord{ID: i, SizeBytes: int64(1 + r.IntN(5000)), Start: sim.Time(r.IntN(1000)) * sim.Microsecond, IdealFCT: sim.Time(1+r.IntN(50)) * sim.Microsecond}
		if r.IntN(20) > 0 {
			f.Done, f.Finish = true, f.Start+sim.Time(1+r.IntN(5000))*sim.Microsecond
		}
		fl = append(fl, f)
	}
	end := 3000 * sim.Microsecond
	got, ref := sizeBins(background(fl, end), nBins), metrics.SizeBins(fl, nBins, end)
	if len(got) != len(ref) {
		t.Fatalf("%d bins, metrics %d", len(got), len(ref))
	}
	lower := 0
	for k := range got {
		if got[k].p95 != ref[k].P95 || got[k].n != ref[k].N || got[k].maxSize != ref[k].MaxSizeBytes || got[k].censored != ref[k].Censored {
			t.Errorf("bin %d: %+v, metrics %+v", k+1, got[k], ref[k])
		}
		if got[k].p95Lower {
			lower++
		}
	}
	t.Logf("%d of %d bins' p95 are lower bounds", lower, nBins)
}

// A percentile is exact when every censored value lies above it, else a
// lower bound (metrics.PercentileCensored).
func TestPercentileLower(t *testing.T) {
	f := func(sd float64, c bool) flowSD { return flowSD{sd: sd, censored: c} }
	for _, c := range []struct {
		fs    []flowSD
		p, v  float64
		lower bool
		cens  int
	}{
		// 20 flows, index 19 of the p95: the censored largest
		{append(repeatSD(19, 1), f(50, true)), 0.95, 50, true, 1},
		// a censored flow below the p95 of 20 (18 finished at 1, a
		// censored 2, a finished 5): the p95 is 5, and the censored 2 may
		// in truth lie above it
		{append(append(repeatSD(18, 1), f(2, true)), f(5, false)), 0.95, 5, true, 1},
		// a censored flow above the 10th percentile (index 2 of 20) leaves it exact
		{append(repeatSD(19, 1), f(50, true)), 0.10, 1, false, 1},
	} {
		v, lower, cens := percentile(c.fs, c.p)
		if v != c.v || lower != c.lower || cens != c.cens {
			t.Errorf("%v: %v %v %d, want %v %v %d", c.fs, v, lower, cens, c.v, c.lower, c.cens)
		}
	}
}

func repeatSD(n int, sd float64) []flowSD {
	out := make([]flowSD, n)
	for i := range out {
		out[i] = flowSD{sd: sd}
	}
	return out
}

// E1b decides the predictor's MAPE on the mean of epochs 15–19 (issue 16
// §5), not on the last epoch alone: test MAPE 0.05 in epochs 1–18 and 0.12
// in epoch 19 → mean 0.064 → below 10 % (the last epoch alone: no); 0.20 in
// epochs 15–18 and 0.05 in epoch 19 → mean 0.17 → not below (the last
// epoch alone: yes). Over seeds, the mean of the seeds' means.
func TestE1bLastFive(t *testing.T) {
	log := func(test func(e int) float64) pidnntrain.Log {
		lg := pidnntrain.Log{Gains: pidnnmodel.PaperLearnedGains}
		for e := 1; e <= 19; e++ {
			lg.Epochs = append(lg.Epochs, pidnntrain.EpochLog{Epoch: e, TrainMAPE: 0.1, TestMAPE: test(e)})
		}
		for i := range 11 {
			lg.LongFlowTrace = append(lg.LongFlowTrace, pidnntrain.GainPoint{Updates: int64(100 * i), Gains: pidnnmodel.Gains{Kp: -0.2 - 0.01*math.Sqrt(float64(i))}, Path: pidnnmodel.Gains{Kp: 0.01}})
		}
		return lg
	}
	late := log(func(e int) float64 { return map[bool]float64{true: 0.12, false: 0.05}[e == 19] })
	early := log(func(e int) float64 {
		if e >= 15 && e <= 18 {
			return 0.20
		}
		return 0.05
	})
	e := e1b()
	v := verdicts(t, e, e1bMeasures([]pidnntrain.Log{late}))
	want(t, v, map[string]experiment.Outcome{"mape-below-10pct": experiment.Yes, "learned-kp": experiment.Yes, "learned-ki": experiment.Yes, "learned-kd": experiment.Yes,
		"mape-falls": experiment.No, "gains-settle": experiment.Yes})
	if got := v["test-mape-last5"].Value; got != "0.064" {
		t.Errorf("test MAPE of epochs 15–19: %s, want 0.064", got)
	}
	want(t, verdicts(t, e, e1bMeasures([]pidnntrain.Log{early})), map[string]experiment.Outcome{"mape-below-10pct": experiment.No})
	// two seeds: (0.064 + 0.17)/2 = 0.117: no
	both := verdicts(t, e, e1bMeasures([]pidnntrain.Log{late, early}))
	want(t, both, map[string]experiment.Outcome{"mape-below-10pct": experiment.No})
	// the paper's Table 1 itself: every training claim holds
	paper := pidnntrain.Log{Gains: pidnnmodel.PaperLearnedGains, LongFlowTrace: late.LongFlowTrace}
	for i := range 19 {
		paper.Epochs = append(paper.Epochs, pidnntrain.EpochLog{Epoch: i + 1, TrainMAPE: pidnntrain.PaperTable1[0][i], TestMAPE: pidnntrain.PaperTable1[1][i]})
	}
	pv := verdicts(t, e, e1bMeasures([]pidnntrain.Log{paper}))
	want(t, pv, map[string]experiment.Outcome{"train-mape-last5": experiment.Yes, "test-mape-last5": experiment.Yes, "mape-below-10pct": experiment.Yes,
		"mape-falls": experiment.Yes, "mape-falls-train": experiment.Yes, "mape-ratio": experiment.Yes})
}
