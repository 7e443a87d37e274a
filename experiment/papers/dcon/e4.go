package dcon

// E4: DCON's sensitivity to Q_CNM and T on E3's leaf-spine (the paper's
// Figs. 11, 12).

import (
	"fmt"
	"math"
	"strings"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/report"
)

// Q_CNM ∈ {40 %, 60 % of Q_PFC, dynamic} and T ∈ {2, 3, 4} RTT, web
// search, DCON only.
var (
	e4QCNM = []struct {
		label string
		p     map[string]any
	}{
		{"40%", map[string]any{"q_cnm_mode": "pfc_fraction", "q_cnm_pfc_fraction": 0.4}},
		{"60%", map[string]any{"q_cnm_mode": "pfc_fraction", "q_cnm_pfc_fraction": 0.6}},
		{"dynamic", map[string]any{}},
	}
	e4T = []float64{2, 3, 4}
)

// e4Runs sweeps each parameter (Q_CNM, then T) × core load with DCON and
// web search. E4's run keys name no algorithm ("q_cnm=40% load=0.4"):
// Sweep's trailing " cc=dcon" is dropped.
func e4Runs(sc experiment.Scale) []experiment.RunSpec {
	dcon := func(p map[string]any) map[string]any { return map[string]any{"params": map[string]any{"dcon": p}} }
	qcnm := experiment.Axis{Name: "q_cnm"}
	for _, q := range e4QCNM {
		qcnm.Values = append(qcnm.Values, experiment.Value{Label: q.label, Patch: dcon(q.p)})
	}
	win := experiment.Axis{Name: "window_rtts"}
	for _, t := range e4T {
		win.Values = append(win.Values, experiment.Value{Label: fmt.Sprint(t), Patch: dcon(map[string]any{"window_rtts": t})})
	}
	var runs []experiment.RunSpec
	for _, ax := range []experiment.Axis{qcnm, win} {
		sw := experiment.Sweep{Base: leafspine, Patch: dcon(e3DCON), Axes: []experiment.Axis{ax, loadAxis(sc, "websearch")}, CC: []string{"dcon"}}
		for _, r := range sw.Expand() {
			r.Key = strings.TrimSuffix(r.Key, " cc=dcon")
			runs = append(runs, r)
		}
	}
	return runs
}

func e4() *experiment.Experiment {
	return &experiment.Experiment{
		ID:    "e4",
		Title: "DCON's sensitivity to Q_CNM and T (Figs. 11, 12)",
		Setup: `E3's leaf-spine with web-search traffic at core loads 0.4–0.8, DCON only. (a) Q_CNM = 40 % or 60 % of "a fixed buffer size" (interpretation: of the ingress PFC threshold, 128 KB and 192 KB of 320 KB) or the dynamic threshold of the paper's §4.4; (b) the window T = 2, 3 or 4 base RTTs (with the dynamic threshold). The other settings as in E3 (Q_ECN 100 KB). Metric: average FCT.`,
		Claims: []experiment.Claim{
			{ID: "qcnm-dynamic-best", Description: "the dynamic Q_CNM gives the lowest average FCT (mean over the loads; wins per load in the note)", PaperValue: "yes", Verdict: true},
			{ID: "t3-best", Description: "T = 3 RTT gives the lowest average FCT (mean over the loads; wins per load in the note)", PaperValue: "yes", Verdict: true},
		},
		Runs:    e4Runs,
		Analyze: analyzeE4,
	}
}

// e4Part is one of E4's sweeps as the analysis reads it.
type e4Part struct {
	axis, title, claim, best string
	labels                   []string
}

var e4Parts = []e4Part{
	{"q_cnm", "Q_CNM", "qcnm-dynamic-best", "dynamic", []string{"40%", "60%", "dynamic"}},
	{"window_rtts", "T (base RTTs)", "t3-best", "3", []string{"2", "3", "4"}},
}

func analyzeE4(ctx *experiment.Context) (*report.Section, error) {
	sec := &report.Section{}
	claims := map[string]report.Claim{}
	var notes []string
	for _, part := range e4Parts {
		t, fig, claim := analyzeE4Part(ctx, part, &notes)
		claims[part.claim] = claim
		sec.Tables = append(sec.Tables, t)
		sec.Figures = append(sec.Figures, fig)
	}
	sec.Claims = ctx.Claims(claims)
	sec.Notes = notes
	return sec, nil
}

// analyzeE4Part reads one sweep: the average FCT per setting and load, as
// a table and a figure, and the verdict on the paper's best setting (the
// lowest mean over the loads).
func analyzeE4Part(ctx *experiment.Context, part e4Part, notes *[]string) (report.Table, report.Figure, report.Claim) {
	_, _, ls := lsScale(ctx.Scale)
	t := report.Table{ID: part.axis, Title: "Average FCT (µs) by core load and " + part.title, Columns: []string{"core load"}}
	fig := report.Figure{ID: part.axis, Title: "Web search — average FCT by " + part.title, XLabel: "core-layer load", YLabel: "average FCT (µs)"}
	means := map[string]float64{}
	ys := map[string][]float64{}
	for _, lb := range part.labels {
		t.Columns = append(t.Columns, part.title+" = "+lb)
		for _, l := range ls {
			p, err := readPoint(ctx, fmt.Sprintf("%s=%s load=%v", part.axis, lb, l))
			v := math.NaN()
			if err != nil {
				*notes = append(*notes, err.Error())
			} else {
				v = p.avg
			}
			ys[lb] = append(ys[lb], v)
			means[lb] += v / float64(len(ls))
		}
	}
	wins := map[string]int{}
	for i, l := range ls {
		row := []string{fmt.Sprint(l)}
		best := part.labels[0]
		for _, lb := range part.labels {
			row = append(row, experiment.G4DashNaN(ys[lb][i]))
			if ys[lb][i] < ys[best][i] {
				best = lb
			}
		}
		wins[best]++
		t.Rows = append(t.Rows, row)
	}
	bestMean := part.labels[0]
	for k, lb := range part.labels {
		fig.Series = append(fig.Series, report.Series{Label: part.title + " = " + lb, X: ls, Y: ys[lb], Points: true, Style: k + 1})
		if means[lb] < means[bestMean] {
			bestMean = lb
		}
	}
	var winNote string
	for _, lb := range part.labels {
		winNote += fmt.Sprintf("%s: lowest at %d of %d loads, mean %.0f µs; ", lb, wins[lb], len(ls), means[lb])
	}
	return t, fig, report.Verdict("lowest mean: "+bestMean, bestMean == part.best, winNote)
}
