package dcon

// E4: DCON's sensitivity to Q_CNM and T on E3's leaf-spine (the paper's
// Figs. 11, 12).

import (
	"fmt"
	"strings"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/report"
)

// Q_CNM ∈ {40 %, 60 % of a fixed buffer size, dynamic} and T ∈ {2, 3, 4}
// RTT, web search, DCON only. The fixed thresholds carry the primary
// reading's buffer size B (perport); the other readings set it back to
// Q_PFC (nsReadings).
var (
	e4QCNM = []struct {
		label string
		p     map[string]any
	}{
		{"40%", map[string]any{"q_cnm_mode": "pfc_fraction", "q_cnm_pfc_fraction": 0.4, "q_cnm_fraction_of_kb": e4FixedBufferKB}},
		{"60%", map[string]any{"q_cnm_mode": "pfc_fraction", "q_cnm_pfc_fraction": 0.6, "q_cnm_fraction_of_kb": e4FixedBufferKB}},
		{"dynamic", map[string]any{}},
	}
	e4T = []float64{2, 3, 4}
)

// e4Runs sweeps each parameter (Q_CNM, then T) × core load × seed with
// DCON and web search; the 40 % run at the lowest load comes first (the
// consistency checks read it). E4's run keys name no algorithm
// ("q_cnm=40% load=0.4 seed=1"): Sweep's " cc=dcon" is dropped. The
// dynamic runs and those with T = 3 are E3's DCON web-search runs (one
// run each, by hash).
func e4Runs(sc experiment.Scale) []experiment.RunSpec {
	qcnm := experiment.Axis{Name: "q_cnm"}
	for _, q := range e4QCNM {
		qcnm.Values = append(qcnm.Values, experiment.Value{Label: q.label, Patch: dconPatch(q.p)})
	}
	win := experiment.Axis{Name: "window_rtts"}
	for _, t := range e4T {
		win.Values = append(win.Values, experiment.Value{Label: fmt.Sprint(t), Patch: dconPatch(map[string]any{"window_rtts": t})})
	}
	var runs []experiment.RunSpec
	for _, ax := range []experiment.Axis{qcnm, win} {
		sw := experiment.Sweep{Base: leafspine, Axes: []experiment.Axis{ax, loadAxis(sc, "websearch")}, CC: []string{"dcon"}, Seeds: experiment.Seeds(sc)}
		for _, r := range sw.Expand() {
			r.Key = strings.Replace(r.Key, " cc=dcon", "", 1)
			runs = append(runs, r)
		}
	}
	return runs
}

func e4() *experiment.Experiment {
	return &experiment.Experiment{
		ID:      "e4",
		Title:   "DCON's sensitivity to Q_CNM and T (Figs. 11, 12)",
		SetupAt: e4Setup,
		Claims: []experiment.Claim{
			{ID: "qcnm-dynamic-best", Description: "the dynamic Q_CNM gives a lower average FCT than 40 % and than 60 % of the fixed buffer size, at every load (load × fixed setting pairs)",
				PaperValue: "10 of 10", Unit: "pairs", Kind: experiment.Count, Need: 10, Of: 10},
			{ID: "t3-best", Description: "T = 3 RTT gives a lower average FCT than T = 2 and than T = 4 RTT, at every load (load × setting pairs)",
				PaperValue: "10 of 10", Unit: "pairs", Kind: experiment.Count, Need: 10, Of: 10},
		},
		Readings: append(nsReadings(), e4GapReading()),
		Checks:   append(switchChecks(), dcqcnChecks()...),
		Runs:     e4Runs,
		Analyze:  analyzeE4,
	}
}

