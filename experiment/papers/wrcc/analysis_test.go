package wrcc

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/metrics"
	"github.com/ccsim/ccsim/sim"
)

const us = sim.Microsecond

// flowOutcome applies metrics' censoring rule: the FCT and slowdown
// distributions it gives equal SummarizeFlows'.
func TestFlowOutcomeMatchesMetrics(t *testing.T) {
	end := 10 * sim.Millisecond
	recs := []metrics.FlowRecord{
		{ID: 0, SizeBytes: 1000, Start: 0, Finish: 50 * us, IdealFCT: 100 * us, Done: true}, // clamped to 1
		{ID: 1, SizeBytes: 1000, Start: 0, Finish: 300 * us, IdealFCT: 100 * us, Done: true},
		{ID: 2, SizeBytes: 1000, Start: 9 * sim.Millisecond, IdealFCT: 100 * us},        // censored: 1 ms
		{ID: 3, SizeBytes: 1000, Start: end, IdealFCT: 100 * us},                        // starts at the end: not counted
		{ID: 4, SizeBytes: 1000, NotStarted: true, IdealFCT: 100 * us},                  // never started
		{ID: 5, SizeBytes: 1000, Start: 2 * sim.Millisecond, IdealFCT: 16 * sim.Second}, // censored, slowdown clamped
	}
	var sd, fct []float64
	cens := 0
	for i := range recs {
		f, d, c, ok := flowOutcome(&recs[i], end)
		if !ok {
			continue
		}
		sd, fct = append(sd, d), append(fct, f)
		if c {
			cens++
		}
	}
	s := metrics.SummarizeFlows(recs, end)
	if s.All.N != len(sd) || s.All.Censored != cens || cens != 2 {
		t.Fatalf("counted %d (%d censored), metrics %d (%d)", len(sd), cens, s.All.N, s.All.Censored)
	}
	if d := metrics.Summarize(sd); d != s.All.Slowdown {
		t.Errorf("slowdowns %+v, metrics %+v", d, s.All.Slowdown)
	}
	if d := metrics.Summarize(fct); d != s.All.FCTUs {
		t.Errorf("FCTs %+v, metrics %+v", d, s.All.FCTUs)
	}
}

// writeRun writes a synthetic run directory: summary.json, flows.csv and
// queue_cdf.csv.
func writeRun(t *testing.T, summary string, recs []metrics.FlowRecord, files map[string]string) *experiment.RunRef {
	t.Helper()
	dir := t.TempDir()
	var b bytes.Buffer
	if err := metrics.WriteFlowsCSV(&b, recs); err != nil {
		t.Fatal(err)
	}
	files["summary.json"], files["flows.csv"] = summary, b.String()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return &experiment.RunRef{Dir: dir}
}

