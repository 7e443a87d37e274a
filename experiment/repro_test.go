package experiment_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/experiment/exptest"
	"github.com/ccsim/ccsim/report"
	"github.com/ccsim/ccsim/scenario"
)

const tinyScenario = `
name: tiny
topology: {kind: star, hosts: 3}
workload:
  incast: {senders: [0, 1], receiver: 2, sizes_bytes: [20000]}
`

// tinyPaper is a paper with one experiment of a 2 × 2 sweep (two flow
// sizes × two algorithms) over a small incast, whose analysis reports
// the mean FCT of each run and one ordering claim.
func tinyPaper(files fstest.MapFS) *experiment.Paper {
	if files == nil {
		files = fstest.MapFS{"tiny.yaml": {Data: []byte(tinyScenario)}}
	}
	sizes := experiment.Axis{Name: "size"}
	for _, s := range []int{20000, 40000} {
		sizes.Values = append(sizes.Values, experiment.Value{Label: fmt.Sprint(s),
			Patch: map[string]any{"workload": map[string]any{"incast": map[string]any{"sizes_bytes": []any{s}}}}})
	}
	e := &experiment.Experiment{
		ID: "ex", Title: "tiny", Setup: "two senders",
		Claims: []experiment.Claim{
			{ID: "bigger-slower", Description: "larger flows take longer", PaperValue: "yes", Kind: experiment.Direction, Rel: experiment.Less},
			{ID: "fct", Description: "mean FCT of 20 KB under dcqcn", PaperValue: "1", Unit: "µs", Kind: experiment.Number},
			{ID: "never", Description: "a claim the analysis cannot evaluate", PaperValue: "1", Kind: experiment.Magnitude, Mag: experiment.MagValue, Paper: 1},
		},
		Runs: func(experiment.Scale) []experiment.RunSpec {
			return experiment.Sweep{Base: "tiny.yaml", Axes: []experiment.Axis{sizes}, CC: []string{"dcqcn", "none"}}.Expand()
		},
		Analyze: func(ctx *experiment.Context) (*report.Section, error) {
			sec := &report.Section{}
			t := report.Table{ID: "fct", Title: "mean FCT", Columns: []string{"run", "mean FCT (µs)"}}
			fct := map[string]float64{}
			for _, r := range ctx.Runs() {
				if r.Err != nil {
					t.Rows = append(t.Rows, []string{r.Spec.Key, "failed"})
					continue
				}
				s, err := r.Summary()
				if err != nil {
					return nil, err
				}
				fct[r.Spec.Key] = s.Summary.All.FCTUs.Mean
				t.Rows = append(t.Rows, []string{r.Spec.Key, fmt.Sprint(s.Summary.All.FCTUs.Mean)})
			}
			sec.Tables = append(sec.Tables, t)
			sec.Figures = append(sec.Figures, report.Figure{ID: "f", Title: "fct", XLabel: "size", YLabel: "µs",
				Series: []report.Series{{Label: "dcqcn", X: []float64{20, 40}, Y: []float64{fct["size=20000 cc=dcqcn"], fct["size=40000 cc=dcqcn"]}}}})
			a, b := fct["size=20000 cc=dcqcn"], fct["size=40000 cc=dcqcn"]
			if a > 0 && b > 0 {
				ctx.Measure("bigger-slower", experiment.Measure{Values: []experiment.Sample{{a}, {b}}, Text: fmt.Sprintf("%.1f < %.1f", a, b)})
				ctx.Measure("fct", experiment.Measure{Mag: []experiment.Sample{{a}}, Text: fmt.Sprintf("%.1f", a)})
			}
			return sec, nil
		},
	}
	return &experiment.Paper{ID: "tiny", Number: "999", Title: "Tiny", Files: files, Experiments: []*experiment.Experiment{e}}
}

