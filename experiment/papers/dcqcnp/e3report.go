package dcqcnp

// E3's tables, figures and findings.

import (
	"fmt"
	"math"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/report"
)

// table4Table is Table 4, the paper's value beside ccsim's (mean over the
// seeds, and their range) for each algorithm, with ccsim's extra rows.
func table4Table(res map[string][]*e3Result) report.Table {
	t4 := report.Table{ID: "table4", Title: "Table 4 — paper | ccsim", Columns: []string{"metric"}}
	for _, a := range algs {
		t4.Columns = append(t4.Columns, a.Name+" paper", a.Name+" ccsim")
	}
	row := func(name string, paper func(string) string, f func(*e3Result) float64) {
		r := []string{name}
		for _, a := range algs {
			v := "—"
			if rs := res[a.CC]; rs != nil {
				v = cell(sample(rs, f))
			}
			r = append(r, paper(a.CC), v)
		}
		t4.Rows = append(t4.Rows, r)
	}
	p := func(f func(string) float64) func(string) string {
		return func(cc string) string { return fmt.Sprint(f(cc)) }
	}
	none := func(string) string { return "" }
	row("minimum rate, windows with ≥ 2 senders unfinished (Gb/s)", p(func(cc string) float64 { return table4[cc].minRate }), minLoaded)
	row("minimum rate while all senders are active (Gb/s)", none, func(r *e3Result) float64 { return r.minActive })
	row("minimum rate to the last completion (Gb/s; the metric before issue 16)", none, func(r *e3Result) float64 { return r.minToLast })
	row("average throughput, wire (Gb/s)", p(func(cc string) float64 { return table4[cc].avgTput }), avgWire)
	row("average throughput, payload (Gb/s)", none, func(r *e3Result) float64 { return r.avgPay })
	row("incast completion time (µs)", p(func(cc string) float64 { return table4[cc].ict }), ictUs)
	row("fairness: CoV of per-flow throughput over the run (%)", p(func(cc string) float64 { return table4[cc].cov }), covRaw)
	row("the same under ideal sharing (%)", none, func(r *e3Result) float64 { return r.covIdeal })
	row("congestion events: rate decreases", none, rateCuts)
	row("CNPs received", none, func(r *e3Result) float64 { return float64(r.cnps) })
	row("PFC pause frames", none, func(r *e3Result) float64 { return float64(r.pauses) })
	row("last sender done (ms)", none, func(r *e3Result) float64 { return r.lastMs })
	row("censored senders (unfinished at the run's end)", none, func(r *e3Result) float64 { return float64(r.censored) })
	return t4
}

// fairnessTable is the fairness CoV beside its value under ideal sharing
// and normalised by each flow's fair share (no verdicts: the paper's
// metric is the raw CoV).
func fairnessTable(res map[string][]*e3Result) report.Table {
	t := report.Table{ID: "fairness", Title: "Fairness: the paper's metric (CoV of per-flow throughput) against ideal sharing, and normalised by the fair share (0 = every flow gets its fair share; no verdicts)",
		Columns: []string{"algorithm", "paper (%)", "CoV of per-flow throughput (%)", "under ideal sharing (%)", "CoV of throughput / fair share (%)", "censored senders"}}
	for _, a := range algs {
		rs := res[a.CC]
		if rs == nil {
			continue
		}
		t.Rows = append(t.Rows, []string{a.Name, fmt.Sprint(table4[a.CC].cov), cell(sample(rs, covRaw)), cell(sample(rs, func(r *e3Result) float64 { return r.covIdeal })),
			cell(sample(rs, func(r *e3Result) float64 { return r.covNorm })), cell(sample(rs, func(r *e3Result) float64 { return float64(r.censored) }))})
	}
	return t
}

