package pidnn

// E1c, E1d: PID only and LSTM+PID with rtt_target 5, 6, 7 µs on the incast
// (the paper's §4.2.3 and Tables 4, 5).

import (
	"fmt"
	"math"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/report"
)

// targets are the rtt_target values of Tables 4 and 5 (µs).
var targets = []float64{5, 6, 7}

func e1cdRuns(sc experiment.Scale) []experiment.RunSpec {
	runs := []experiment.RunSpec{e1Run(sc, "pid", 5)}
	for _, t := range targets {
		runs = append(runs, e1Run(sc, "pidnn", t))
	}
	return runs
}

// magClaim is a claim that is a printed number only (a table cell or a
// measurement stated in the text), decided within the paper's tolerance.
func magClaim(id, desc string, paper float64, unit string) experiment.Claim {
	return experiment.Claim{ID: id, Description: desc, PaperValue: experiment.G4(paper), Unit: unit, Kind: experiment.Magnitude, Mag: experiment.MagValue, Paper: paper}
}

// e1cdClaims are §4.2.3's PID-only numbers, every cell of Tables 4 and 5,
// the statements about them, and the abstract's bound.
func e1cdClaims() []experiment.Claim {
	var cs []experiment.Claim
	for _, m := range rttRow {
		cs = append(cs, magClaim("pid-"+m.id, "§4.2.3, PID only (RTT_pred = R_t) at rtt_target 5 µs: "+m.name+" (\"统计所有节点采集数据\")", m.paper(paperPID), m.unit))
	}
	for _, m := range rttRow {
		for _, t := range targets {
			cs = append(cs, magClaim(fmt.Sprintf("t4-%s-%v", m.id, t), fmt.Sprintf("Table 4, LSTM+PID at rtt_target %v µs: %s", t, m.name), m.paper(paperTarget[t]), m.unit))
		}
	}
	for _, m := range []metric{mFCT, mTFin} {
		for _, t := range targets {
			cs = append(cs, magClaim(fmt.Sprintf("t5-%s-%v", m.id, t), fmt.Sprintf("Table 5, LSTM+PID at rtt_target %v µs: %s", t, m.name), m.paper(paperTarget[t]), m.unit))
		}
	}
	deg := "§4.3.2 after Table 4: \"实际情况确实平均 RTT 增加，吞吐量等各项指标都有所下降\" (in fact the mean RTT rose and throughput and every other metric got worse) from rtt_target 5 to 6 to 7 µs: "
	order := func(id, what string, rel experiment.Rel, pv string) experiment.Claim {
		return experiment.Claim{ID: id, Description: deg + what, PaperValue: pv, Kind: experiment.Order, Rel: rel}
	}
	cs = append(cs,
		order("target-rtt-mean-rises", "the mean RTT rises", experiment.Less, "5.030 < 6.061 < 7.148"),
		order("target-rate-falls", "RATE_mean falls", experiment.Greater, "21.18 > 15.73 > 11.24"),
		order("target-p99-rises", "the P99 RTT rises", experiment.Less, "6.276 < 10.25 < 12.91"),
		order("target-max-rises", "the max RTT rises", experiment.Less, "21.14 < 23.99 < 48.70"),
		experiment.Claim{ID: "abstract-mean-below-10us", Description: "abstract: \"模拟通信平均时延控制在 10 微妙以下\" (the mean delay is kept below 10 µs): LSTM+PID's mean RTT at its stated target, 5 µs (§3.5.1)", PaperValue: "5.03 ≤ 10", Unit: "µs",
			Kind: experiment.Range, Lo: 0, Hi: 10},
		experiment.Claim{ID: "tfinish-last-large", Description: "§4.3.2 after Table 5: \"整体完成时间即为前三个节点最大的流完成时间\" (the finish time is the largest FCT of the first three nodes, whose flows are far larger): at each target the largest FCT of senders 0–2 above that of senders 3–19", PaperValue: "3 of 3 targets",
			Kind: experiment.Count, Need: 3, Of: 3},
		experiment.Claim{ID: "tfinish-spread", Description: "§4.3.2 after Table 5: \"整体完成时间几乎一样\" (the finish time is almost the same at every target), as the paper prints it: T_finish's relative spread over the three targets, (max − min)/mean (the paper's 53.756, 53.688, 53.556 ms)", PaperValue: "0.373", Unit: "%",
			Kind: experiment.Magnitude, Mag: experiment.MagValue, Paper: spread([]float64{53.7560, 53.6880, 53.5559})},
	)
	return cs
}

// spread is the relative spread of xs, (max − min)/mean, in %.
func spread(xs []float64) float64 {
	lo, hi, s := math.Inf(1), math.Inf(-1), 0.0
	for _, x := range xs {
		lo, hi, s = min(lo, x), max(hi, x), s+x
	}
	return 100 * (hi - lo) / (s / float64(len(xs)))
}