func TestSweepExpand(t *testing.T) {
	sw := experiment.Sweep{
		Base:  "b.yaml",
		Patch: map[string]any{"stop_ms": 5, "host": map[string]any{"payload_bytes": 500}},
		Axes: []experiment.Axis{
			{Name: "a", Values: []experiment.Value{{"1", map[string]any{"host": map[string]any{"rto_us": 1}}}, {"2", nil}}},
			{Name: "b", Values: []experiment.Value{{"x", map[string]any{"stop_ms": 7}}}},
		},
		CC:      []string{"dcqcn", "hpcc"},
		CCPatch: map[string]map[string]any{"hpcc": {"host": map[string]any{"payload_bytes": 1000}}},
		Seeds:   []uint64{1, 2},
	}
	runs := sw.Expand()
	var keys []string
	for _, r := range runs {
		keys = append(keys, r.Key)
	}
	want := []string{
		"a=1 b=x cc=dcqcn seed=1", "a=1 b=x cc=dcqcn seed=2", "a=1 b=x cc=hpcc seed=1", "a=1 b=x cc=hpcc seed=2",
		"a=2 b=x cc=dcqcn seed=1", "a=2 b=x cc=dcqcn seed=2", "a=2 b=x cc=hpcc seed=1", "a=2 b=x cc=hpcc seed=2",
	}
	if !slices.Equal(keys, want) {
		t.Fatalf("keys\n%q\nwant\n%q", keys, want)
	}
	if got := runs[2].Patch; !reflect.DeepEqual(got, map[string]any{"stop_ms": 7, "host": map[string]any{"payload_bytes": 1000, "rto_us": 1}}) {
		t.Errorf("patch of %s = %v", runs[2].Key, got)
	}
	if got := runs[4].Patch; !reflect.DeepEqual(got, map[string]any{"stop_ms": 7, "host": map[string]any{"payload_bytes": 500}}) {
		t.Errorf("patch of %s = %v", runs[4].Key, got)
	}
	if sw.Patch["stop_ms"] != 5 || len(sw.Patch["host"].(map[string]any)) != 1 {
		t.Errorf("Expand modified the sweep's patch: %v", sw.Patch)
	}
	if runs[3].Seed != 2 || runs[3].CC != "hpcc" || runs[3].Base != "b.yaml" {
		t.Errorf("run 3 = %+v", runs[3])
	}
}

