package dcon

import (
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/experiment/exptest"
	"github.com/ccsim/ccsim/report/htmlcheck"
)

// resolver resolves an experiment's runs under a reading at the paper's
// scale, through the public machinery only.
type resolver struct {
	t  *testing.T
	st *experiment.Store
}

func newResolver(t *testing.T) *resolver {
	p, err := experiment.Lookup("dcon")
	if err != nil {
		t.Fatal(err)
	}
	st, err := experiment.OpenStore(t.TempDir(), p)
	if err != nil {
		t.Fatal(err)
	}
	return &resolver{t: t, st: st}
}

// reading is experiment e's reading id (fatal if missing).
func reading(t *testing.T, e *experiment.Experiment, id string) experiment.Reading {
	t.Helper()
	for _, r := range e.Readings {
		if r.ID == id {
			return r
		}
	}
	t.Fatalf("%s has no reading %s (readings %v)", e.ID, id, readingIDs(e))
	return experiment.Reading{}
}

func readingIDs(e *experiment.Experiment) []string {
	var ids []string
	for _, r := range e.Readings {
		ids = append(ids, r.ID)
	}
	return ids
}

// resolve resolves run key of e under reading rd at paper scale.
func (r *resolver) resolve(e *experiment.Experiment, rd experiment.Reading, key string) *experiment.Resolved {
	r.t.Helper()
	for _, spec := range e.Runs(experiment.ScalePaper) {
		if spec.Key != key {
			continue
		}
		if rd.Patch != nil {
			spec.Patch = experiment.Merge(spec.Patch, rd.Patch(experiment.ScalePaper))
		}
		res, err := r.st.Resolve(spec)
		if err != nil {
			r.t.Fatal(err)
		}
		return res
	}
	r.t.Fatalf("%s has no run %q", e.ID, key)
	return nil
}

// Issue 16 (paper 003): E3 and E4 read the unstated NS-3 switch setting in
// three ways; the checks of §4.4 (Q_CNM ≥ Q_ECN) and of Fig. 11's text
// (the dynamic threshold between 40 % and 60 % of the fixed buffer size)
// mark the two readings of the PFC threshold inconsistent and the
// per-port share consistent (before: one setting, Q_ECN 100 KB and B =
// Q_PFC, whose dynamic threshold lies above both fixed ones).
func TestSwitchReadingsAndChecks(t *testing.T) {
	r := newResolver(t)
	want := map[string][2]float64{ // fixed40-above-ecn, dynamic-between-fixed
		"perport": {1.375, 320 / 687.5}, "pfc-q100": {1.28, 1}, "testbed-pfc": {0.64, 1}, "cnm-switch-gap": {1.375, 320 / 687.5},
	}
	for _, c := range []struct {
		exp, first string
		readings   []string
	}{
		{"e3", "workload=websearch load=0.4 cc=dcqcn seed=1", []string{"perport", "pfc-q100", "testbed-pfc"}},
		{"e4", "q_cnm=40% load=0.4 seed=1", []string{"perport", "pfc-q100", "testbed-pfc", "cnm-switch-gap"}},
	} {
		e := lookup(t, c.exp)
		if got := readingIDs(e); !slices.Equal(got, c.readings) {
			t.Fatalf("%s readings %v, want %v", c.exp, got, c.readings)
		}
		if !e.Readings[0].Primary {
			t.Errorf("%s: perport is not the primary reading", c.exp)
		}
		for _, id := range []string{"pfc-q100", "testbed-pfc"} {
			if rd := reading(t, e, id); !slices.Equal(rd.OnlySeeds, []uint64{1}) {
				t.Errorf("%s/%s runs seeds %v, want [1]", c.exp, id, rd.OnlySeeds)
			}
		}
		for _, id := range c.readings {
			s := r.resolve(e, reading(t, e, id), c.first).Scenario
			consistent := true
			got := map[string]float64{}
			for _, ch := range e.Checks {
				v, err := ch.Derive(s)
				if err != nil {
					t.Fatalf("%s/%s check %s: %v", c.exp, id, ch.ID, err)
				}
				got[ch.ID] = v
				ok := math.Abs(v-ch.Paper) <= 0.5
				if ch.Tol != nil {
					ok = math.Abs(v-ch.Paper) <= ch.Tol.Of(ch.Paper)
				}
				if ch.Bounds {
					ok = v >= ch.Lo && v <= ch.Hi
				}
				consistent = consistent && ok
			}
			w := want[id]
			if math.Abs(got["fixed40-above-ecn"]-w[0]) > 1e-9 || math.Abs(got["dynamic-between-fixed"]-w[1]) > 1e-9 {
				t.Errorf("%s/%s: fixed40-above-ecn %v, dynamic-between-fixed %v; want %v", c.exp, id, got["fixed40-above-ecn"], got["dynamic-between-fixed"], w)
			}
			if wantOK := id == "perport" || id == "cnm-switch-gap"; consistent != wantOK {
				t.Errorf("%s/%s: consistent %v, want %v (%v)", c.exp, id, consistent, wantOK, got)
			}
		}
	}
}

