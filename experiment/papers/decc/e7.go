package decc

// E7: long and short flows on the 16-node star (the paper's Figs. 10, 11,
// §4.4): the long flows' relative reaction time (e7react.go, from their
// pacing-rate traces) and their bandwidth utilisation.

import (
	"fmt"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/report"
	"github.com/ccsim/ccsim/scenario"
)

// e7Long and e7Short are the long- and short-flow counts: decc.md §2.7's
// sweep {4, 8, 16} × {50, 100, 150} (the paper quotes 16 and 150); quick
// scale 4 × 50.
func e7Long(sc experiment.Scale) []int { return experiment.AtScale(sc, []int{4}, []int{4, 8, 16}) }
func e7Short(sc experiment.Scale) []int {
	return experiment.AtScale(sc, []int{50}, []int{50, 100, 150})
}

// e7StopMs is the test's length: 2 ms at the paper's scale (decc.md
// proposes 10 ms; 2 ms keeps the 45 runs of E7 within a few minutes and
// still holds 250 base RTTs), 0.3 ms at quick scale. Short flows start
// from 0.1 ms at Poisson arrivals spread over the rest of the test.
func e7StopMs(sc experiment.Scale) float64 { return experiment.AtScale(sc, 0.3, 2.0) }

const e7ShortStartUs = 100

// e7Patch is one (long, short) point: long flows from hosts 1–15 in turn
// to host 0, short 64-KB flows from random hosts 1–15 to host 0.
func e7Patch(sc experiment.Scale, long, short int) map[string]any {
	ls := make([]any, long)
	trace := make([]any, long) // the long flows are the workload's first
	for i := range ls {
		ls[i] = 1 + i%15
		trace[i] = i
	}
	return map[string]any{"stop_ms": e7StopMs(sc), "outputs": map[string]any{"rate_trace_flows": trace}, "workload": map[string]any{"long_short": map[string]any{
		"long_senders": ls, "short_count": short,
		"interval_us": (e7StopMs(sc)*1e3 - e7ShortStartUs) / float64(short+1), "short_start_ns": e7ShortStartUs * 1e3,
	}}}
}

// e7Key is the run key of a point.
func e7Key(long, short int, cc string) string {
	return fmt.Sprintf("long=%d short=%d cc=%s", long, short, cc)
}

func e7() *experiment.Experiment {
	return &experiment.Experiment{
		ID:      "e7",
		Title:   "Long and short flows on the 16-node star (Figs. 10, 11)",
		SetupAt: e7Setup,
		Claims: []experiment.Claim{
			{ID: "decc-react", Description: "DECC's long-flow relative reaction time at 16 long and 150 short flows", PaperValue: "0.41", Unit: "RTT",
				Kind: experiment.Magnitude, Mag: experiment.MagValue, Paper: 0.41},
			{ID: "bolt-react", Description: "Bolt's long-flow relative reaction time at 16 long and 150 short flows", PaperValue: "0.38", Unit: "RTT",
				Kind: experiment.Magnitude, Mag: experiment.MagValue, Paper: 0.38},
			{ID: "react-order", Description: "long-flow reaction time: the higher of HPCC and Bolt < SPINE < ADPG (§4.4: ADPG reacts slowest, SPINE faster than ADPG but slower than HPCC and Bolt)", PaperValue: "HPCC, Bolt < SPINE < ADPG",
				Kind: experiment.Order, Rel: experiment.Less},
			{ID: "decc-util", Description: "DECC's long-flow average bandwidth utilisation at 16 long and 150 short flows", PaperValue: "71.45", Unit: "%",
				Kind: experiment.Magnitude, Mag: experiment.MagValue, Paper: 71.45},
			{ID: "bolt-util", Description: "Bolt's long-flow average bandwidth utilisation at 16 long and 150 short flows", PaperValue: "67.35", Unit: "%",
				Kind: experiment.Magnitude, Mag: experiment.MagValue, Paper: 67.35},
			{ID: "decc-util-above-bolt", Description: "DECC's long-flow utilisation is above Bolt's", PaperValue: "yes",
				Kind: experiment.Direction, Rel: experiment.Greater},
			{ID: "util-order", Description: "long-flow utilisation: ADPG < SPINE < the lower of HPCC and Bolt (§4.4: ADPG low, SPINE better than ADPG but worse than HPCC and Bolt)", PaperValue: "ADPG < SPINE < HPCC, Bolt",
				Kind: experiment.Order, Rel: experiment.Less},
		},
		Checks:  []experiment.Check{starNodes},
		Runs:    e7Runs,
		Analyze: analyzeE7,
	}
}

