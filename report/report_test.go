package report

import (
	"bytes"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/metrics"
	"github.com/ccsim/ccsim/scenario/result"
	"github.com/ccsim/ccsim/sim"
	"gonum.org/v1/plot"
)

// synthRun writes a synthetic run of algorithm cc into dir/cc with
// nflows WebSearch-like flows (log-uniform sizes 1 KB..30 MB, slowdown
// growing with size, scaled by penalty) and, when queue is set, queue
// samples of two ports (node 10 ports 0 and 1).
func synthRun(t *testing.T, dir, cc string, seed uint64, nflows int, penalty float64, queue bool) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	ns := sim.Nanosecond
	r := &result.Result{Scenario: "synthetic", CC: cc, Seed: seed}
	for i := 0; i < nflows; i++ {
		size := int64(math.Pow(10, 3+rng.Float64()*4.5))
		ideal := 2000*ns + sim.Time(float64(size)*8/100e9*float64(sim.Second))
		sd := 1 + penalty*math.Log10(float64(size))/7*(0.5+rng.Float64())
		start := sim.Time(i) * 1000 * ns
		rec := metrics.FlowRecord{ID: i, Src: i % 8, Dst: 8 + i%2, SizeBytes: size, Start: start, IdealFCT: ideal, Done: i%50 != 49}
		if rec.Done {
			rec.Finish = start + sim.Time(float64(ideal)*sd)
		}
		r.Flows = append(r.Flows, rec)
	}
	// the run ends after the last start; its unfinished flows are censored there
	r.SimEndNs = float64(nflows) * 1000
	r.Summary = metrics.SummarizeFlows(r.Flows, r.End())
	if queue {
		r.QueuePorts = []result.Port{{Node: 10, Port: 0}, {Node: 10, Port: 1}}
		for k := 0; k < 500; k++ {
			for p := range 2 {
				b := int64(0)
				if rng.Float64() < 0.6 {
					b = int64(rng.ExpFloat64() * 20000 * penalty * float64(p+1))
				}
				r.Queue = append(r.Queue, result.QueueSample{At: sim.Time(k) * sim.Microsecond, Port: p, Bytes: b})
			}
		}
	}
	out := filepath.Join(dir, cc)
	if err := r.Write(out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestLoadRun(t *testing.T) {
	dir := t.TempDir()
	rd := synthRun(t, dir, "dcqcn", 1, 100, 1, true)
	r, err := LoadRun(rd)
	if err != nil {
		t.Fatal(err)
	}
	if r.Label != "dcqcn" || r.Dir != rd || r.Summary.Scenario != "synthetic" || r.Summary.Seed != 1 {
		t.Errorf("run = %+v", r.Summary)
	}
	if len(r.Flows) != 100 || r.Summary.Summary.Flows != 100 || r.Summary.Summary.Finished != 98 {
		t.Errorf("flows = %d, summary %+v", len(r.Flows), r.Summary.Summary)
	}
	// The loaded flows summarize to the stored summary.
	if got := metrics.SummarizeFlows(r.Flows, r.End()); got.All.Slowdown.P99 != r.Summary.Summary.All.Slowdown.P99 || got.Small.N != r.Summary.Summary.Small.N {
		t.Errorf("summary of loaded flows %+v != stored %+v", got.All, r.Summary.Summary.All)
	}
	if len(r.Queue) != 1000 || r.Queue[1].Node != 10 || r.Queue[1].Port != 1 || r.Queue[2].At != sim.Microsecond {
		t.Errorf("queue = %d samples, %+v", len(r.Queue), r.Queue[:3])
	}
	q := r.QueueCDFs(nil)
	if !reflect.DeepEqual(q.Labels(), []string{AllPorts}) || q.Count(AllPorts) != 1000 {
		t.Errorf("QueueCDFs(nil) labels %q count %d", q.Labels(), q.Count(AllPorts))
	}
	q = r.QueueCDFs(func(node, port int) string {
		if port == 0 {
			return "host-facing ToR ports"
		}
		return ""
	})
	if !reflect.DeepEqual(q.Labels(), []string{"host-facing ToR ports"}) || q.Count("host-facing ToR ports") != 500 {
		t.Errorf("classified labels %q", q.Labels())
	}

	// Without queue.csv: Queue is nil and QueueCDFs nil.
	rd2 := synthRun(t, dir, "hpcc", 2, 10, 1, false)
	r2, err := LoadRun(rd2)
	if err != nil || r2.Queue != nil || r2.QueueCDFs(nil) != nil {
		t.Errorf("run without queue: %v, %v", err, r2)
	}
}

func TestLoadRunErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := LoadRun(dir); err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "summary.json")) {
		t.Errorf("missing summary: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "summary.json"), []byte(`{"cc": "x"}`), 0o644)
	if _, err := LoadRun(dir); err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "flows.csv")) {
		t.Errorf("missing flows: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "flows.csv"), []byte("bad\n"), 0o644)
	if _, err := LoadRun(dir); err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "flows.csv")+": flows csv line 1") {
		t.Errorf("bad flows: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "flows.csv"), []byte(metrics.FlowsCSVHeader+"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "queue.csv"), []byte(QueueCSVHeader+"\n1,2,3\n"), 0o644)
	if _, err := LoadRun(dir); err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "queue.csv")+": queue csv line 2: want 4 fields") {
		t.Errorf("bad queue: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "summary.json"), []byte(`{"cc": `), 0o644)
	if _, err := LoadRun(dir); err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "summary.json")) {
		t.Errorf("bad summary: %v", err)
	}
	// A directory with neither summary.json nor run subdirectories.
	empty := t.TempDir()
	os.Mkdir(filepath.Join(empty, "sub"), 0o755)
	if _, err := LoadRuns(empty); err == nil || !strings.Contains(err.Error(), "not a run directory") {
		t.Errorf("LoadRuns(empty) = %v", err)
	}
	if _, err := LoadRuns(filepath.Join(empty, "nope")); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("LoadRuns(missing) = %v", err)
	}
}