func e1cd() *experiment.Experiment {
	return &experiment.Experiment{
		ID:    "e1cd",
		Title: "PID only and LSTM+PID with rtt_target 5, 6, 7 µs (E1c, E1d; §4.2.3, Tables 4, 5)",
		SetupAt: func(sc experiment.Scale) string {
			return e1SetupAt(sc) + "\n\nRuns: pid (PID only: RTT_pred = R_t, paper §4.2.3) with rtt_target 5 µs, and pidnn with rtt_target 5, 6 and 7 µs, under each reading of the gains. Every printed number is a magnitude claim within the paper-wide ±25 %; the statements of §4.3.2 are orders over the targets. \"平均发送速率越大对应平均 FCT 流完成时间越小\" (higher RATE_mean, lower FCT_mean) is no separate claim: with every flow finished, FCT_mean = Σ sizes · 8 / (20 · RATE_mean) by eqs. (30), (32) (the check incast-bytes). The paper's explanation of the equal finish times (\"链路吞吐量远超过这两个节点的最大发送速率之和\": the link far exceeds the two last flows' 2 × 100 Gb/s) contradicts its own numbers: 635 MB in 53.7 ms is 94.5 Gb/s on average, a ~100-Gb/s bottleneck busy 94.5 % of the time (the check bottleneck); on a link ≥ 200 Gb/s the two flows would run at 100 Gb/s each and finish far sooner."
		},
		Claims:   e1cdClaims(),
		Readings: e1Readings(),
		Checks:   e1Checks(),
		Runs:     e1cdRuns,
		Analyze:  analyzeE1cd,
	}
}

// analyzeE1cd reads PID only and LSTM+PID at every target: Tables 4 and 5
// beside the paper, the time series of nodes 1 and 2, and the measures.
func analyzeE1cd(ctx *experiment.Context) (*report.Section, error) {
	pid, res, err := readPIDRuns(ctx)
	if err != nil {
		return nil, err
	}
	sec := &report.Section{}
	t := report.Table{ID: "table45", Title: "§4.2.3, Tables 4, 5 — PID only and LSTM+PID by rtt_target, ccsim beside the paper", Columns: append([]string{"run", "source", "RTT samples"}, e1Cols...)}
	t.Rows = append(t.Rows, append([]string{"PID only, target 5 µs", "ccsim", fmt.Sprint(pid.samples)}, rowCells(pid)...),
		append([]string{"PID only, target 5 µs", "paper", ""}, paperCells(paperPID)...))
	for _, tg := range targets {
		name := fmt.Sprintf("LSTM+PID, target %v µs", tg)
		t.Rows = append(t.Rows, append([]string{name, "ccsim", fmt.Sprint(res[tg].samples)}, rowCells(res[tg])...),
			append([]string{name, "paper", ""}, paperCells(paperTarget[tg])...))
	}
	sec.Tables = append(sec.Tables, t)
	// the paper's PID-only figure is node 2 (Fig. 18: "节点 2"), its
	// LSTM+PID figures node 1
	sec.Figures = append(sec.Figures, timeFigures(ctx, "pid", keyOf("pid", 5), 1)...)
	sec.Figures = append(sec.Figures, timeFigures(ctx, "pidnn", keyOf("pidnn", 5), 0)...)
	ms, notes := e1cdMeasures(pid, res)
	for id, m := range ms {
		ctx.Measure(id, m)
	}
	sec.Notes = append(sec.Notes, notes...)
	return sec, nil
}