// costTable is the simulation cost of each algorithm's runs (mean over the
// seeds).
func costTable(res map[string][]*e3Result) report.Table {
	cost := report.Table{ID: "cost", Title: "Simulation cost (one core; mean over the seeds)", Columns: []string{"algorithm", "events", "data packets", "wall (s)", "events/s", "ns per data packet"}}
	for _, a := range algs {
		rs := res[a.CC]
		if rs == nil {
			continue
		}
		ev := sample(rs, func(r *e3Result) float64 { return float64(r.events) }).Mean()
		wall := sample(rs, func(r *e3Result) float64 { return r.wall }).Mean()
		pk := float64(rs[0].dataPkts)
		cost.Rows = append(cost.Rows, []string{a.Name, fmt.Sprintf("%.0f", ev), fmt.Sprintf("%.0f", pk), fmt.Sprintf("%.3f", wall),
			experiment.EventsPerSecond(int64(ev), wall), fmt.Sprintf("%.0f", wall*1e9/pk)})
	}
	return cost
}

// e3Figures are the receiver link's rate, the bottleneck queue and the
// PAUSE frames over time for every algorithm (first seed; the PAUSE figure
// only when a frame was sent), and the DCQCN-p senders' throughput.
func e3Figures(ctx *experiment.Context, res map[string][]*e3Result) ([]report.Figure, error) {
	linkFig := report.Figure{ID: "link-rate", Title: "Receiver link wire rate (first seed)", XLabel: "time (ms)", YLabel: "Gb/s", Step: true}
	qFig := report.Figure{ID: "queue", Title: "Bottleneck queue, maximum per bin (first seed)", XLabel: "time (ms)", YLabel: "queue (MB)", Step: true}
	pfcFig := report.Figure{ID: "pfc", Title: "PFC PAUSE frames sent to the senders per ms (first seed)", XLabel: "time (ms)", YLabel: "PAUSE frames per ms", Step: true}
	for i, a := range algs {
		rs := res[a.CC]
		if rs == nil {
			continue
		}
		r := rs[0]
		var x, y []float64
		for _, b := range r.link {
			x, y = append(x, b.Start/1e6), append(y, b.WireG)
		}
		linkFig.Series = append(linkFig.Series, report.Series{Label: a.Name, X: x, Y: y, Style: i + 1})
		x, y = nil, nil
		for _, b := range r.queue {
			x, y = append(x, b.Start/1e6), append(y, b.Max/1e6)
		}
		qFig.Series = append(qFig.Series, report.Series{Label: a.Name, X: x, Y: y, Style: i + 1})
		if r.pauses == 0 {
			continue
		}
		runs, err := ctx.SeedRuns("cc=" + a.CC)
		if err != nil {
			return nil, err
		}
		x, y, err = pausesPerMs(runs[0])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", a.CC, err)
		}
		pfcFig.Series = append(pfcFig.Series, report.Series{Label: a.Name, X: x, Y: y, Style: i + 1})
	}
	figs := []report.Figure{linkFig, qFig}
	if len(pfcFig.Series) > 0 {
		figs = append(figs, pfcFig)
	}
	if runs, err := ctx.SeedRuns("cc=dcqcnp"); err == nil {
		fig, err := senderRates(ctx.Scale, runs[0], "DCQCN-p: throughput of four senders (first seed)")
		if err != nil {
			return nil, err
		}
		figs = append(figs, fig)
	}
	return figs, nil
}

// senderRates plots the delivered rate of senders 0 (150 MB), 1 (200 MB),
// 3 (10 MB) and 20 (5 MB) over time.
func senderRates(sc experiment.Scale, run *experiment.RunRef, title string) (report.Figure, error) {
	fig := report.Figure{ID: "senders", Title: title, XLabel: "time (ms)", YLabel: "Gb/s", Step: true}
	t, err := run.Table("flow_rate.csv")
	if err != nil {
		return fig, err
	}
	v, err := t.FloatCols("bin_start_ns", "src", "gbps")
	if err != nil {
		return fig, err
	}
	start, src, g := v[0], v[1], v[2]
	for i, sid := range []int{0, 1, 3, 20} {
		var x, y []float64
		for k := range start {
			if int(src[k]) == sid {
				x, y = append(x, start[k]/1e6), append(y, g[k])
			}
		}
		size := []int64{150_000_000, 200_000_000, 10_000_000, 5_000_000}[i]
		fig.Series = append(fig.Series, report.Series{Label: fmt.Sprintf("sender %d (%s)", sid, sizeLabel(sc, size)), X: x, Y: y, Style: i + 1})
	}
	return fig, nil
}