func TestReadQueueCSVErrors(t *testing.T) {
	h := QueueCSVHeader + "\n"
	for in, want := range map[string]string{
		"":                  "empty file",
		"t,n,p,b\n":         "line 1: header",
		h + "x,1,2,3\n":     "line 2: time_ns",
		h + "1,a,2,3\n":     `node "a"`,
		h + "1,1,b,3\n":     `port "b"`,
		h + "1,1,2,1.5\n":   `bytes "1.5"`,
		h + "\n1.5,1,2,3\n": "", // valid
	} {
		got, err := ReadQueueCSV(strings.NewReader(in))
		if want == "" {
			if err != nil || len(got) != 1 || got[0] != (QueueSample{At: 1500, Node: 1, Port: 2, Bytes: 3}) {
				t.Errorf("ReadQueueCSV(%q) = %+v, %v", in, got, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ReadQueueCSV(%q) error = %v, want %q", in, err, want)
		}
	}
}

func TestLabels(t *testing.T) {
	mk := func(cc, scen, dir string) *Run {
		return &Run{Label: cc, Dir: dir, Summary: result.Result{CC: cc, Scenario: scen}}
	}
	runs := []*Run{mk("dcqcn", "a", "ra/dcqcn"), mk("hpcc", "a", "ra/hpcc"), mk("dcqcn", "b", "rb/dcqcn"),
		mk("x", "s", "d1/x"), mk("x", "s", "d2/x"), mk("y", "s", "d/y"), mk("y", "s", "d/y")}
	want := []string{"dcqcn (a)", "hpcc", "dcqcn (b)", "x (d1/x)", "x (d2/x)", "y (d/y)", "y (d/y) #2"}
	if got := Labels(runs); !reflect.DeepEqual(got, want) {
		t.Errorf("Labels = %q, want %q", got, want)
	}
	if got := fileLabels([]string{"dcqcn (a)", "dcqcn_(a)", "µ"}); !reflect.DeepEqual(got, []string{"dcqcn__a", "dcqcn__a_2", "run"}) {
		t.Errorf("fileLabels = %q", got)
	}
}

// checkImages checks that every file exists and is a valid PNG or SVG.
func checkImages(t *testing.T, files []string) {
	t.Helper()
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if len(b) == 0 {
			t.Errorf("%s: empty", f)
			continue
		}
		switch filepath.Ext(f) {
		case ".png":
			img, err := png.Decode(bytes.NewReader(b))
			if err != nil {
				t.Errorf("%s: not a PNG: %v", f, err)
				continue
			}
			if r := img.Bounds(); r.Dx() != 1200 || r.Dy() != 750 {
				t.Errorf("%s: size %v, want 1200x750", f, r)
			}
		case ".svg":
			if !bytes.HasPrefix(b, []byte("<?xml")) && !bytes.HasPrefix(b, []byte("<svg")) {
				t.Errorf("%s: does not start like SVG: %q", f, b[:min(len(b), 40)])
			}
			if !bytes.Contains(b, []byte("</svg>")) {
				t.Errorf("%s: no </svg>", f)
			}
		default:
			t.Errorf("unexpected file %s", f)
		}
	}
}

func TestPlotRuns(t *testing.T) {
	dir := t.TempDir()
	scen := filepath.Join(dir, "results", "synthetic")
	synthRun(t, scen, "dcqcn", 1, 2000, 2, true)
	synthRun(t, scen, "hpcc", 2, 2000, 1, true)
	synthRun(t, scen, "none", 3, 300, 4, false) // no queue.csv
	os.Mkdir(filepath.Join(scen, "not-a-run"), 0o755)

	runs, err := LoadRuns(scen)
	if err != nil {
		t.Fatal(err)
	}
	if got := Labels(runs); !reflect.DeepEqual(got, []string{"dcqcn", "hpcc", "none"}) {
		t.Fatalf("labels = %q", got)
	}
	out := filepath.Join(dir, "plots")
	files, err := PlotRuns(runs, out)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, b := range []string{SlowdownPlot, FCTCDFPlot, QueueCDFPlot} {
		want = append(want, filepath.Join(out, b+".png"), filepath.Join(out, b+".svg"))
	}
	if !reflect.DeepEqual(files, want) {
		t.Errorf("files = %q, want %q", files, want)
	}
	checkImages(t, files)
	svg, _ := os.ReadFile(filepath.Join(out, SlowdownPlot+".svg"))
	for _, s := range []string{"dcqcn p50", "hpcc p99", "none p50", "FCT slowdown", "synthetic", "1MB"} {
		if !bytes.Contains(svg, []byte(s)) {
			t.Errorf("slowdown svg lacks %q", s)
		}
	}
	svg, _ = os.ReadFile(filepath.Join(out, QueueCDFPlot+".svg"))
	if !bytes.Contains(svg, []byte("dcqcn (p99")) || bytes.Contains(svg, []byte("none (p99")) {
		t.Errorf("queue svg legend wrong")
	}

	// Tables next to the plots.
	tabs, err := WriteTables(runs, out, &Options{QueueClass: func(node, port int) string {
		return map[int]string{0: "host-facing ToR ports", 1: "fabric ports"}[port]
	}})
	if err != nil {
		t.Fatal(err)
	}
	wantTabs := []string{"slowdown_dcqcn.txt", "queue_cdf_dcqcn.csv", "queue_stats_dcqcn.csv",
		"slowdown_hpcc.txt", "queue_cdf_hpcc.csv", "queue_stats_hpcc.csv", "slowdown_none.txt"}
	for i := range wantTabs {
		wantTabs[i] = filepath.Join(out, wantTabs[i])
	}
	if !reflect.DeepEqual(tabs, wantTabs) {
		t.Errorf("tables = %q, want %q", tabs, wantTabs)
	}
	b, _ := os.ReadFile(filepath.Join(out, "queue_stats_hpcc.csv"))
	if lines := strings.Split(strings.TrimSpace(string(b)), "\n"); len(lines) != 3 || !strings.HasPrefix(lines[1], "host-facing ToR ports,500,") || !strings.HasPrefix(lines[2], "fabric ports,500,") {
		t.Errorf("queue stats:\n%s", b)
	}
	b, _ = os.ReadFile(filepath.Join(out, "slowdown_dcqcn.txt"))
	tab, err := ReadSlowdownTable(bytes.NewReader(b))
	// 2000 flows, 40 of them unfinished and censored at the run's end
	if err != nil || tab.N != 2000 || tab.Censored != 40 || len(tab.Bins) != 20 || len(tab.Classes) != 3 {
		t.Errorf("slowdown table: %+v, %v", tab, err)
	}

	// Classified queue plot.
	files, err = PlotRunsWith(runs[:2], filepath.Join(dir, "plots2"), &Options{QueueClass: func(node, port int) string {
		return map[int]string{0: "host-facing ToR ports", 1: "fabric ports"}[port]
	}})
	if err != nil || len(files) != 6 {
		t.Fatalf("PlotRunsWith: %q, %v", files, err)
	}
	checkImages(t, files)
	svg, _ = os.ReadFile(filepath.Join(dir, "plots2", QueueCDFPlot+".svg"))
	if !bytes.Contains(svg, []byte("hpcc: fabric ports")) {
		t.Errorf("classified queue svg lacks class label")
	}
}

func TestPlotRunsDegenerate(t *testing.T) {
	dir := t.TempDir()
	if _, err := PlotRuns(nil, dir); err == nil {
		t.Errorf("PlotRuns(nil): no error")
	}
	// No finished flows and no queue: nothing to plot.
	r := &Run{Label: "x", Flows: []metrics.FlowRecord{{SizeBytes: 10}}}
	files, err := PlotRuns([]*Run{r}, dir)
	if err != nil || len(files) != 0 {
		t.Errorf("no data: %q, %v", files, err)
	}
	// One finished flow, all queue samples 0, equal sizes: still valid
	// plots (degenerate axis ranges).
	us := sim.Microsecond
	r = &Run{Label: "one", Flows: []metrics.FlowRecord{{SizeBytes: 1000, Finish: 3 * us, IdealFCT: 3 * us, Done: true}},
		Queue: []QueueSample{{Node: 1}, {Node: 1, At: us}}}
	files, err = PlotRuns([]*Run{r}, dir)
	if err != nil || len(files) != 6 {
		t.Fatalf("degenerate: %q, %v", files, err)
	}
	checkImages(t, files)
	// Flows with a zero ideal FCT have NaN slowdowns: not drawn, no error.
	nan := &Run{Label: "nan", Flows: []metrics.FlowRecord{
		{SizeBytes: 1000, Finish: 3 * us, Done: true},
		{SizeBytes: 5000, Finish: 3 * us, IdealFCT: us, Done: true}}}
	files, err = PlotRuns([]*Run{nan}, filepath.Join(dir, "nan"))
	if err != nil || len(files) != 4 {
		t.Fatalf("NaN slowdowns: %q, %v", files, err)
	}
	checkImages(t, files)
	// An output directory that cannot be created.
	blocker := filepath.Join(dir, "file")
	os.WriteFile(blocker, nil, 0o644)
	if _, err := PlotRuns([]*Run{r}, filepath.Join(blocker, "sub")); err == nil {
		t.Errorf("unwritable out dir: no error")
	}
}

func TestLogTicks(t *testing.T) {
	labelsOf := func(ticks []plot.Tick) []string {
		var labels []string
		for _, tk := range ticks {
			if tk.Label != "" {
				labels = append(labels, tk.Label)
			}
		}
		return labels
	}
	// Two decades: 1, 2, 5 labelled.
	ticks := logTicks{format: fmtBytes}.Ticks(1e3, 1e5)
	if got, want := labelsOf(ticks), []string{"1KB", "2KB", "5KB", "10KB", "20KB", "50KB", "100KB"}; len(ticks) != 19 || !reflect.DeepEqual(got, want) {
		t.Errorf("ticks(1e3, 1e5) = %+v", ticks)
	}
	// Four decades: powers of ten only; a range not on decades.
	ticks = logTicks{format: fmtBytes}.Ticks(1500, 2.5e7)
	if got, want := labelsOf(ticks), []string{"10KB", "100KB", "1MB", "10MB"}; !reflect.DeepEqual(got, want) || ticks[0].Value != 2000 || ticks[len(ticks)-1].Value != 2e7 {
		t.Errorf("ticks(1500, 2.5e7) = %+v", ticks)
	}
	for v, want := range map[float64]string{0.1: "100ns", 1: "1µs", 10: "10µs", 1e3: "1ms", 1e4: "10ms", 1e6: "1s"} {
		if got := fmtMicros(v); got != want {
			t.Errorf("fmtMicros(%v) = %q, want %q", v, got, want)
		}
	}
	for v, want := range map[float64]string{1: "1B", 1e6: "1MB", 3e7: "30MB", 1e9: "1GB"} {
		if got := fmtBytes(v); got != want {
			t.Errorf("fmtBytes(%v) = %q, want %q", v, got, want)
		}
	}
	if (logTicks{format: fmtBytes}).Ticks(0, 1) != nil {
		t.Errorf("ticks of a non-positive range")
	}
}

func TestCDFXYs(t *testing.T) {
	xs := []float64{1, 2, 3, 4}
	if got := cdfXYs(xs); len(got) != 4 || got[0].Y != 0.25 || got[3].X != 4 || got[3].Y != 1 {
		t.Errorf("cdfXYs small = %v", got)
	}
	big := make([]float64, 5001)
	for i := range big {
		big[i] = float64(i + 1)
	}
	got := cdfXYs(big)
	if len(got) > maxCDFPoints+1 || got[0].X != 1 || got[len(got)-1].X != 5001 || got[len(got)-1].Y != 1 {
		t.Errorf("cdfXYs big: %d points, first %v last %v", len(got), got[0], got[len(got)-1])
	}
}

func TestLinTicks(t *testing.T) {
	labels := func(lo, hi float64) []string {
		var out []string
		for _, tk := range (linTicks{}).Ticks(lo, hi) {
			if tk.Label != "" {
				out = append(out, tk.Label)
			}
		}
		return out
	}
	for _, c := range []struct {
		lo, hi float64
		want   []string
	}{
		{0, 1, []string{"0.0", "0.2", "0.4", "0.6", "0.8", "1.0"}},
		{0, 8200, []string{"0", "1000", "2000", "3000", "4000", "5000", "6000", "7000", "8000"}},
		{0, 27, []string{"0", "5", "10", "15", "20", "25"}},
		{0.5, 3.2, []string{"0.5", "1.0", "1.5", "2.0", "2.5", "3.0"}},
	} {
		if got := labels(c.lo, c.hi); !reflect.DeepEqual(got, c.want) {
			t.Errorf("linTicks(%v, %v) labels = %q, want %q", c.lo, c.hi, got, c.want)
		}
	}
	if (linTicks{}).Ticks(1, 1) != nil {
		t.Errorf("empty range has ticks")
	}
}