func e7Setup(sc experiment.Scale) string {
	return fmt.Sprintf(`One switch with 16 nodes on 400 Gb/s links (1 µs propagation, 1,024-B payloads, 32-MB shared buffer, lossy). Long flows %v go from hosts 1–15 in turn to host 0 for the whole test; short flows %v are single 64-KB WRITEs from uniformly random hosts 1–15 to host 0, Poisson arrivals from 0.1 ms spread over the %g-ms test (decc.md §2.7's interpretation: the paper leaves sizes, arrivals and receivers open), %d seed(s). Metrics: the long-flow relative reaction time (decc.md §2.7's interpretation, docs/papers.md §2.6): at each short flow's arrival at the switch (its start + 1 µs + one packet time), each sending long flow's time until its pacing rate first drops below 90 %% of its rate at that moment, in base RTTs (4.2 µs), averaged over the (arrival, long flow) pairs, a pair that does not drop within 10 RTTs counted as 10 (the mean is then a lower bound), with the share that did; the limit is the pacing rate or window × 8 / base RTT when lower (rate_trace.csv); the long-flow average bandwidth utilisation = Σ long-flow goodput bytes × 8 / (400 Gb/s × test time). DECC: the decc sender (the shipped trees), deciding in 1.53 µs (Table 3).`,
		e7Long(sc), e7Short(sc), e7StopMs(sc), len(experiment.Seeds(sc)))
}

// starNodes checks the star's size (§4.1: 16 compute nodes).
var starNodes = experiment.Check{ID: "star-nodes", Description: "compute nodes of the dynamic topology (§4.1)", Unit: "nodes", Paper: 16,
	Derive: func(s *scenario.Scenario) (float64, error) { return float64(s.Topology.Hosts), nil }}

func e7Runs(sc experiment.Scale) []experiment.RunSpec {
	var runs []experiment.RunSpec
	for _, l := range e7Long(sc) {
		for _, s := range e7Short(sc) {
			ax := experiment.Axis{Name: "long", Values: []experiment.Value{{Label: fmt.Sprint(l), Patch: e7Patch(sc, l, s)}}}
			sh := experiment.Axis{Name: "short", Values: []experiment.Value{{Label: fmt.Sprint(s)}}}
			runs = append(runs, experiment.Sweep{Base: star16, Axes: []experiment.Axis{ax, sh}, CC: withDECC.CCs(), CCPatch: ccPatch(true), Seeds: experiment.Seeds(sc)}.Expand()...)
		}
	}
	return runs
}

// longUtil is one run's long-flow utilisation in per cent: the goodput of
// the flows of size streamBytes (the long ones) over the receiver's link
// and the test time.
func longUtil(r *experiment.RunRef) (float64, error) {
	flows, err := r.Flows()
	if err != nil {
		return 0, err
	}
	fl, err := r.Table("flow_losses.csv")
	if err != nil {
		return 0, err
	}
	g, err := fl.Floats("goodput_bytes")
	if err != nil {
		return 0, err
	}
	if len(g) != len(flows) {
		return 0, fmt.Errorf("flows.csv has %d rows, flow_losses.csv %d", len(flows), len(g))
	}
	var bytes float64
	for i, f := range flows {
		if f.SizeBytes == streamBytes {
			bytes += g[i]
		}
	}
	return 100 * bytes * 8 / (r.Scenario.Topology.LinkGbps * 1e9 * r.Scenario.StopMs * 1e-3), nil
}