// readCross counts every flow that started, the unfinished ones censored
// at the run's end: in the size classes (incast flows among the long
// ones), the slowdown quantiles (a quantile at or above a censored value
// is a lower bound) and the 20-bin table (which before issue 16 got the
// finished flows only); PFC pause time of switch ports apart from host
// NICs (Fig. 9 is switch ports).
func TestReadCrossCensored(t *testing.T) {
	ideal := 100 * us
	fin := func(id int, size int64, fct sim.Time, g string) metrics.FlowRecord {
		return metrics.FlowRecord{ID: id, SizeBytes: size, Start: 0, Finish: fct, IdealFCT: ideal, Done: true, Group: g}
	}
	recs := []metrics.FlowRecord{
		fin(0, 10e3, 100*us, "intra"), fin(1, 10e3, 200*us, "intra"), fin(2, 10e3, 300*us, "cross"), fin(3, 10e3, 400*us, "cross"),
		{ID: 4, SizeBytes: 10e3, Start: 9 * sim.Millisecond, IdealFCT: ideal, Group: "cross"}, // censored: 1,000 µs, slowdown 10
		fin(5, 2e6, 1000*us, "cross"),
		{ID: 6, SizeBytes: 100e6, Start: 0, IdealFCT: ideal, Group: "incast"}, // censored: 10,000 µs, slowdown 100
		fin(7, 500e3, 500*us, "intra"),
	}
	summary := `{"sim_end_ns": 10000000, "wall_seconds": 1, "events": 10, "drops": 7, "bytes": {"dropped": 0},
		"pfc": {"ports": [{"node": 3, "port": 0, "paused_us": 100}, {"node": 70, "port": 4, "paused_us": 50}]},
		"queue_stats": [{"class": "fabric", "n": 100}]}`
	run := writeRun(t, summary, recs, map[string]string{"queue_cdf.csv": "class,bytes,fraction\nfabric,0,0.5\nfabric,1000,1\n"})
	p, err := readCross(run)
	if err != nil {
		t.Fatal(err)
	}
	// short: 100, 200, 300, 400, 1000 (censored): p50 = 300 exact, p99 = 1000 a bound
	// long: 1000, 10000 (censored, the incast): p50 = p99 = 10000, bounds
	// all slowdowns: 1 2 3 4 5 10 10c 100c: p50 = 5 exact, p99 = 100 a bound
	for _, c := range []struct {
		name string
		got  stat
		v    float64
		ex   bool
		n, c int
	}{
		{"short p50", p.shortP50, 300, true, 5, 1}, {"short p99", p.shortP99, 1000, false, 5, 1},
		{"long p50", p.longP50, 10000, false, 2, 1}, {"long p99", p.longP99, 10000, false, 2, 1},
		{"slowdown p50", p.sdP50, 5, true, 8, 2}, {"slowdown p99", p.sdP99, 100, false, 8, 2},
		{"incast p50", p.groupSd["incast"][0], 100, false, 1, 1}, {"intra p99", p.groupSd["intra"][1], 5, true, 3, 0},
	} {
		if c.got.v != c.v || c.got.exact != c.ex || c.got.n != c.n || c.got.cens != c.c {
			t.Errorf("%s = %+v, want %v exact %v over %d (%d censored)", c.name, c.got, c.v, c.ex, c.n, c.c)
		}
	}
	if p.censored != 2 || p.incast != 1 || p.flows != 8 {
		t.Errorf("censored %d incast %d flows %d", p.censored, p.incast, p.flows)
	}
	n, cens := 0, 0
	for _, b := range p.bins {
		n, cens = n+b.N, cens+b.Censored
	}
	if n != 8 || cens != 2 {
		t.Errorf("bins over %d flows (%d censored), want 8 (2)", n, cens)
	}
	if p.pauseUs != 50 || p.hostPauseUs != 100 {
		t.Errorf("switch pause %v, host pause %v; want 50, 100", p.pauseUs, p.hostPauseUs)
	}
	if p.qP80 != 1000 {
		t.Errorf("queue p80 %v", p.qP80)
	}
}

// Convergence counts only the bins in which both flows are active (before
// the first finish, the run's short last bin left out): flows with a gap
// ≥ 10 % in bins 0–19, equal rates in bins 20–159, flow 0 finished at
// 16.0 ms (no rows after), flow 1 on to 20 ms: 20 of 160 bins (12.5 %),
// converged from 2.0 ms. Before issue 16 every bin after flow 0 finished
// counted as unconverged: "never".
func TestConvergenceBothActive(t *testing.T) {
	var tt, g [2][]float64
	for k := range 200 {
		ms := float64(k) / 10
		if k < 160 {
			tt[0], g[0] = append(tt[0], ms), append(g[0], map[bool]float64{true: 60, false: 50}[k < 20])
		}
		tt[1], g[1] = append(tt[1], ms), append(g[1], map[bool]float64{true: 40, false: 50}[k < 20])
	}
	u, from, both := convergence(tt, g, [2]float64{16.0, math.Inf(1)})
	if both != 160 || u != 12.5 || from != 2.0 {
		t.Errorf("unconverged %v %% of %d bins, from %v; want 12.5 %% of 160, from 2.0", u, both, from)
	}
	// neither finishes: the last (possibly short) bin is left out
	tt[0], g[0] = tt[1], g[1]
	if _, _, both := convergence(tt, g, [2]float64{math.Inf(1), math.Inf(1)}); both != 199 {
		t.Errorf("both-active bins %d, want 199", both)
	}
}

