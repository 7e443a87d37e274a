package decc

// The analysis shared by E4 (many-to-one) and E5 (many-to-many): the four
// metrics of every (size, baseline) point, Fig. 7's or Fig. 8's table and
// figures, the headline table beside the paper, and the claims' measures.

import (
	"fmt"
	"math"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/report"
)

// metric names one of the four metrics: its column, unit and accessor.
type metric struct {
	id, name, unit string
	of             func(*point) experiment.Sample
	better         experiment.Rel // the direction the paper calls better
}

var metrics4 = []metric{
	{"goodput", "goodput ratio", "%", func(p *point) experiment.Sample { return p.goodput }, experiment.Greater},
	{"p99", "P99 end-to-end latency", "µs", func(p *point) experiment.Sample { return p.p99 }, experiment.Less},
	{"jain", "Jain index", "", func(p *point) experiment.Sample { return p.jain }, experiment.Greater},
	{"loss", "loss rate", "%", func(p *point) experiment.Sample { return p.loss }, experiment.Less},
}

// headline is one row of the paper's headline table (decc.md §2.4, §2.5):
// DECC's value and the runner-up's, at the largest size.
type headline struct {
	metric          string // metrics4 id
	decc, runnerVal float64
	runner          string // ccsim id of the runner-up
}

// fourMetricExp describes E4 or E5 for the shared analysis.
type fourMetricExp struct {
	axis      string   // run key axis ("flows", "procs")
	labels    []string // its values at the scale, ascending; the last is the headline size
	receivers int      // receiving hosts (goodput ratio's capacity)
	heads     []headline
}

// fourMetricClaims declares the claims of E4 or E5: DECC's four headline
// numbers and its being best on all four (n/a until its sender exists),
// the runner-ups' four numbers (measured), and the degradation of the
// baselines at the large size (what).
func fourMetricClaims(size string, heads []headline) []experiment.Claim {
	var cs []experiment.Claim
	for _, h := range heads {
		m := metricByID(h.metric)
		cs = append(cs,
			experiment.Claim{ID: "decc-" + h.metric, Description: fmt.Sprintf("DECC's %s at %s", m.name, size),
				PaperValue: experiment.G4(h.decc), Unit: m.unit, Kind: experiment.Magnitude, Mag: experiment.MagValue, Paper: h.decc},
			experiment.Claim{ID: h.runner + "-" + h.metric, Description: fmt.Sprintf("%s's %s at %s (the runner-up's value the paper prints)", algs.Name(h.runner), m.name, size),
				PaperValue: experiment.G4(h.runnerVal), Unit: m.unit, Kind: experiment.Magnitude, Mag: experiment.MagValue, Paper: h.runnerVal})
	}
	return append(cs, experiment.Claim{ID: "decc-best", Description: fmt.Sprintf("DECC is better than every baseline on all four metrics at %s", size),
		PaperValue: "4 of 4", Unit: "metrics", Kind: experiment.Count, Need: 4, Of: 4})
}

func metricByID(id string) metric {
	for _, m := range metrics4 {
		if m.id == id {
			return m
		}
	}
	panic("decc: unknown metric " + id)
}

// readPoints reads every (label, baseline) point; a missing run is a note.
func readPoints(ctx *experiment.Context, e fourMetricExp) (map[string]map[string]*point, []string) {
	pts := map[string]map[string]*point{}
	var notes []string
	for _, lb := range e.labels {
		pts[lb] = map[string]*point{}
		for _, a := range withDECC {
			p, err := readPoint(ctx, fmt.Sprintf("%s=%s cc=%s", e.axis, lb, a.CC), e.receivers)
			if err != nil {
				notes = append(notes, err.Error())
				continue
			}
			pts[lb][a.CC] = p
		}
	}
	return pts, notes
}

// metricsTable is every point's four metrics (means over the seeds).
func metricsTable(id, title string, e fourMetricExp, pts map[string]map[string]*point) report.Table {
	t := report.Table{ID: id, Title: title, Columns: []string{e.axis, "algorithm", "goodput ratio (%)", "P99 latency (µs)", "Jain", "loss (%)"}}
	for _, lb := range e.labels {
		for _, a := range withDECC {
			row := []string{lb, a.Name}
			for _, m := range metrics4 {
				v := math.NaN()
				if p := pts[lb][a.CC]; p != nil {
					v = m.of(p).Mean()
				}
				row = append(row, experiment.G4Dash(v))
			}
			t.Rows = append(t.Rows, row)
		}
	}
	return t
}

