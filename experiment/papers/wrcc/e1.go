package wrcc

// E1: the basic results, WebSearch, Google RPC and Data Mining at 60 %
// load (the paper's Figs. 8, 9).

import (
	"fmt"
	"math"
	"strconv"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/report"
)

// e1Cut are the paper's "up to" reductions (%) of WRCC against DCQCN,
// HPCC and BiCC (§4.1.2).
var e1Cut = []struct {
	id, what string
	get      func(*crossPoint) float64
	paper    map[string]float64
}{
	{"short-avg", "short-flow average (median) FCT", func(p *crossPoint) float64 { return p.shortP50 }, map[string]float64{"dcqcn": 63, "hpcc": 94, "bicc": 43.8}},
	{"short-tail", "short-flow tail (p99) FCT", func(p *crossPoint) float64 { return p.shortP99 }, map[string]float64{"dcqcn": 30, "hpcc": 59, "bicc": 21.5}},
	{"long-avg", "long-flow average (median) FCT", func(p *crossPoint) float64 { return p.longP50 }, map[string]float64{"dcqcn": 38.6, "hpcc": 49.7, "bicc": 22.8}},
	{"long-tail", "long-flow tail (p99) FCT", func(p *crossPoint) float64 { return p.longP99 }, map[string]float64{"dcqcn": 41, "hpcc": 7.2, "bicc": 30.3}},
}

func e1Runs(sc experiment.Scale) []experiment.RunSpec {
	return crossRuns(sc, patterns, []float64{0.6}, wrccts[:1])
}

func e1Claims() []experiment.Claim {
	var out []experiment.Claim
	for _, m := range e1Cut {
		for _, a := range algs[1:] {
			out = append(out, experiment.Claim{ID: m.id + "-" + a.CC, Description: fmt.Sprintf("WRCC cuts the %s against %s by up to %g %% (best pattern)", m.what, a.Name, m.paper[a.CC]),
				PaperValue: strconv.FormatFloat(m.paper[a.CC], 'f', -1, 64), Unit: "% (max over patterns)", Verdict: true})
		}
	}
	for _, a := range algs[1:] {
		out = append(out, experiment.Claim{ID: "q80-" + a.CC, Description: "WRCC's 80th-percentile switch queue is 40 %–90 % shorter than " + a.Name + "'s (every pattern)", PaperValue: "40–90", Unit: "%", Verdict: true})
	}
	for _, a := range algs[1:] {
		out = append(out, experiment.Claim{ID: "pfc-" + a.CC, Description: "WRCC's total PFC pause time is more than an order of magnitude shorter than " + a.Name + "'s (every pattern)", PaperValue: "> 10", Unit: "× shorter", Verdict: true})
	}
	return out
}

func e1() *experiment.Experiment {
	return &experiment.Experiment{
		ID:      "e1",
		Title:   "Basic results: WebSearch, Google RPC and Data Mining at 60 % load (Figs. 8, 9)",
		Setup:   crossSetup + ` E1: the three flow-size distributions at load 60 %. Metrics (interpretations: short flows < 100 KB, long flows ≥ 1 MB, incast flows excluded from the size classes and the 20-bin table): the median ("average" in the paper) and p99 ("tail") FCT of short and long flows; the 80th-percentile queue length over the non-empty 10-µs samples of every switch port that carried traffic (at these loads most samples are empty and the unconditional p80 is 0 B for every algorithm; it is shown in the table with the p99); the total PFC pause time (sum over all paused transmitters); and the HPCC-style table of p50/p99 slowdown in 20 bins of 5 % of the flows by size. An "up to X %" claim holds when WRCC improves on the baseline in at least one pattern; ccsim's value is its largest reduction over the three patterns (printed beside the paper's).`,
		Claims:  e1Claims(),
		Runs:    e1Runs,
		Analyze: analyzeE1,
	}
}

func analyzeE1(ctx *experiment.Context) (*report.Section, error) {
	sec := &report.Section{}
	var notes []string
	res := map[string]map[string]*crossPoint{}
	for _, w := range patterns {
		res[w.id] = readCrossAll(ctx, w.id, 0.6, wrccts[0], &notes)
	}
	sec.Tables = append(sec.Tables, fctTable(res))
	// the 20-bin slowdown tables and figures
	for _, w := range patterns {
		bt, fig := binsTable(w, res[w.id])
		sec.Tables = append(sec.Tables, bt)
		sec.Figures = append(sec.Figures, fig)
	}
	claims := map[string]report.Claim{}
	cutClaims(res, claims)
	queuePauseClaims(res, claims)
	sec.Claims = ctx.Claims(claims)
	sec.Notes = notes
	return sec, nil
}