func analyzeE7(ctx *experiment.Context) (*report.Section, error) {
	var notes []string
	util, tu := e7Table(ctx, "util", "Long-flow average bandwidth utilisation (%)", longUtil, &notes)
	reactTime, reactShare := reactMetrics()
	react, tr := e7Table(ctx, "react", "Long-flow relative reaction time (base RTTs; mean over the (arrival, long flow) pairs, a pair that did not react within 10 RTTs counted as 10: a lower bound where the share below is under 100 %)", reactTime, &notes)
	share, ts := e7Table(ctx, "react-share", "Share of (short-flow arrival, long flow) pairs whose rate dropped below 90 % within 10 RTTs (%)", reactShare, &notes)
	longs, shorts := e7Long(ctx.Scale), e7Short(ctx.Scale)
	l, s := longs[len(longs)-1], shorts[len(shorts)-1]
	at := fmt.Sprintf("long=%d short=%d", l, s)
	if r, ok := react[e7Key(l, s, "decc")]; ok {
		ctx.Measure("decc-react", experiment.Measure{Mag: []experiment.Sample{r}, MagLower: []bool{reactCensored(share[e7Key(l, s, "decc")])}, Note: at})
	}
	if u, ok := util[e7Key(l, s, "decc")]; ok {
		ctx.Measure("decc-util", experiment.Measure{Mag: []experiment.Sample{u}, Note: at})
		if b, ok := util[e7Key(l, s, "bolt")]; ok {
			ctx.Measure("decc-util-above-bolt", experiment.Measure{Values: []experiment.Sample{u, b}, Labels: []string{"DECC", "Bolt"}, Note: at})
		}
	}
	if u, ok := util[e7Key(l, s, "bolt")]; ok {
		ctx.Measure("bolt-util", experiment.Measure{Mag: []experiment.Sample{u}, Note: at})
	}
	if r, ok := react[e7Key(l, s, "bolt")]; ok {
		ctx.Measure("bolt-react", experiment.Measure{Mag: []experiment.Sample{r}, MagLower: []bool{reactCensored(share[e7Key(l, s, "bolt")])}, Note: at})
	}
	e7Order(ctx, util, l, s)
	e7ReactOrder(ctx, react, share, l, s)
	return &report.Section{Tables: []report.Table{tr, ts, tu}, Notes: notes}, nil
}

// e7Table computes one metric at every (long, short) point for every
// baseline: the samples by run key and the table.
func e7Table(ctx *experiment.Context, id, title string, metric func(*experiment.RunRef) (float64, error), notes *[]string) (map[string]experiment.Sample, report.Table) {
	t := report.Table{ID: id, Title: title, Columns: []string{"long flows", "short flows"}}
	for _, a := range withDECC {
		t.Columns = append(t.Columns, a.Name)
	}
	out := map[string]experiment.Sample{}
	for _, l := range e7Long(ctx.Scale) {
		for _, s := range e7Short(ctx.Scale) {
			row := []string{fmt.Sprint(l), fmt.Sprint(s)}
			for _, a := range withDECC {
				v, err := ctx.Sample(e7Key(l, s, a.CC), metric)
				if err != nil {
					*notes, row = append(*notes, id+": "+err.Error()), append(row, experiment.Dash)
					continue
				}
				out[e7Key(l, s, a.CC)] = v
				row = append(row, experiment.G4(v.Mean()))
			}
			t.Rows = append(t.Rows, row)
		}
	}
	return out, t
}

// e7ReactOrder measures react-order: the higher of HPCC's and Bolt's
// reaction times (by mean), SPINE's and ADPG's at the headline point.
func e7ReactOrder(ctx *experiment.Context, react, share map[string]experiment.Sample, l, s int) {
	h, okH := react[e7Key(l, s, "hpcc")]
	b, okB := react[e7Key(l, s, "bolt")]
	sp, okS := react[e7Key(l, s, "spine")]
	a, okA := react[e7Key(l, s, "adpg")]
	if !okA || !okS || !okH || !okB {
		return
	}
	high, hi := h, "hpcc"
	if b.Mean() > h.Mean() {
		high, hi = b, "bolt"
	}
	var lower []bool
	for _, cc := range []string{hi, "spine", "adpg"} {
		lower = append(lower, reactCensored(share[e7Key(l, s, cc)]))
	}
	ctx.Measure("react-order", experiment.Measure{Values: []experiment.Sample{high, sp, a}, Lower: lower, Labels: []string{algs.Name(hi), "SPINE", "ADPG"}})
}

// e7Order measures util-order: ADPG, SPINE and the lower of HPCC and Bolt
// (by mean) at the headline point.
func e7Order(ctx *experiment.Context, util map[string]experiment.Sample, l, s int) {
	a, okA := util[e7Key(l, s, "adpg")]
	sp, okS := util[e7Key(l, s, "spine")]
	h, okH := util[e7Key(l, s, "hpcc")]
	b, okB := util[e7Key(l, s, "bolt")]
	if !okA || !okS || !okH || !okB {
		return
	}
	low, name := h, "HPCC"
	if b.Mean() < h.Mean() {
		low, name = b, "Bolt"
	}
	ctx.Measure("util-order", experiment.Measure{Values: []experiment.Sample{a, sp, low}, Labels: []string{"ADPG", "SPINE", name}})
}
