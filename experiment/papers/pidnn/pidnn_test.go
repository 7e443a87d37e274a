package pidnn

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/experiment/exptest"
	"github.com/ccsim/ccsim/report/htmlcheck"
)

// resolve resolves spec under reading r (its patch merged last, as the
// machinery does) in a store under a temporary directory.
func resolve(t *testing.T, st *experiment.Store, spec experiment.RunSpec, r experiment.Reading, sc experiment.Scale) *experiment.Resolved {
	t.Helper()
	if r.Patch != nil {
		spec.Patch = experiment.Merge(spec.Patch, r.Patch(sc))
	}
	res, err := st.Resolve(spec)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func store(t *testing.T) *experiment.Store {
	t.Helper()
	p, err := experiment.Lookup("pidnn")
	if err != nil {
		t.Fatal(err)
	}
	st, err := experiment.OpenStore(t.TempDir(), p)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func primary(rs []experiment.Reading) []string {
	var ids []string
	for _, r := range rs {
		if r.Primary {
			ids = append(ids, r.ID)
		}
	}
	return ids
}

// Runs shared between E1's experiments have equal specs (one content hash,
// one run), and the quick scale divides every flow by 10: pid and pidnn at
// 5, 6, 7 µs and the three baselines.
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
	if len(specs) != 7 {
		t.Errorf("%d distinct E1 runs, want 7", len(specs))
	}
}

// E1's readings (issue 16, lead's decision 1): the trained gains primary,
// the paper's gains a reading that patches pid and pidnn only, so that the
// baselines' resolved runs (hence their hashes) are the same under both.
func TestE1Readings(t *testing.T) {
	st := store(t)
	for _, e := range []*experiment.Experiment{e1b(), e1cd(), e1e(), e1f()} {
		rs := e.Readings
		if len(rs) != 2 || strings.Join(primary(rs), ",") != "trained" || rs[1].ID != "paper-gains" {
			t.Fatalf("%s: readings %+v", e.ID, rs)
		}
		for _, spec := range e.Runs(experiment.ScalePaper) {
			a, b := resolve(t, st, spec, rs[0], experiment.ScalePaper), resolve(t, st, spec, rs[1], experiment.ScalePaper)
			g := b.Scenario.ParamsOf(spec.CC)
			switch spec.CC {
			case "pid", "pidnn":
				if a.Hash == b.Hash || !strings.Contains(string(b.YAML), "gains: paper") || !strings.Contains(string(a.YAML), "gains: trained") {
					t.Errorf("%s %s: the readings' runs do not differ in the gains", e.ID, spec.Key)
				}
			default:
				if a.Hash != b.Hash || !bytes.Equal(a.YAML, b.YAML) {
					t.Errorf("%s %s (%T): the baseline differs between the readings", e.ID, spec.Key, g)
				}
			}
		}
	}
}

// E2's readings (issue 16 §5): PIDNN's start at line rate primary (§4.4.2
// adopts the HPCC paper's design), 10 Gb/s a reading; the patch sets
// rate_init_gbps 100 for the three PIDNN variants at both scales, the
// baselines' resolved runs are the same under both readings, and pidnn's
// differ only in the start rate.
func TestE2Readings(t *testing.T) {
	rs := e2().Readings
	if len(rs) != 2 || strings.Join(primary(rs), ",") != "start-line" || rs[1].ID != "start-10g" || rs[1].Patch != nil {
		t.Fatalf("readings %+v", rs)
	}
	for _, sc := range []experiment.Scale{experiment.ScalePaper, experiment.ScaleQuick} {
		params := rs[0].Patch(sc)["params"].(map[string]any)
		for _, c := range []string{"pidnn", "pidnn+rttch", "pidnn+rttch+win"} {
			if v := params[c].(map[string]any)["rate_init_gbps"]; v != 100 {
				t.Errorf("%s: %s rate_init_gbps %v", sc, c, v)
			}
		}
	}
	st := store(t)
	for _, spec := range e2().Runs(experiment.ScaleQuick) {
		a, b := resolve(t, st, spec, rs[0], experiment.ScaleQuick), resolve(t, st, spec, rs[1], experiment.ScaleQuick)
		if !strings.HasPrefix(spec.CC, "pidnn") {
			if a.Hash != b.Hash {
				t.Errorf("%s: the baseline differs between the readings", spec.Key)
			}
			continue
		}
		if a.Hash == b.Hash {
			t.Errorf("%s: same run under both readings", spec.Key)
		}
		if got := strings.Replace(string(a.YAML), "rate_init_gbps: 100", "rate_init_gbps: 10", 1); got != string(b.YAML) {
			t.Errorf("%s: the readings differ in more than the start rate", spec.Key)
		}
	}
	// seeds: 3 at paper scale (the workload is random), 1 at quick scale
	if n := len(e2().Runs(experiment.ScalePaper)); n != 7*3 {
		t.Errorf("%d paper-scale runs, want 21", n)
	}
}

// The consistency checks derive the paper's printed constants from each
// reading's setup at paper scale; mutated setups contradict them.
func TestChecks(t *testing.T) {
	st := store(t)
	derive := func(e *experiment.Experiment, r experiment.Reading, patch map[string]any) map[string]float64 {
		t.Helper()
		spec := e.Runs(experiment.ScalePaper)[0]
		spec.Patch = experiment.Merge(spec.Patch, patch)
		s := resolve(t, st, spec, r, experiment.ScalePaper).Scenario
		out := map[string]float64{}
		for _, c := range e.Checks {
			v, err := c.Derive(s)
			if err != nil {
				t.Fatalf("%s/%s: %v", e.ID, c.ID, err)
			}
			out[c.ID] = v
		}
		return out
	}
	ok := func(e *experiment.Experiment, got map[string]float64) map[string]bool {
		out := map[string]bool{}
		for _, c := range e.Checks {
			v := got[c.ID]
			if c.Bounds {
				out[c.ID] = v >= c.Lo && v <= c.Hi
				continue
			}
			tol := experiment.Tolerance{Abs: 0.5}
			if c.Tol != nil {
				tol = *c.Tol
			}
			out[c.ID] = v-c.Paper <= tol.Of(c.Paper) && c.Paper-v <= tol.Of(c.Paper)
		}
		return out
	}
	want := map[string]map[string]float64{
		"e1cd": {"incast-bytes": 635e6, "bottleneck": 100, "empty-queue-rtt": 4.16, "pidnn-init-rate": 10, "rate-min": 1, "rate-max": 100},
		"e1f":  {"timely-gradient-unit": 20},
		"e2":   {"incasts": 320 * 100e9 * 0.02 * 0.01 / (8 * 60 * 500_000), "window": 10, "hosts": 320, "host-link": 100, "rtt-target": 5},
	}
	for _, e := range []*experiment.Experiment{e1cd(), e1f(), e2()} {
		if len(e.Readings) == 0 || len(e.Checks) == 0 {
			t.Fatalf("%s: %d readings, %d checks", e.ID, len(e.Readings), len(e.Checks))
		}
		for _, r := range e.Readings {
			got := derive(e, r, nil)
			for id, w := range want[e.ID] {
				if d := got[id] - w; d > 1e-9*max(1, w) || d < -1e-9*max(1, w) {
					t.Errorf("%s (%s): %s = %v, want %v", e.ID, r.ID, id, got[id], w)
				}
			}
			for id, fine := range ok(e, got) {
				if !fine {
					t.Errorf("%s (%s): check %s fails: %v", e.ID, r.ID, id, got[id])
				}
			}
		}
	}
	// the FB Hadoop mean size 120,420.75 B gives ≈ 99,650 flows
	if f := derive(e2(), e2().Readings[0], nil)["flows"]; f < 99_600 || f > 99_700 {
		t.Errorf("expected flows %v, want ≈ 99,650", f)
	}
	// mutated setups: MiB sizes, 2-µs links, a 50-Gb/s receiver, a 4 % incast load
	mib := make([]any, 20)
	for i, b := range incastSizes(1) {
		mib[i] = b.(int64) * 1048576 / 1_000_000
	}
	for _, m := range []struct {
		e     *experiment.Experiment
		patch map[string]any
		check string
	}{
		{e1cd(), map[string]any{"workload": map[string]any{"incast": map[string]any{"sizes_bytes": mib}}}, "incast-bytes"},
		{e1cd(), map[string]any{"topology": map[string]any{"link_delay_ns": 2000}}, "empty-queue-rtt"},
		{e1cd(), map[string]any{"topology": map[string]any{"host_links": []any{map[string]any{"hosts": []any{20}, "gbps": 50}}}}, "bottleneck"},
		{e2(), map[string]any{"workload": map[string]any{"incast_bursts": map[string]any{"load": 0.04}}}, "incasts"},
	} {
		if ok(m.e, derive(m.e, m.e.Readings[0], m.patch))[m.check] {
			t.Errorf("%s: check %s holds on a mutated setup %v", m.e.ID, m.check, m.patch)
		}
	}
}

// Every experiment of the paper at quick scale: all runs succeed, every
// claim has a row with a value under every reading and can fail (the flip
// check), the report renders.
func TestQuickReproduction(t *testing.T) {
	if testing.Short() {
		t.Skip("quick reproduction: 28 runs")
	}
	dir, rows := exptest.QuickReproduce(t, "pidnn")
	exptest.Files(t, dir, "tables/e1b_table1.csv", "tables/e1b_gains.csv", "tables/e1cd_table45.csv", "tables/e1e_prediction.csv", "tables/e1f_table6.csv",
		"tables/e2_table8.csv", "tables/e2_censored.csv", "tables/e2_cost.csv", "plots/e1b_predicted-rtt.svg", "plots/e1b_mape.svg")
	htmlcheck.Check(t, filepath.Join(dir, "report.html"), []string{"e2: Random flows with incasts", "Table 8", "start-line", "paper-gains"})
	// no claim is n/a at quick scale except for a reason in its note
	for _, r := range rows[1:] {
		if r[8] != "number" && r[11] == "n/a" {
			t.Errorf("%s/%s (%s): n/a", r[1], r[3], r[2])
		}
	}
}