// fctTable lists each pattern's and algorithm's FCTs, queues and pause
// time.
func fctTable(res map[string]map[string]*crossPoint) report.Table {
	t := report.Table{ID: "fct", Title: "FCT (µs) of short (< 100 KB) and long (≥ 1 MB) flows at 60 % load; queue p80 and p99 over all samples and p80 over the non-empty samples (KB); PFC pause time (µs)", Columns: []string{"pattern", "algorithm", "short p50", "short p99", "long p50", "long p99", "queue p80 (KB)", "queue p99 (KB)", "busy-queue p80 (KB)", "PFC pause (µs)", "flows", "unfinished"}}
	f := experiment.G4Dash
	for _, w := range patterns {
		for _, a := range algs {
			p := res[w.id][a.CC]
			t.Rows = append(t.Rows, []string{w.name, a.Name, f(p.shortP50), f(p.shortP99), f(p.longP50), f(p.longP99), f(p.qP80 / 1e3), f(p.qP99 / 1e3), f(p.qP80busy / 1e3), f(p.pauseUs), fmt.Sprint(p.flows), fmt.Sprint(p.unfinished)})
		}
	}
	return t
}

// binsTable is one pattern's p50/p99 slowdown in 20 size bins per
// algorithm, and the p99 as a figure.
func binsTable(w pattern, res map[string]*crossPoint) (report.Table, report.Figure) {
	bt := report.Table{ID: "bins-" + w.id, Title: w.name + ": p50 / p99 FCT slowdown in 20 size bins (5 % of the flows each; incast excluded)", Columns: []string{"bin", "size ≤ (B)"}, Collapsed: true}
	fig := report.Figure{ID: "bins-" + w.id, Title: w.name + " — p99 slowdown by flow size", XLabel: "flow size (B, upper bin edge)", YLabel: "p99 FCT slowdown", LogX: true}
	for _, a := range algs {
		bt.Columns = append(bt.Columns, a.Name+" p50", a.Name+" p99")
	}
	nb := 0
	for _, a := range algs {
		nb = max(nb, len(res[a.CC].bins))
	}
	for i := 0; i < nb; i++ {
		row := []string{fmt.Sprint(i + 1), ""}
		for _, a := range algs {
			b := res[a.CC].bins
			if i < len(b) {
				if row[1] == "" {
					row[1] = fmt.Sprint(b[i].MaxSizeBytes)
				}
				row = append(row, experiment.G4Dash(b[i].P50), experiment.G4Dash(b[i].P99))
			} else {
				row = append(row, "—", "—")
			}
		}
		bt.Rows = append(bt.Rows, row)
	}
	for k, a := range algs {
		var x, y []float64
		for _, b := range res[a.CC].bins {
			x = append(x, float64(b.MaxSizeBytes))
			y = append(y, b.P99)
		}
		fig.Series = append(fig.Series, report.Series{Label: a.Name, X: x, Y: y, Points: true, Style: k + 1})
	}
	return bt, fig
}

// cutClaims are the "up to X %" claims: WRCC's largest reduction against
// each baseline over the patterns.
func cutClaims(res map[string]map[string]*crossPoint, claims map[string]report.Claim) {
	for _, m := range e1Cut {
		for _, a := range algs[1:] {
			best, at := math.Inf(-1), ""
			var parts string
			for _, w := range patterns {
				c := experiment.Cut(m.get(res[w.id]["wrcc"]), m.get(res[w.id][a.CC]))
				parts += fmt.Sprintf("%s %+.0f %%; ", w.name, c)
				if c > best {
					best, at = c, w.name
				}
			}
			if math.IsInf(best, -1) {
				best = math.NaN()
			}
			claims[m.id+"-"+a.CC] = report.Verdict(experiment.G4Dash(best), best > 0, "best in "+at+"; per pattern: "+parts)
		}
	}
}

// queuePauseClaims compare WRCC's busy-queue p80 and PFC pause time with
// each baseline's in every pattern.
func queuePauseClaims(res map[string]map[string]*crossPoint, claims map[string]report.Claim) {
	for _, a := range algs[1:] {
		lo, hi := math.Inf(1), math.Inf(-1)
		worstPause := math.Inf(1)
		var qn, pn string
		for _, w := range patterns {
			c := experiment.Cut(res[w.id]["wrcc"].qP80busy, res[w.id][a.CC].qP80busy)
			if res[w.id]["wrcc"].qP80busy == 0 && res[w.id][a.CC].qP80busy == 0 {
				c = 0 // never a queue: no difference
			}
			lo, hi = math.Min(lo, c), math.Max(hi, c)
			qn += fmt.Sprintf("%s %.0f %%; ", w.name, c)
			r := res[w.id][a.CC].pauseUs / res[w.id]["wrcc"].pauseUs
			if res[w.id]["wrcc"].pauseUs == 0 && res[w.id][a.CC].pauseUs > 0 {
				r = math.Inf(1)
			} else if res[w.id]["wrcc"].pauseUs == 0 {
				r = 1
			}
			worstPause = math.Min(worstPause, r)
			pn += fmt.Sprintf("%s: WRCC %.0f µs, %s %.0f µs; ", w.name, res[w.id]["wrcc"].pauseUs, a.Name, res[w.id][a.CC].pauseUs)
		}
		claims["q80-"+a.CC] = report.Verdict(fmt.Sprintf("%.0f–%.0f", lo, hi), lo >= 40, qn)
		val := experiment.G4Dash(worstPause)
		if math.IsInf(worstPause, 1) {
			val = "∞ (WRCC: no pause)"
		}
		claims["pfc-"+a.CC] = report.Verdict(val, worstPause > 10, "smallest ratio (baseline / WRCC) over the patterns, 1 when neither pauses; "+pn)
	}
}