// Issue 16: a CNM per burst packet with the sender's 50 µs window is the
// primary reading of E1, E2 and E4; the switch-side gap (one CNM per flow
// per 50 µs, never raising) a reading of its own; not in E3 (cost) nor in
// E0 (DCQCN only).
func TestCNMGapReading(t *testing.T) {
	r := newResolver(t)
	for exp, key := range map[string]string{"e1": "cc=dcon seed=1", "e2": "interval_us=20 cc=dcon seed=1", "e4": "q_cnm=dynamic load=0.8 seed=1"} {
		e := lookup(t, exp)
		var primary experiment.Reading
		for _, rd := range e.Readings {
			if rd.Primary {
				primary = rd
			}
		}
		for _, c := range []struct {
			rd    experiment.Reading
			gap   float64
			raise bool
		}{{primary, 0, true}, {reading(t, e, "cnm-switch-gap"), 50, false}} {
			p := r.resolve(e, c.rd, key).Scenario.ParamsOf("dcon").(*cc.DCONParams)
			if p.CNMGapUs != c.gap || p.CNMMayRaise != c.raise || p.CNMDupUs != 50 {
				t.Errorf("%s/%s: cnm_gap_us %v, cnm_may_raise %v, window %v; want %v, %v, 50", exp, c.rd.ID, p.CNMGapUs, p.CNMMayRaise, p.CNMDupUs, c.gap, c.raise)
			}
		}
	}
	for _, exp := range []string{"e0", "e3"} {
		if slices.Contains(readingIDs(lookup(t, exp)), "cnm-switch-gap") {
			t.Errorf("%s declares the switch-gap reading", exp)
		}
	}
}

// E2's burst starts after the long flows converged, as E0's (the text
// prints no time; §3.1's premise); the start before issue 16 (10 ms, when
// DCQCN's long flows run at about half the fair rate) is a reading.
func TestE2BurstAfterConvergence(t *testing.T) {
	r := newResolver(t)
	e := lookup(t, "e2")
	for _, spec := range e.Runs(experiment.ScalePaper) {
		if got := spec.Patch["workload"].(map[string]any)["long_short"].(map[string]any)["short_start_ns"]; got != 40e6 {
			t.Fatalf("%s: short_start_ns %v, want 40e6 (E0's start)", spec.Key, got)
		}
	}
	s := r.resolve(e, reading(t, e, "start-10ms"), "size_kb=64 cc=dcqcn seed=2").Scenario
	if got := s.Workload.LongShort.ShortStartNs; got != 10e6 {
		t.Errorf("start-10ms: short_start_ns %v, want 10e6", got)
	}
}

// Runs identical under two readings or experiments are one run (by hash):
// E4's dynamic and T = 3 runs are E3's DCON web-search runs; the readings
// that only change E4's fixed buffer size share every dynamic run with the
// primary; E3's testbed-pfc reading is the primary's runs.
func TestRunsShared(t *testing.T) {
	r := newResolver(t)
	e3, e4 := lookup(t, "e3"), lookup(t, "e4")
	h := func(e *experiment.Experiment, rd, key string) string {
		return r.resolve(e, reading(t, e, rd), key).Hash
	}
	e3dcon := h(e3, "perport", "workload=websearch load=0.6 cc=dcon seed=2")
	for _, c := range []struct {
		e       *experiment.Experiment
		rd, key string
	}{
		{e4, "perport", "q_cnm=dynamic load=0.6 seed=2"}, {e4, "perport", "window_rtts=3 load=0.6 seed=2"},
		{e4, "testbed-pfc", "q_cnm=dynamic load=0.6 seed=2"}, {e3, "testbed-pfc", "workload=websearch load=0.6 cc=dcon seed=2"},
	} {
		if got := h(c.e, c.rd, c.key); got != e3dcon {
			t.Errorf("%s/%s %s is not E3's DCON run", c.e.ID, c.rd, c.key)
		}
	}
	if h(e4, "testbed-pfc", "q_cnm=40% load=0.6 seed=1") == h(e4, "perport", "q_cnm=40% load=0.6 seed=1") {
		t.Error("E4's 40 % run is the same under perport and testbed-pfc")
	}
	p := paramsMap(r.resolve(e4, reading(t, e4, "perport"), "q_cnm=60% load=0.6 seed=1").Scenario.ParamsOf("dcon"))
	if p["q_cnm_fraction_of_kb"] != 687.5 || p["q_cnm_pfc_fraction"] != 0.6 || p["q_ecn_kb"] != 200 {
		t.Errorf("E4 perport 60 %%: B %v, fraction %v, Q_ECN %v", p["q_cnm_fraction_of_kb"], p["q_cnm_pfc_fraction"], p["q_ecn_kb"])
	}
}