// e3Notes are the findings, computed from the runs.
func e3Notes(ctx *experiment.Context, res map[string][]*e3Result) ([]string, error) {
	var notes []string
	runs, err := ctx.SeedRuns("cc=dcqcnp")
	if err == nil {
		pay, wire, err := transferFloor(runs[0].Scenario)
		if err != nil {
			return nil, err
		}
		bps, _ := receiverBps(runs[0].Scenario)
		n := fmt.Sprintf("Table 4's incast completion times (0.2–5 ms) cannot be completion times: the flows' bytes need at least %.4g ms through the %g Gb/s receiver link (%.4g ms with 48 B of headers per packet)", pay/1e6, bps/1e9, wire/1e6)
		div := sizeDiv(ctx.Scale)
		paper := pay * float64(div) // the paper's sizes: the payload floor scales with the bytes
		frac := func(us float64) float64 { return 100 * us * 1e3 / paper }
		if div == 1 {
			n += fmt.Sprintf("; in 5,000 µs the link carries at most %.3g MB (%.2g %% of the bytes), in 479 µs %.3g MB (%.2g %%), in 200 µs %.3g MB (%.2g %%) — less than one 5 MB flow, which alone needs 1.6 ms at 25 Gb/s.",
				bps*5e-3/8/1e6, frac(5000), bps*479e-6/8/1e6, frac(479), bps*200e-6/8/1e6, frac(200))
		} else {
			n += fmt.Sprintf(" at this scale; at the paper's sizes %.4g ms, of which 5,000, 479 and 200 µs are %.2g %%, %.2g %% and %.2g %%.", paper/1e6, frac(5000), frac(479), frac(200))
		}
		n += " ccsim's incast completion time is the bottleneck queue first falling below K_min, an interpretation of an undefined metric."
		notes = append(notes, n)
	}
	if dp := res["dcqcnp"]; dp != nil {
		r := dp[0]
		notes = append(notes, fmt.Sprintf("DCQCN-p's minimum rate (first seed) is %.3g Gb/s in the window starting at %.4g ms, with %d senders still unfinished (all active: %s Gb/s; to the last completion: %s Gb/s). The minimum is taken only while at least 2 senders are unfinished, so that a window in which the last flow alone trickles out cannot set it.",
			r.minLoaded, r.minAtMs, r.minUnfinished, experiment.G4Dash(r.minActive), experiment.G4Dash(r.minToLast)))
	}
	var raw, norm []string
	ideal := math.NaN()
	for _, a := range algs {
		if rs := res[a.CC]; rs != nil {
			raw = append(raw, fmt.Sprintf("%s %s", a.Name, cell(sample(rs, covRaw))))
			norm = append(norm, fmt.Sprintf("%s %s", a.Name, cell(sample(rs, func(r *e3Result) float64 { return r.covNorm }))))
			ideal = rs[0].covIdeal
		}
	}
	notes = append(notes, fmt.Sprintf("The paper's fairness metric, the CoV of per-flow throughput over the whole run, is %.4g %% under ideal sharing of the link (flows of unequal sizes started together get unequal whole-run throughputs), and an algorithm that leaves the link under-used while only the large flows remain lowers it: it is not a fairness measure here. Measured (%%): %s. Normalised by each flow's fair share (extra table, no verdicts): %s. The claims use the paper's metric.",
		ideal, join(raw), join(norm)))
	notes = append(notes, "Congestion events are counted as rate decreases, the event both reaction points share. DCQCN-p's flow registrations in its CAM (a flow entering the congested set) would count congestion episodes, but DCQCN has no such set and ccsim's outputs do not count them.")
	if ctx.Scale == experiment.ScaleQuick {
		notes = append(notes, "At quick scale each sender has a few KB (a 5 KB sender sends 5 packets): the transfer lasts a fraction of a millisecond, and these numbers only exercise the pipeline.")
	}
	return notes, nil
}

func join(xs []string) string {
	s := ""
	for i, x := range xs {
		if i > 0 {
			s += "; "
		}
		s += x
	}
	return s
}