// e1cdMeasures measures E1cd's claims from PID only (target 5 µs) and
// LSTM+PID at every target; notes name what could not be measured.
func e1cdMeasures(pid *e1Result, res map[float64]*e1Result) (map[string]experiment.Measure, []string) {
	ms := map[string]experiment.Measure{}
	var notes []string
	mag := func(id string, m metric, r *e1Result) {
		if x, ok := magnitude(m, r); ok {
			ms[id] = x
		} else {
			notes = append(notes, fmt.Sprintf("%s: not measured: %s is an upper bound with %d censored flows", id, m.name, r.censored))
		}
	}
	for _, m := range rttRow {
		mag("pid-"+m.id, m, pid)
		for _, t := range targets {
			mag(fmt.Sprintf("t4-%s-%v", m.id, t), m, res[t])
		}
	}
	for _, m := range []metric{mFCT, mTFin} {
		for _, t := range targets {
			mag(fmt.Sprintf("t5-%s-%v", m.id, t), m, res[t])
		}
	}
	rs := []*e1Result{res[5], res[6], res[7]}
	for _, o := range []struct {
		id string
		m  metric
	}{{"target-rtt-mean-rises", mMean}, {"target-rate-falls", mRate}, {"target-p99-rises", mP99}, {"target-max-rises", mMax}} {
		id, m := o.id, o.m
		low, ok := lowerIf(m, rs...)
		if !ok {
			notes = append(notes, fmt.Sprintf("%s: not measured: %s is an upper bound with censored flows", id, m.name))
			continue
		}
		x := experiment.M(m.of(res[5]), m.of(res[6]), m.of(res[7]))
		x.Lower, x.Labels = low, []string{"5 µs", "6 µs", "7 µs"}
		ms[id] = x
	}
	ms["abstract-mean-below-10us"] = experiment.M(res[5].rttMean)
	var large, small []experiment.Sample
	var largeLow, smallLow []bool
	var last []string
	for _, t := range targets {
		r := res[t]
		large, small = append(large, experiment.Sample{r.maxLarge}), append(small, experiment.Sample{r.maxSmall})
		largeLow, smallLow = append(largeLow, r.largeCens), append(smallLow, r.smallCens)
		last = append(last, fmt.Sprintf("%v µs: flow %d (%s vs %s ms)", t, r.lastFlow, experiment.G4Dash(r.maxLarge), experiment.G4Dash(r.maxSmall)))
	}
	cnt := countPairs(experiment.Greater, large, small, largeLow, smallLow)
	cnt.Note = "last flow: " + joinSemi(last)
	ms["tfinish-last-large"] = cnt
	tf := []float64{res[5].tFinish, res[6].tFinish, res[7].tFinish}
	sp := experiment.MagOf(spread(tf))
	sp.Text = fmt.Sprintf("%.3g (T_finish %s, %s, %s ms; FCT_mean spread %.3g %%)", spread(tf), experiment.G4Dash(tf[0]), experiment.G4Dash(tf[1]), experiment.G4Dash(tf[2]),
		spread([]float64{res[5].fctMean, res[6].fctMean, res[7].fctMean}))
	if res[5].censored+res[6].censored+res[7].censored > 0 {
		notes = append(notes, "tfinish-spread: not measured: a T_finish is censored (a lower bound), so its spread is not bounded")
	} else {
		ms["tfinish-spread"] = sp
	}
	for _, r := range append([]*e1Result{pid}, rs...) {
		if r.censored > 0 {
			notes = append(notes, fmt.Sprintf("%d flows did not finish by the run's end: counted censored at the end (FCT = end − start), so FCT_mean and T_finish are lower bounds and RATE_mean an upper bound", r.censored))
		}
	}
	return ms, notes
}

func joinSemi(xs []string) string {
	s := ""
	for i, x := range xs {
		if i > 0 {
			s += "; "
		}
		s += x
	}
	return s
}

// maxPoints bounds the points of a time-series curve (thinned evenly).
const maxPoints = 3000

func thin(x, y []float64) ([]float64, []float64) {
	if len(x) <= maxPoints {
		return x, y
	}
	var tx, ty []float64
	for i := 0; i < maxPoints; i++ {
		k := i * len(x) / maxPoints
		tx, ty = append(tx, x[k]), append(ty, y[k])
	}
	return tx, ty
}

// timeFigures are the paper's figures of one sender (node = sender + 1):
// its per-RTT RTT samples and its delivered rate per 100-µs bin over time.
// A missing file gives no figure (the tables do not depend on them).
func timeFigures(ctx *experiment.Context, c, key string, sender int) []report.Figure {
	run, err := ctx.Run(key)
	if err != nil {
		return nil
	}
	node := fmt.Sprintf("node %d (sender %d)", sender+1, sender)
	var out []report.Figure
	if t, err := run.Table("rtt_per_rtt.csv"); err == nil {
		if cols, err := t.FloatCols("flow_id", "time_ns", "rtt_ns"); err == nil {
			var x, y []float64
			for i := range cols[0] {
				if int(cols[0][i]) == sender {
					x, y = append(x, cols[1][i]/1e6), append(y, cols[2][i]/1e3)
				}
			}
			x, y = thin(x, y)
			out = append(out, report.Figure{ID: c + "-rtt", Title: algs.Name(c) + ": RTT samples of " + node + ", one per RTT", XLabel: "time (ms)", YLabel: "RTT (µs)",
				Series: []report.Series{{Label: fmt.Sprintf("sender %d", sender), X: x, Y: y, Style: 1}}})
		}
	}
	if t, err := run.Table("flow_rate.csv"); err == nil {
		if cols, err := t.FloatCols("bin_start_ns", "flow", "gbps"); err == nil {
			var x, y []float64
			for i := range cols[0] {
				if int(cols[1][i]) == sender {
					x, y = append(x, cols[0][i]/1e6), append(y, cols[2][i])
				}
			}
			out = append(out, report.Figure{ID: c + "-rate", Title: algs.Name(c) + ": delivered rate of " + node + " per 100 µs", XLabel: "time (ms)", YLabel: "rate (Gb/s)",
				Series: []report.Series{{Label: fmt.Sprintf("sender %d", sender), X: x, Y: y, Style: 2}}})
		}
	}
	return out
}