// metricsFigures plots each metric against the size, one series per
// baseline.
func metricsFigures(id, what string, e fourMetricExp, xs []float64, pts map[string]map[string]*point) []report.Figure {
	var figs []report.Figure
	for _, m := range metrics4 {
		f := report.Figure{ID: id + "_" + m.id, Title: what + " — " + m.name, XLabel: e.axis, YLabel: m.name + unitSuffix(m.unit), LogX: true}
		for _, a := range withDECC {
			s := report.Series{Label: a.Name, Points: true}
			for i, lb := range e.labels {
				if p := pts[lb][a.CC]; p != nil {
					s.X, s.Y = append(s.X, xs[i]), append(s.Y, m.of(p).Mean())
				}
			}
			if len(s.X) > 0 {
				f.Series = append(f.Series, s)
			}
		}
		figs = append(figs, f)
	}
	return figs
}

func unitSuffix(u string) string {
	if u == "" {
		return ""
	}
	return " (" + u + ")"
}

// headlineTable sets the paper's headline numbers beside ccsim's at the
// largest size: DECC's, the runner-up's, and ccsim's best baseline.
func headlineTable(id string, e fourMetricExp, pts map[string]map[string]*point) report.Table {
	last := e.labels[len(e.labels)-1]
	t := report.Table{ID: id, Title: fmt.Sprintf("Headline at %s=%s: the paper beside ccsim", e.axis, last),
		Columns: []string{"metric", "DECC (paper)", "DECC (ccsim)", "runner-up", "runner-up (paper)", "runner-up (ccsim)", "best baseline (ccsim)"}}
	for _, h := range e.heads {
		m := metricByID(h.metric)
		run, decc := math.NaN(), math.NaN()
		if p := pts[last][h.runner]; p != nil {
			run = m.of(p).Mean()
		}
		if p := pts[last]["decc"]; p != nil {
			decc = m.of(p).Mean()
		}
		best, bestName := bestOf(m, pts[last], algs)
		t.Rows = append(t.Rows, []string{m.name + unitSuffix(m.unit), experiment.G4(h.decc), experiment.G4Dash(decc), algs.Name(h.runner),
			experiment.G4(h.runnerVal), experiment.G4Dash(run), bestName + " " + experiment.G4Dash(best.Mean())})
	}
	return t
}

// bestOf is the sample with the best mean of metric m among the
// algorithms of among that were measured, and its name (nil, "—" when
// none was).
func bestOf(m metric, pts map[string]*point, among experiment.Algs) (experiment.Sample, string) {
	var best experiment.Sample
	name := "—"
	for _, a := range among {
		if p := pts[a.CC]; p != nil {
			if v := m.of(p); best == nil || (m.better == experiment.Greater) == (v.Mean() > best.Mean()) {
				best, name = v, a.Name
			}
		}
	}
	return best, name
}

// measureHeadlines records DECC's and the runner-ups' numbers at the
// largest size, and DECC against the best baseline on each metric.
func measureHeadlines(ctx *experiment.Context, e fourMetricExp, pts map[string]map[string]*point) {
	last := e.labels[len(e.labels)-1]
	note := func(s experiment.Sample) string {
		return fmt.Sprintf("%s=%s, mean of %d seed(s)", e.axis, last, len(s))
	}
	d := pts[last]["decc"]
	var a, b []experiment.Sample
	var rels []experiment.Rel
	for _, h := range e.heads {
		m := metricByID(h.metric)
		if d != nil {
			ctx.Measure("decc-"+h.metric, experiment.Measure{Mag: []experiment.Sample{m.of(d)}, Note: note(m.of(d))})
			if best, _ := bestOf(m, pts[last], algs); best != nil {
				a, b, rels = append(a, m.of(d)), append(b, best), append(rels, m.better)
			}
		}
		if p := pts[last][h.runner]; p != nil {
			ctx.Measure(h.runner+"-"+h.metric, experiment.Measure{Mag: []experiment.Sample{m.of(p)}, Note: note(m.of(p))})
		}
	}
	if len(a) == len(e.heads) {
		m := countRel(rels, a, b)
		m.Note = "DECC against the best baseline on each metric"
		ctx.Measure("decc-best", m)
	}
}