// The E0 queue statistic is the largest over the sampled ports: B.tor0:0
// with 100 samples {0 ×20, 1.76 MB ×79, 3.18 MB ×1}, B.dci:0 with {0 ×43,
// 2 MB ×50, 9.79 MB ×7}: max 9.79 MB at B.dci:0, p30 1.76 MB at B.tor0:0;
// with SW2's port only, max 3.18 MB.
func TestE0Pick(t *testing.T) {
	rep := func(v float64, n int) []float64 { return slices.Repeat([]float64{v}, n) }
	tor, dci := portRef{"B.tor0", 0}, portRef{"B.dci", 0}
	r := &e0Result{ports: []portRef{tor, dci}, q: map[portRef][]float64{
		tor: slices.Concat(rep(0, 20), rep(1.76e6, 79), rep(3.18e6, 1)),
		dci: slices.Concat(rep(0, 43), rep(2e6, 50), rep(9.79e6, 7)),
	}}
	if v, at := r.pick(qmax); v != 9.79e6 || at != dci {
		t.Errorf("max %v at %v", v, at)
	}
	if v, at := r.pick(p30); v != 1.76e6 || at != tor {
		t.Errorf("p30 %v at %v", v, at)
	}
	r.ports = r.ports[:1]
	if v, _ := r.pick(qmax); v != 3.18e6 {
		t.Errorf("SW2 only: max %v", v)
	}
}

// The probe's latency over the messages posted before end − guard, the
// message in flight at the end (posted at the last completion) censored.
func TestProbeStats(t *testing.T) {
	posts := []sim.Time{0, 10 * us, 30 * us, 60 * us, 100 * us}
	dones := []sim.Time{10 * us, 30 * us, 60 * us, 100 * us, 150 * us}
	// a 10-ms test: the in-flight message posted at 150 µs, censored at 9,850 µs
	m, p := probeStats(posts, dones, 10*sim.Millisecond, sim.Millisecond)
	if math.Abs(m.v-(150+9850)/6.0) > 1e-9 || m.exact || m.cens != 1 || p.v != 9850 || p.exact {
		t.Errorf("10 ms: mean %+v p99 %+v", m, p)
	}
	// a 1.1-ms test: window [0, 100 µs): 4 messages, the in-flight one
	// posted after it
	m, p = probeStats(posts, dones, 1100*us, sim.Millisecond)
	if m.v != 25 || !m.exact || p.v != 40 || !p.exact || m.n != 4 {
		t.Errorf("1.1 ms: mean %+v p99 %+v", m, p)
	}
	// no message completed in a 20-ms test: the first, posted at 0, censored at 20 ms
	m, p = probeStats(nil, nil, 20*sim.Millisecond, sim.Millisecond)
	if m.v != 20000 || m.exact || p.v != 20000 || p.exact {
		t.Errorf("none: mean %+v p99 %+v", m, p)
	}
	// a window too short for any post: no latency
	if m, _ := probeStats(nil, nil, 6400*us, 12800*us); !math.IsNaN(m.v) {
		t.Errorf("empty window: %+v", m)
	}
}

// A comparison of reductions: a cut whose baseline is a lower bound is one
// itself; a WRCC-side bound makes every value a bound (inconclusive).
func TestCutLowers(t *testing.T) {
	if got := cutLowers([2]bool{false, false}, [2]bool{false, true}); !slices.Equal(got, []bool{false, true}) {
		t.Errorf("baseline bound: %v", got)
	}
	if got := cutLowers([2]bool{false, false}, [2]bool{true, false}, [2]bool{false, false}); !slices.Equal(got, []bool{true, true, true}) {
		t.Errorf("WRCC bound: %v", got)
	}
	c := experiment.Claim{ID: "x", Kind: experiment.Direction, Rel: experiment.Greater}
	m := experiment.M(50, 10)
	m.Lower = cutLowers([2]bool{true, false}, [2]bool{false, false})
	if v, err := experiment.Evaluate(&c, experiment.DefaultTolerance, m); err != nil || v.Holds != experiment.Inconclusive {
		t.Errorf("%v %v", v, err)
	}
}