func reproduce(t *testing.T, p *experiment.Paper, out string, reportOnly bool) *experiment.Summary {
	t.Helper()
	sum, err := experiment.Reproduce(p, experiment.Options{Scale: experiment.ScaleQuick, Out: out, Workers: 2, ReportOnly: reportOnly})
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

func TestReproduceResumesAndReports(t *testing.T) {
	out := t.TempDir()
	p := tinyPaper(nil)
	sum := reproduce(t, p, out, false)
	if sum.Runs != 4 || sum.Ran != 4 || sum.Skipped != 0 || len(sum.Failed) != 0 {
		t.Fatalf("first reproduction: %+v", sum)
	}
	rows := exptest.ReadCSV(t, filepath.Join(out, "tiny", "claims.csv"))
	if got := strings.Join(rows[0], ","); got != "paper,experiment,reading,claim,description,paper_value,ccsim_value,unit,kind,statement,magnitude,holds" {
		t.Errorf("claims.csv header %q", got)
	}
	if len(rows) != 4 {
		t.Fatalf("claims.csv has %d rows, want header + 3", len(rows))
	}
	// claim 3, ccsim_value 6, kind 8, statement 9, magnitude 10, holds 11
	if rows[1][3] != "bigger-slower" || rows[1][8] != "direction" || rows[1][9] != "yes" || rows[1][10] != "n/a" || rows[1][11] != "yes" || rows[1][0] != "tiny" || rows[1][1] != "ex" {
		t.Errorf("claim row %v", rows[1])
	}
	if rows[2][3] != "fct" || rows[2][8] != "number" || rows[2][11] != "n/a" || rows[2][6] == "" {
		t.Errorf("a bare number must be n/a with ccsim's value: %v", rows[2])
	}
	if rows[3][3] != "never" || rows[3][11] != "n/a" || rows[3][6] != "" {
		t.Errorf("an unmeasured claim must be n/a without a value: %v", rows[3])
	}
	html, err := os.ReadFile(filepath.Join(out, "tiny", "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<table", "<svg", "bigger-slower", "size=40000 cc=none", "scenario.yaml"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if strings.Contains(string(html), "http://") && strings.Contains(string(html), "<script") {
		t.Errorf("report.html must not load scripts")
	}
	// Every run directory records its inputs and is runnable alone.
	ents, _ := os.ReadDir(filepath.Join(out, "tiny", "runs"))
	if len(ents) != 4 {
		t.Fatalf("%d run directories, want 4", len(ents))
	}
	for _, e := range ents {
		dir := filepath.Join(out, "tiny", "runs", e.Name())
		rec, err := experiment.ReadRecord(dir)
		if err != nil {
			t.Fatal(err)
		}
		if rec.Hash != e.Name() || rec.Version == "" || rec.Seed != 1 {
			t.Errorf("record %+v in %s", rec, e.Name())
		}
		for _, f := range []string{"scenario.yaml", "summary.json", "flows.csv", "flow_stats.csv"} {
			if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
				t.Errorf("%s: %v", e.Name(), err)
			}
		}
	}

	// Resume: nothing runs again; a removed run and only it reruns; a
	// temporary directory left by a crash is not a result.
	if sum := reproduce(t, p, out, false); sum.Ran != 0 || sum.Skipped != 4 {
		t.Fatalf("second reproduction ran %d, skipped %d; want 0, 4", sum.Ran, sum.Skipped)
	}
	os.RemoveAll(filepath.Join(out, "tiny", "runs", ents[1].Name()))
	os.MkdirAll(filepath.Join(out, "tiny", "runs", ".tmp-"+ents[2].Name()+"-crash"), 0o755)
	if sum := reproduce(t, p, out, false); sum.Ran != 1 || sum.Skipped != 3 {
		t.Fatalf("after removing one run: ran %d, skipped %d; want 1, 3", sum.Ran, sum.Skipped)
	}
	if got := exptest.ReadCSV(t, filepath.Join(out, "tiny", "claims.csv")); !reflect.DeepEqual(got, rows) {
		t.Errorf("claims changed after resuming:\n%v\n%v", got, rows)
	}
}

// Two machines each run half of the sweep; copying one's runs into the
// other completes the result tree, and the report is rebuilt from files
// alone without running anything.
func TestReproduceMergeByCopy(t *testing.T) {
	p := tinyPaper(nil)
	full := t.TempDir()
	reproduce(t, p, full, false)
	want := exptest.ReadCSV(t, filepath.Join(full, "tiny", "claims.csv"))

	a, b := t.TempDir(), t.TempDir()
	half := func(keep func(string) bool) *experiment.Paper {
		q := tinyPaper(nil)
		e := *q.Experiments[0]
		runs := e.Runs
		e.Runs = func(s experiment.Scale) []experiment.RunSpec {
			var out []experiment.RunSpec
			for _, r := range runs(s) {
				if keep(r.CC) {
					out = append(out, r)
				}
			}
			return out
		}
		q.Experiments = []*experiment.Experiment{&e}
		return q
	}
	reproduce(t, half(func(cc string) bool { return cc == "dcqcn" }), a, false)
	reproduce(t, half(func(cc string) bool { return cc == "none" }), b, false)
	ents, _ := os.ReadDir(filepath.Join(b, "tiny", "runs"))
	for _, e := range ents {
		if err := os.Rename(filepath.Join(b, "tiny", "runs", e.Name()), filepath.Join(a, "tiny", "runs", e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	sum := reproduce(t, p, a, true)
	if sum.Ran != 0 || sum.Skipped != 4 {
		t.Fatalf("report-only after merge: ran %d, skipped %d", sum.Ran, sum.Skipped)
	}
	if got := exptest.ReadCSV(t, filepath.Join(a, "tiny", "claims.csv")); !reflect.DeepEqual(got, want) {
		t.Errorf("merged claims\n%v\nwant\n%v", got, want)
	}
}

// A run that cannot be built fails alone: the others are stored, the
// failure is reported and written to failures.txt.
func TestReproduceIsolatesFailures(t *testing.T) {
	p := tinyPaper(nil)
	e := *p.Experiments[0]
	runs := e.Runs
	e.Runs = func(s experiment.Scale) []experiment.RunSpec {
		rs := runs(s)
		rs = append(rs, experiment.RunSpec{Key: "bad", Base: "tiny.yaml", CC: "dcqcn",
			Patch: map[string]any{"params": map[string]any{"dcqcn": map[string]any{"g": 7}}}},
			experiment.RunSpec{Key: "missing", Base: "nope.yaml", CC: "dcqcn"})
		return rs
	}
	p.Experiments = []*experiment.Experiment{&e}
	out := t.TempDir()
	sum, err := experiment.Reproduce(p, experiment.Options{Scale: experiment.ScaleQuick, Out: out})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Ran != 4 || len(sum.Failed) != 2 {
		t.Fatalf("ran %d, failed %v", sum.Ran, sum.Failed)
	}
	msg := fmt.Sprint(sum.Failed)
	for _, want := range []string{"bad", "params.dcqcn.g = 7 out of range", "missing", "nope.yaml"} {
		if !strings.Contains(msg, want) {
			t.Errorf("failures %q lack %q", msg, want)
		}
	}
	b, err := os.ReadFile(filepath.Join(out, "tiny", "failures.txt"))
	if err != nil || !strings.Contains(string(b), "params.dcqcn.g") {
		t.Errorf("failures.txt: %v %q", err, b)
	}
}

// The hash covers the resolved scenario, the algorithm's parameters and
// the contents of input files: any change gives a new run directory.
func TestResolveHash(t *testing.T) {
	cdf := "0 0\n10000 100\n"
	files := fstest.MapFS{
		"tiny.yaml": {Data: []byte(tinyScenario)},
		"p.yaml": {Data: []byte(`
topology: {kind: star, hosts: 3}
workload:
  poisson: {cdf: my.cdf, load: 0.1, duration_ms: 0.01}
`)},
		"my.cdf": {Data: []byte(cdf)},
	}
	p := tinyPaper(files)
	out := t.TempDir()
	st, err := experiment.OpenStore(out, p)
	if err != nil {
		t.Fatal(err)
	}
	hash := func(st *experiment.Store, spec experiment.RunSpec) string {
		r, err := st.Resolve(spec)
		if err != nil {
			t.Fatal(err)
		}
		return r.Hash
	}
	base := experiment.RunSpec{Key: "k", Base: "tiny.yaml", CC: "dcqcn"}
	h0 := hash(st, base)
	if hash(st, base) != h0 {
		t.Fatal("hash not stable")
	}
	explicit := base
	explicit.Patch = map[string]any{"params": map[string]any{"dcqcn": map[string]any{"g": 1.0 / 256}}, "seed": 1}
	if hash(st, explicit) != h0 {
		t.Error("writing a default explicitly changed the hash (the resolved scenario should be the same)")
	}
	for name, spec := range map[string]experiment.RunSpec{
		"param": {Key: "k", Base: "tiny.yaml", CC: "dcqcn", Patch: map[string]any{"params": map[string]any{"dcqcn": map[string]any{"g": 0.5}}}},
		"seed":  {Key: "k", Base: "tiny.yaml", CC: "dcqcn", Seed: 9},
		"cc":    {Key: "k", Base: "tiny.yaml", CC: "none"},
		"size":  {Key: "k", Base: "tiny.yaml", CC: "dcqcn", Patch: map[string]any{"workload": map[string]any{"incast": map[string]any{"sizes_bytes": []any{1}}}}},
	} {
		if hash(st, spec) == h0 {
			t.Errorf("changing the %s kept the hash", name)
		}
	}
	ph := hash(st, experiment.RunSpec{Key: "p", Base: "p.yaml", CC: "dcqcn"})
	files["my.cdf"] = &fstest.MapFile{Data: []byte("0 0\n20000 100\n")}
	st2, err := experiment.OpenStore(t.TempDir(), tinyPaper(files))
	if err != nil {
		t.Fatal(err)
	}
	if hash(st2, experiment.RunSpec{Key: "p", Base: "p.yaml", CC: "dcqcn"}) == ph {
		t.Error("changing an input file's contents kept the hash")
	}
}

// readingsPaper has one experiment with two readings of its MTU (one
// contradicting the paper's printed payload), two seeds per run and a
// direction claim measured over the seeds.
func readingsPaper() *experiment.Paper {
	files := fstest.MapFS{"tiny.yaml": {Data: []byte(tinyScenario)}}
	mtu := func(b int) func(experiment.Scale) map[string]any {
		return func(experiment.Scale) map[string]any {
			return map[string]any{"host": map[string]any{"payload_bytes": b}}
		}
	}
	e := &experiment.Experiment{
		ID: "ex", Title: "readings", Setup: "paper scale text",
		SetupAt: func(sc experiment.Scale) string { return "setup at " + string(sc) },
		Claims: []experiment.Claim{
			{ID: "cc-faster", Description: "dcqcn's mean FCT is below none's", PaperValue: "yes", Kind: experiment.Direction, Rel: experiment.Less},
			{ID: "fct-size", Description: "dcqcn's mean FCT is 30 µs", PaperValue: "30", Unit: "µs", Kind: experiment.Magnitude, Mag: experiment.MagValue, Paper: 30},
		},
		Readings: []experiment.Reading{
			{ID: "mtu1000", Title: "1000-B payload", Why: "the paper prints 1000 B", Primary: true, Patch: mtu(1000)},
			{ID: "mtu500", Title: "500-B payload", Why: "a sensitivity reading", Patch: mtu(500), OnlySeeds: []uint64{2}},
		},
		Checks: []experiment.Check{{ID: "payload", Description: "payload per packet", Unit: "B", Paper: 1000,
			Derive: func(s *scenario.Scenario) (float64, error) { return float64(s.Host.PayloadBytes), nil }},
			{ID: "hosts", Description: "hosts", Bounds: true, Lo: 3, Hi: math.Inf(1),
				Derive: func(s *scenario.Scenario) (float64, error) { return float64(s.Topology.Hosts), nil }}},
		Runs: func(experiment.Scale) []experiment.RunSpec {
			return experiment.Sweep{Base: "tiny.yaml", CC: []string{"dcqcn", "none"}, Seeds: []uint64{1, 2}}.Expand()
		},
		Analyze: func(ctx *experiment.Context) (*report.Section, error) {
			fct := func(r *experiment.RunRef) (float64, error) {
				s, err := r.Summary()
				if err != nil {
					return 0, err
				}
				return s.Summary.All.FCTUs.Mean, nil
			}
			a, err := ctx.Sample("cc=dcqcn", fct)
			if err != nil {
				return nil, err
			}
			b, err := ctx.Sample("cc=none", fct)
			if err != nil {
				return nil, err
			}
			ctx.Measure("cc-faster", experiment.Measure{Values: []experiment.Sample{a, b}, Labels: []string{"dcqcn", "none"}})
			ctx.Measure("fct-size", experiment.Measure{Mag: []experiment.Sample{a}})
			return &report.Section{Notes: []string{"reading " + ctx.Reading.ID}, Tables: []report.Table{{ID: "t", Title: "t", Columns: []string{"x"}}}}, nil
		},
	}
	return &experiment.Paper{ID: "readings", Number: "998", Title: "Readings", Files: files, Experiments: []*experiment.Experiment{e}}
}

// Every reading runs and is analysed; claims.csv has a row per claim and
// reading; the reading whose setup contradicts the printed payload is
// marked inconsistent; seeds are measured as samples; the report shows
// the setup at the run's scale.
func TestReadingsChecksSeeds(t *testing.T) {
	out := t.TempDir()
	p := readingsPaper()
	if _, err := experiment.Reproduce(p, experiment.Options{Scale: experiment.ScaleQuick, Out: out, ReportOnly: true}); err == nil ||
		!strings.Contains(err.Error(), "no finished run") {
		t.Errorf("report-only without results: error %v, want 'no finished run'", err)
	}
	sum := reproduce(t, p, out, false)
	if sum.Runs != 6 || len(sum.Failed) != 0 {
		t.Fatalf("runs %d (want 2 algorithms × 2 seeds for the primary reading + 2 algorithms × seed 2 for mtu500 = 6), failed %v", sum.Runs, sum.Failed)
	}
	rows := exptest.ReadCSV(t, filepath.Join(out, "readings", "claims.csv"))
	var got []string
	for _, r := range rows[1:] {
		got = append(got, r[2]+"/"+r[3]+"/"+r[8])
	}
	want := []string{"mtu1000/cc-faster/direction", "mtu500/cc-faster/direction", "mtu1000/fct-size/magnitude", "mtu500/fct-size/magnitude"}
	if !slices.Equal(got, want) {
		t.Errorf("claim rows %q, want %q", got, want)
	}
	for _, r := range rows[1:] {
		if r[11] == "" || r[6] == "" {
			t.Errorf("row without a verdict or value: %v", r)
		}
	}
	html, err := os.ReadFile(filepath.Join(out, "readings", "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"Claims by reading", "mtu500", "inconsistent", "setup at quick", "hosts: paper ≥ 3, setup 3", "Quick scale", "[reading mtu500] reading mtu500", "reading=mtu500 cc=dcqcn seed=2"} {
		if !strings.Contains(string(html), w) {
			t.Errorf("report.html lacks %q", w)
		}
	}
	if strings.Contains(string(html), "paper scale text") {
		t.Errorf("the report shows the paper-scale setup at quick scale")
	}
	if _, err := os.Stat(filepath.Join(out, "readings", "tables", "ex_t_mtu500.csv")); err != nil {
		t.Errorf("the other reading's table: %v", err)
	}
}
