package dcon

// E2: burst intensity on the testbed (Fig. 7): the average FCT of the 422
// flows as the short flows' interval and size vary.

import (
	"fmt"
	"math"
	"slices"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/report"
)

var (
	e2Intervals = []float64{10, 15, 20, 25, 30}  // µs
	e2SizesKB   = []int64{32, 64, 128, 256, 512} // KB (1000 B)
)

const (
	e2DefInterval = 15.0
	e2DefSizeKB   = 64
)

// e2Scale: long flows' size, short flows per sender, burst start.
func e2Scale(sc experiment.Scale) (longBytes int64, count int, startMs float64) {
	if sc == experiment.ScaleQuick {
		return 10_000_000, 4, 1
	}
	return 200_000_000, 30, 10
}

func e2Runs(sc experiment.Scale) []experiment.RunSpec {
	longBytes, count, start := e2Scale(sc)
	point := func(ivUs float64, kb int64) map[string]any {
		return map[string]any{"workload": map[string]any{"long_short": map[string]any{
			"short_min_bytes": kb * 1000, "short_max_bytes": kb * 1000, "interval_us": ivUs}}}
	}
	base := map[string]any{
		"stop_ms": 2000,
		"workload": map[string]any{"long_short": map[string]any{
			"long_size_bytes": longBytes, "short_count": count, "short_start_ns": start * 1e6}},
		"outputs": map[string]any{"series": nil},
	}
	var iv, sz experiment.Axis
	iv.Name, sz.Name = "interval_us", "size_kb"
	for _, x := range e2Intervals {
		iv.Values = append(iv.Values, experiment.Value{Label: fmt.Sprint(x), Patch: point(x, e2DefSizeKB)})
	}
	for _, kb := range e2SizesKB {
		sz.Values = append(sz.Values, experiment.Value{Label: fmt.Sprint(kb), Patch: point(e2DefInterval, kb)})
	}
	runs := experiment.Sweep{Base: testbed, Patch: base, Axes: []experiment.Axis{iv}, CC: algs.CCs(), CCPatch: ccPatch(nil)}.Expand()
	return append(runs, experiment.Sweep{Base: testbed, Patch: base, Axes: []experiment.Axis{sz}, CC: algs.CCs(), CCPatch: ccPatch(nil)}.Expand()...)
}

func e2() *experiment.Experiment {
	return &experiment.Experiment{
		ID:    "e2",
		Title: "Burst intensity on the testbed (Fig. 7)",
		Setup: `The testbed of E0 (T4). H0 → R0 and H1 → R1 each send one 200 MB flow (pinned through S1, as in E0) from 0; from 10 ms, when they have converged, H2–H15 each send 30 short flows to R1, one every interval (all 14 senders at once): 2 + 14 × 30 = 422 flows. (a) interval 10, 15, 20, 25, 30 µs with 64 KB flows; (b) short-flow size 32, 64, 128, 256, 512 KB with a 15 µs interval (the defaults are interpretations: 64 KB from E0, 15 µs from the paper's §6.1.2). Metric: the average FCT of all 422 flows (the two long flows included). Algorithms: DCQCN (the DCQCN paper's parameters, CNP every 50 µs, step ECN at 200 KB), Swift with its defaults but a base target of 65 µs (the fabric's 40 µs base RTT plus the default 25 µs: with 25 µs every RTT would exceed the target), PCN with its defaults, DCON with its defaults (Q_ECN 200 KB, dynamic Q_CNM, T = 3 RTT). Each run ends when every flow has finished.`,
		Claims: []experiment.Claim{
			{ID: "grows", Description: "the average FCT grows with burst intensity (shorter interval, larger flows) for every algorithm", PaperValue: "yes", Verdict: true},
			{ID: "lowest-interval", Description: "DCON has the lowest average FCT at every interval", PaperValue: "yes", Verdict: true},
			{ID: "lowest-size", Description: "DCON has the lowest average FCT at every short-flow size", PaperValue: "yes", Verdict: true},
			{ID: "vs-dcqcn-20us", Description: "at a 20 µs interval DCON's average FCT is 47 % below DCQCN's", PaperValue: "−47", Unit: "%", Verdict: true},
		},
		Runs:    e2Runs,
		Analyze: analyzeE2,
	}
}

// e2Axis is one of Fig. 7's sweeps as the analysis reads it.
type e2Axis struct {
	id, name, unit string
	xs             []float64
	key            func(x float64, cc string) string
}

var e2Axes = []e2Axis{
	{"interval", "interval between a sender's short flows", "µs", e2Intervals, func(x float64, cc string) string { return fmt.Sprintf("interval_us=%v cc=%s", x, cc) }},
	{"size", "short-flow size", "KB", toF(e2SizesKB), func(x float64, cc string) string { return fmt.Sprintf("size_kb=%v cc=%s", x, cc) }},
}