// pairs leaves out points with a missing side (NaN) instead of counting
// them (CountPairs would decide a NaN point yes), and at quick scale
// drops the undecided count (the flip check's two-value Count).
func TestPairs(t *testing.T) {
	var p pairs
	p.add("a", experiment.Sample{1}, false, experiment.Sample{2}, false)
	p.add("b", experiment.Sample{math.NaN()}, false, experiment.Sample{2}, false)
	p.add("c", experiment.Sample{1}, true, experiment.Sample{2}, false) // WRCC a bound: undecided
	p.add("d", experiment.Sample{3}, false, experiment.Sample{2}, false)
	m := p.count(experiment.Less, experiment.ScalePaper)
	if len(m.Values) != 3 || m.Values[0][0] != 1 || m.Values[1][0] != 3 || m.Values[2][0] != 1 || !slices.Equal(p.skipped, []string{"b"}) {
		t.Errorf("paper: %v skipped %v", m.Values, p.skipped)
	}
	if m := p.count(experiment.Less, experiment.ScaleQuick); len(m.Values) != 2 {
		t.Errorf("quick: %v", m.Values)
	}
	var q pairs
	q.add("a", experiment.Sample{1}, false, experiment.Sample{2}, false)
	if m := q.count(experiment.Less, experiment.ScalePaper); len(m.Values) != 2 {
		t.Errorf("no undecided point: %v", m.Values)
	}
}

// cutOf pairs the seeds; mags.best is the largest mean.
func TestCutsAndBest(t *testing.T) {
	if got := cutOf(experiment.Sample{1, 2, 3}, experiment.Sample{2, 4, 4}); !slices.Equal(got, experiment.Sample{50, 50, 25}) {
		t.Errorf("cutOf %v", got)
	}
	if got := cutOf(experiment.Sample{1}, experiment.Sample{2, 2}); !slices.Equal(got, experiment.Sample{50}) {
		t.Errorf("cutOf unpaired %v", got)
	}
	var m mags
	m.add("a", experiment.Sample{10, 20}, false)
	m.add("nan", experiment.Sample{math.NaN()}, false)
	m.add("b", experiment.Sample{30}, true)
	if m.best() != 1 || len(m.pts) != 2 || m.spanText() != "15 … 30" {
		t.Errorf("best %d, %d points, span %s", m.best(), len(m.pts), m.spanText())
	}
}

// The climb in 2-ms windows: 1-ms rates [1.5, 1.5, 1.9, 1.9, 2.4, 2.4,
// 2.7, 2.7, 3.1, 3.1] are windows 1.5, 1.9, 2.4, 2.7, 3.1 at 0 … 8 ms; from
// window 0, 3.0 is first reached at 8 ms and 6.0 never: [8].
func TestDoublingTimes(t *testing.T) {
	w := windows([]float64{1.5, 1.5, 1.9, 1.9, 2.4, 2.4, 2.7, 2.7, 3.1, 3.1, 9})
	if !slices.Equal(w, []float64{1.5, 1.9, 2.4, 2.7, 3.1}) {
		t.Fatalf("windows %v", w)
	}
	if got := doublingTimes(w, 0, 2); !slices.Equal(got, []float64{8}) {
		t.Errorf("doublings %v, want [8]", got)
	}
	if got := doublingTimes([]float64{0, 1, 2, 4.5, 4, 9}, 1, 2); !slices.Equal(got, []float64{2, 2, 4}) {
		t.Errorf("doublings %v, want [2 2 4]", got)
	}
	if got := doublingTimes(w, 9, 2); got != nil {
		t.Errorf("past the end: %v", got)
	}
}

// E5 runs each case once per line-3 reading, WRCC only.
func TestE5Runs(t *testing.T) {
	e := e5()
	runs := e.Runs(experiment.ScalePaper)
	if len(runs) != 2 || runs[0].CC != "wrcc" || runs[1].CC != "wrcc" || runs[0].Patch["stop_ms"] != 150.0 {
		t.Errorf("runs %+v", runs)
	}
	if len(e.Readings) != 2 || !e.Readings[0].Primary || e.Readings[0].ID != "printed" {
		t.Errorf("readings %+v", e.Readings)
	}
}