// e4Setup is E4's setup text at a scale.
func e4Setup(sc experiment.Scale) string {
	_, _, ls := lsScale(sc)
	return fmt.Sprintf(`E3's leaf-spine (%s) with web-search traffic at core loads %v (§6.2.2: 「在6.2.1节大规模仿真的网页搜索工作负载下」), DCON only, %d seeds. (a) Q_CNM = 40 %% or 60 %% of "a fixed buffer size" B, or the dynamic threshold of §4.4 (Fig. 11); (b) the window T = 2, 3 or 4 base RTTs with the dynamic threshold (Fig. 12). B and Q_ECN are not printed for the NS-3 runs: the readings give them (primary: B = 22 MB / 32 ports = 687.5 KB, the testbed switch's per-port share, so 275 and 412.5 KB, Q_ECN 200 KB; the other readings: B = Q_PFC = 320 KB, 128 and 192 KB, with Q_ECN 100 or 200 KB). A fixed threshold is never below Q_ECN (§4.4). The other settings as in E3. Metric: average FCT (censored flows included).`,
		lsTopologyText(sc), ls, len(experiment.Seeds(sc)))
}

// e4Part is one of E4's sweeps as the analysis reads it: the setting the
// paper finds best and the others.
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
	var notes []string
	_, _, ls := lsScale(ctx.Scale)
	for _, part := range e4Parts {
		pts := map[string][]*lsPoint{}
		for _, lb := range part.labels {
			for _, l := range ls {
				key := fmt.Sprintf("%s=%s load=%v", part.axis, lb, l)
				p, err := readLS(ctx, key)
				if err != nil {
					notes = append(notes, err.Error())
				}
				notes = append(notes, pointNotes(ctx, key, p)...)
				pts[lb] = append(pts[lb], p)
			}
		}
		name := func(lb string) string { return part.title + " = " + lb }
		t, fig := lsTable(part.axis, "Average FCT (µs) by core load and "+part.title, "Web search — average FCT by "+part.title, "average FCT (µs)",
			ls, name, part.labels, pts, (*lsPoint).avg, true)
		sec.Tables = append(sec.Tables, t)
		sec.Figures = append(sec.Figures, fig)
		ctx.Measure(part.claim, e4Measure(part, pts, ls))
	}
	sec.Notes = append(notes, e4SettingNote(ctx.Reading.ID))
	return sec, nil
}

// e4Measure is a "best setting" count: the best setting's average FCT
// below each other setting's, at every load.
func e4Measure(part e4Part, pts map[string][]*lsPoint, ls []float64) experiment.Measure {
	var a, b []experiment.Sample
	var al, bl []bool
	for i := range ls {
		for _, lb := range part.labels {
			if lb == part.best {
				continue
			}
			x, y := pts[part.best][i], pts[lb][i]
			a, al = append(a, x.avg()), append(al, x.censored() > 0)
			b, bl = append(b, y.avg()), append(bl, y.censored() > 0)
		}
	}
	m := pairs(experiment.Less, a, b, al, bl)
	var lows []string
	for i, l := range ls {
		best, bv := "", 0.0
		for _, lb := range part.labels {
			if v := pts[lb][i].avg().Mean(); best == "" || v < bv {
				best, bv = lb, v
			}
		}
		lows = append(lows, fmt.Sprintf("%v: %s", l, best))
	}
	m = withCountText(m)
	m.Text += "; lowest mean by load: " + strings.Join(lows, ", ")
	return m
}

// e4SettingNote states the reading's thresholds.
func e4SettingNote(id string) string {
	b, qECN := e4FixedBufferKB, 200.0
	switch id {
	case "pfc-q100":
		b, qECN = 320, 100
	case "testbed-pfc":
		b = 320
	}
	return fmt.Sprintf("This reading (%s): 40 %% = %g KB, 60 %% = %g KB (each at least Q_ECN = %g KB); the dynamic Q_CNM is 320 KB (%.1f %% of B) where M = 1 and Q_ECN (%.1f %% of B) where M ≥ 2. Fig. 11's text places the dynamic threshold between the fixed ones (40 %% too small, 60 %% too large: PFC first).",
		nsSettingText(id), max(qECN, 0.4*b), max(qECN, 0.6*b), qECN, 100*320/b, 100*qECN/b)
}

// e4GapReading is the switch-gap reading of the CNM delivery in E4, on one
// seed (cost: 25 web-search runs at the paper's scale instead of 75).
func e4GapReading() experiment.Reading {
	r := cnmGapReading()
	r.OnlySeeds = []uint64{1}
	return r
}