func analyzeE2(ctx *experiment.Context) (*report.Section, error) {
	sec := &report.Section{}
	claims := map[string]report.Claim{}
	grows := true
	var notes []string
	for _, ax := range e2Axes {
		vals, t, fig := e2Sweep(ctx, ax, &notes)
		for _, a := range algs {
			// intensity grows as the interval shrinks and the size grows
			v := slices.Clone(vals[a.CC])
			if ax.id == "interval" {
				slices.Reverse(v)
			}
			if !slices.IsSorted(v) {
				grows = false
			}
		}
		claims["lowest-"+ax.id] = report.Verdict(lowestByPoint(ax, vals), dconLowest(ax, vals), "")
		if ax.id == "interval" {
			i := slices.Index(ax.xs, 20)
			d, q := vals["dcon"][i], vals["dcqcn"][i]
			claims["vs-dcqcn-20us"] = report.Verdict(fmt.Sprintf("%+.0f", experiment.Pct(d, q)), d < q, fmt.Sprintf("DCON %.0f µs, DCQCN %.0f µs", d, q))
		}
		sec.Tables = append(sec.Tables, t)
		sec.Figures = append(sec.Figures, fig)
	}
	claims["grows"] = report.Verdict(fmt.Sprint(grows), grows, "monotone in both sweeps for all four algorithms")
	sec.Claims = ctx.Claims(claims)
	sec.Notes = notes
	return sec, nil
}

// e2Sweep reads one sweep: each algorithm's average FCT per point (NaN
// where a run is missing; failures and unexpected flow counts noted), as
// a table and a figure.
func e2Sweep(ctx *experiment.Context, ax e2Axis, notes *[]string) (map[string][]float64, report.Table, report.Figure) {
	t := report.Table{ID: ax.id, Title: "Average FCT of the 422 flows (µs) by " + ax.name, Columns: []string{ax.name + " (" + ax.unit + ")"}}
	fig := report.Figure{ID: ax.id, Title: "Fig. 7 — average FCT by " + ax.name, XLabel: ax.name + " (" + ax.unit + ")", YLabel: "average FCT (µs)"}
	for _, a := range algs {
		t.Columns = append(t.Columns, a.Name)
	}
	vals := map[string][]float64{}
	for _, x := range ax.xs {
		row := []string{fmt.Sprint(x)}
		for _, a := range algs {
			v, n, err := avgFCT(ctx, ax.key(x, a.CC))
			if err != nil {
				*notes = append(*notes, err.Error())
			}
			if n > 0 && n != 422 && ctx.Scale == experiment.ScalePaper {
				*notes = append(*notes, fmt.Sprintf("%s: %d flows, not 422", ax.key(x, a.CC), n))
			}
			vals[a.CC] = append(vals[a.CC], v)
			row = append(row, experiment.G4DashNaN(v))
		}
		t.Rows = append(t.Rows, row)
	}
	for i, a := range algs {
		fig.Series = append(fig.Series, report.Series{Label: a.Name, X: ax.xs, Y: vals[a.CC], Points: true, Style: i + 1})
	}
	return vals, t, fig
}

// avgFCT is the average FCT (µs) of a run's finished flows and the number
// of flows (an error, and the number of unfinished flows, when some did
// not finish; NaN and 0 when the run is missing).
func avgFCT(ctx *experiment.Context, key string) (float64, int, error) {
	run, err := ctx.Run(key)
	if err != nil {
		return math.NaN(), 0, err
	}
	recs, err := run.Flows()
	if err != nil {
		return math.NaN(), 0, err
	}
	s, n, unf := 0.0, 0, 0
	for _, f := range recs {
		if !f.Done {
			unf++
			continue
		}
		s += f.FCT().Microseconds()
		n++
	}
	if unf > 0 {
		return s / float64(n), unf, fmt.Errorf("%s: %d flows unfinished", key, unf)
	}
	return s / float64(n), len(recs), nil
}

// dconLowest reports whether DCON's average FCT is below every baseline's
// at every point.
func dconLowest(ax e2Axis, vals map[string][]float64) bool {
	lowest := true
	for i := range ax.xs {
		for _, a := range algs[:3] {
			if !(vals["dcon"][i] < vals[a.CC][i]) {
				lowest = false
			}
		}
	}
	return lowest
}

// lowestByPoint names the algorithm with the lowest average FCT at each
// point (DCON on ties and NaNs).
func lowestByPoint(ax e2Axis, vals map[string][]float64) string {
	s := ""
	for i, x := range ax.xs {
		best := "DCON"
		for _, a := range algs {
			if vals[a.CC][i] < vals[algs.CC(best)][i] {
				best = a.Name
			}
		}
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%v: %s", x, best)
	}
	return "lowest by point: " + s
}

// toF converts the sizes to the x values of a figure.
func toF(xs []int64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = float64(x)
	}
	return out
}