// Issue 16 §6: at quick scale the setup texts describe the quick run.
func TestSetupAtScale(t *testing.T) {
	for _, c := range []struct {
		exp     string
		sc      experiment.Scale
		want    []string
		notWant []string
	}{
		{"e0", experiment.ScaleQuick, []string{"from 2 ms to 3 ms", "stops at 5 ms", "5 flows of 64 KB", "1 ms / 5 = 200.0 µs", "does not meet the paper's premise"}, []string{"from 40 ms to 48 ms"}},
		{"e0", experiment.ScalePaper, []string{"from 40 ms to 48 ms", "stops at 80 ms", "35 flows of 64 KB", "before the burst 35 ms–40 ms"}, nil},
		{"e2", experiment.ScaleQuick, []string{"2 + 14 × 4 = 58 flows", "10 MB", "at 2 ms"}, []string{"422"}},
		{"e2", experiment.ScalePaper, []string{"2 + 14 × 30 = 422 flows", "200 MB", "at 40 ms", "at 10 ms"}, nil},
		{"e3", experiment.ScaleQuick, []string{"2 spines, 3 leaves, 4 servers per leaf (12 servers)", "[0.4 0.8]", "about 150 flows"}, []string{"240"}},
		{"e4", experiment.ScaleQuick, []string{"[0.4 0.8]", "12 servers"}, nil},
	} {
		e := lookup(t, c.exp)
		if e.SetupAt == nil {
			t.Fatalf("%s has one setup text for every scale", c.exp)
		}
		text := e.SetupAt(c.sc)
		for _, w := range c.want {
			if !strings.Contains(text, w) {
				t.Errorf("%s at %s: no %q in the setup", c.exp, c.sc, w)
			}
		}
		for _, w := range c.notWant {
			if strings.Contains(text, w) {
				t.Errorf("%s at %s: %q in the setup", c.exp, c.sc, w)
			}
		}
	}
}

// Every experiment of the paper at quick scale: all runs succeed, every
// claim has a row under every reading (the PAUSE-frame claims included)
// and can fail, the report renders.
func TestQuickReproduction(t *testing.T) {
	dir, rows := exptest.QuickReproduce(t, "dcon")
	exptest.Files(t, dir, "tables/e0_burst.csv", "tables/e2_interval.csv", "tables/e3_websearch-avg.csv", "tables/e4_q_cnm.csv",
		"plots/e1_dcon-queues.svg", "plots/e0_dcqcn-queues.png", "plots/e3_datamining-p99.svg", "plots/e4_window_rtts.png")
	got := map[string]bool{}
	for _, r := range rows[1:] {
		got[r[1]+"/"+r[2]+"/"+r[3]] = true
	}
	for _, k := range []string{"e1/cnm-sender/no-pause-l2-s1", "e1/cnm-switch-gap/no-pause-l2-s1", "e1/cnm-switch-gap/no-hol", "e1/cnm-switch-gap/no-pause-plotted",
		"e3/perport/fewest-pauses", "e3/pfc-q100/fewest-pauses", "e3/testbed-pfc/fewest-pauses", "e2/start-10ms/vs-dcqcn-20us", "e4/cnm-switch-gap/t3-best"} {
		if !got[k] {
			t.Errorf("claims.csv has no row %s", k)
		}
	}
	htmlcheck.Check(t, filepath.Join(dir, "report.html"), []string{"e3: Large-scale leaf-spine", "Fig. 7 — average FCT by interval"})
}
