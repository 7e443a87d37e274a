package dcqcnp

import (
	"fmt"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/report"
)

// e3Algs are Table 4's columns.
var e3Algs = []struct{ cc, name string }{
	{"dcqcn", "DCQCN"}, {"timely", "TIMELY"}, {"dctcp", "DCTCP"}, {"dcqcnp", "DCQCN-p"},
}

// paperECN is the switch marking of the paper's NS-3 runs (§3.1): K_min
// 100 KiB, K_max 400 KiB, P_max 0.1 on every port speed.
var paperECN = []any{
	map[string]any{"link_gbps": 25, "kmin_kb": 102.4, "kmax_kb": 409.6, "pmax": 0.1},
	map[string]any{"link_gbps": 100, "kmin_kb": 102.4, "kmax_kb": 409.6, "pmax": 0.1},
}

// e3CCPatch configures each algorithm. DCQCN is the paper's own DCQCN
// (Table 3 and docs/algorithms/dcqcnp.md §DCQCN): the DCQCN paper's
// reaction point (canonical mode: a cut per CNP, α and increase timers of
// 55 µs, byte counter 10 MiB, F = 5, g = 1/256, R_AI 40 Mb/s, R_HAI 200
// Mb/s) with a CNP at most every 50 µs per flow, ns3-rdma's 100 Mb/s
// minimum rate, and the paper's switch marking. DCQCN-p: its defaults with
// a CNP per marked packet. TIMELY and DCTCP: their reference presets (the
// paper gives no parameters), TIMELY with the paper's switch marking.
var e3CCPatch = map[string]map[string]any{
	"dcqcn": {
		"params": map[string]any{"dcqcn": map[string]any{
			"mode": "canonical", "alpha_resume_interval_us": 55, "rp_timer_us": 55, "byte_counter_bytes": 10 << 20,
			"g": 1.0 / 256, "fast_recovery_times": 5, "rate_ai_mbps": 40, "rate_hai_mbps": 200, "min_rate_mbps": 100}},
		"host":   map[string]any{"cnp_interval_us": 50},
		"switch": map[string]any{"ecn_rules": paperECN},
	},
	"dcqcnp": {"params": map[string]any{"dcqcnp": dcqcnpParams}},
	"timely": {"switch": map[string]any{"ecn_rules": paperECN}},
}

func e3Runs(sc experiment.Scale) []experiment.RunSpec {
	var ccs []string
	for _, a := range e3Algs {
		ccs = append(ccs, a.cc)
	}
	runs := experiment.Sweep{Base: base, Patch: scalePatch(sc), CC: ccs, CCPatch: e3CCPatch}.Expand()
	// Sensitivity: the DCQCN reaction points with a 1 Mb/s floor, far
	// below the 6.25 Mb/s fair share of 4,000 QPs on 25 Gb/s.
	low := map[string]map[string]any{}
	for _, cc := range []string{"dcqcn", "dcqcnp"} {
		low[cc] = experiment.Merge(e3CCPatch[cc], map[string]any{"params": map[string]any{cc: map[string]any{"min_rate_mbps": 1}}})
	}
	return append(runs, experiment.Sweep{Base: base, Patch: scalePatch(sc), CC: []string{"dcqcn", "dcqcnp"}, CCPatch: low,
		Axes: []experiment.Axis{{Name: "minrate", Values: []experiment.Value{{Label: "1"}}}}}.Expand()...)
}

// Table 4 of the paper, by algorithm.
var table4 = map[string]struct{ minRate, avgTput, ict, cov float64 }{
	"dcqcn":  {10.76, 18.74, 5000, 15},
	"timely": {8.95, 23.48, 200, 216},
	"dctcp":  {10.78, 25.08, 1400, 191},
	"dcqcnp": {13.28, 23.69, 479, 65},
}

func e3() *experiment.Experiment {
	var claims []experiment.Claim
	for _, a := range e3Algs {
		t := table4[a.cc]
		claims = append(claims,
			experiment.Claim{ID: "minrate-" + a.cc, Description: a.name + ": minimum rate of the bottleneck link", PaperValue: fmt.Sprint(t.minRate), Unit: "Gb/s"},
			experiment.Claim{ID: "avgtput-" + a.cc, Description: a.name + ": average throughput of the bottleneck link", PaperValue: fmt.Sprint(t.avgTput), Unit: "Gb/s"},
			experiment.Claim{ID: "ict-" + a.cc, Description: a.name + ": incast completion time", PaperValue: fmt.Sprint(t.ict), Unit: "µs"},
			experiment.Claim{ID: "cov-" + a.cc, Description: a.name + ": fairness \"variance\" (CoV of per-sender throughput)", PaperValue: fmt.Sprint(t.cov), Unit: "%"},
		)
	}
	claims = append(claims,
		experiment.Claim{ID: "minrate-order", Description: "DCQCN-p's minimum rate is higher than DCQCN's, TIMELY's and DCTCP's (by 24 %, 48 %, 23 %)", PaperValue: "+24 / +48 / +23", Unit: "%", Verdict: true},
		experiment.Claim{ID: "cov-order", Description: "DCQCN-p shares the bandwidth more fairly than TIMELY and DCTCP (lower CoV)", PaperValue: "65 vs 216 / 191", Unit: "%", Verdict: true},
		experiment.Claim{ID: "fairer-than-dcqcn", Description: "abstract: DCQCN-p improves fairness over DCQCN (the paper's own Table 4 says otherwise: 65 % vs 15 %)", PaperValue: "yes (abstract); Table 4: 65 vs 15", Unit: "%", Verdict: true},
		experiment.Claim{ID: "events", Description: "DCQCN-p has 3 more congestion events than DCQCN (CNPs received by senders, DCQCN-p − DCQCN)", PaperValue: "3", Unit: "events"},
		experiment.Claim{ID: "events-order", Description: "DCQCN-p sees more congestion events than DCQCN", PaperValue: "yes", Verdict: true},
	)
	return &experiment.Experiment{
		ID:    "e3",
		Title: "DCQCN-p vs DCQCN, TIMELY and DCTCP with 4,000 QPs (Table 4)",
		Setup: `The 80-to-1 incast of E2 at PMTU 1024 B with 4,000 QPs (50 per sender), once per algorithm. DCQCN-p: its defaults (g = 1/16, R_ai = 0.2, R_hai = 0.8, F = 5, time threshold 55 µs, byte threshold 10 MiB, D = 4 µs, U = 55 µs, 512-entry CAM per NIC), a CNP per marked packet, minimum rate 100 Mb/s (ns3-rdma's default). DCQCN: the paper's Table 3 — the DCQCN paper's reaction point (a cut per CNP; α and rate-increase timers 55 µs; byte counter 10 MiB; F = 5; g = 1/256; R_AI = 40 Mb/s, R_HAI = 200 Mb/s), a CNP at most every 50 µs per flow, minimum rate 100 Mb/s. TIMELY and DCTCP: ccsim's reference presets (the paper gives no parameters). Switch marking K_min 100 KiB, K_max 400 KiB, P_max 0.1 for DCQCN, DCQCN-p and TIMELY; DCTCP keeps its step marking.

Table 4's metrics are undefined in the paper; ccsim uses these interpretations (docs/metrics.md): minimum rate = the minimum over whole 100 µs windows, after the first window and before the last flow finishes, of the receiver link's wire rate (all bytes the switch put on the 25 Gb/s link, headers included); average throughput = that link's wire bytes over the time from the start to the last flow's completion (payload rate shown beside it); incast completion time = the time until the bottleneck queue, having exceeded K_min, first falls below it again (queue sampled every 1 µs, bins of 10 µs); fairness "variance" = the coefficient of variation (std/mean) of the 80 senders' throughput while all are active (from the start to the first sender's completion, 1 ms bins); congestion events = CNPs received by the senders (rate decreases shown beside).`,
		Claims:  claims,
		Runs:    e3Runs,
		Analyze: analyzeE3,
	}
}

type e3Result struct {
	minRate, avgWire, avgPay float64
	minOK                    bool
	minActive                float64 // minimum rate while every sender is active
	minActiveOK              bool
	ict                      float64
	ictState                 string
	cov, covIntervalMs       float64
	cnps, cuts, pauses       int64
	pausedMs                 float64
	events                   int64
	wall                     float64
	dataPkts                 int64
	lastMs                   float64
	link                     []linkBin
	queue                    []queueBin
}

func analyzeE3(ctx *experiment.Context) (*report.Section, error) {
	sec := &report.Section{}
	res := map[string]*e3Result{}
	var errs []string
	window := windowUs(ctx.Scale) * 1e3
	for _, a := range e3Algs {
		run, err := ctx.Run("cc=" + a.cc)
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		r, err := e3Metrics(run, window)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", a.cc, err)
		}
		res[a.cc] = r
	}
	if len(res) == 0 {
		return nil, fmt.Errorf("no run finished: %v", errs)
	}
	// Table 4, paper beside ccsim.
	t4 := report.Table{ID: "table4", Title: "Table 4 — paper | ccsim", Columns: []string{"metric"}}
	for _, a := range e3Algs {
		t4.Columns = append(t4.Columns, a.name+" paper", a.name+" ccsim")
	}
	row := func(name string, paper func(string) string, ours func(*e3Result) string) {
		r := []string{name}
		for _, a := range e3Algs {
			v := "—"
			if x := res[a.cc]; x != nil {
				v = ours(x)
			}
			r = append(r, paper(a.cc), v)
		}
		t4.Rows = append(t4.Rows, r)
	}
	p := func(f func(string) float64) func(string) string {
		return func(cc string) string { return fmt.Sprint(f(cc)) }
	}
	none := func(string) string { return "" }
	row("minimum rate (Gb/s)", p(func(cc string) float64 { return table4[cc].minRate }), func(r *e3Result) string { return minRateStr(r) })
	row("minimum rate while all senders are active (Gb/s)", none, func(r *e3Result) string {
		if !r.minActiveOK {
			return "no whole window"
		}
		return f3(r.minActive)
	})
	row("average throughput, wire (Gb/s)", p(func(cc string) float64 { return table4[cc].avgTput }), func(r *e3Result) string { return f3(r.avgWire) })
	row("average throughput, payload (Gb/s)", none, func(r *e3Result) string { return f3(r.avgPay) })
	row("incast completion time (µs)", p(func(cc string) float64 { return table4[cc].ict }), func(r *e3Result) string { return ictStr(r) })
	row("fairness CoV (%)", p(func(cc string) float64 { return table4[cc].cov }), func(r *e3Result) string { return f3(r.cov) })
	row("congestion events: CNPs received", none, func(r *e3Result) string { return fmt.Sprint(r.cnps) })
	row("rate decreases", none, func(r *e3Result) string { return fmt.Sprint(r.cuts) })
	row("PFC pause frames", none, func(r *e3Result) string { return fmt.Sprint(r.pauses) })
	row("last flow done (ms)", none, func(r *e3Result) string { return f3(r.lastMs) })
	sec.Tables = append(sec.Tables, t4)
	sens := report.Table{ID: "minrate1", Title: "Sensitivity: DCQCN and DCQCN-p with a 1 Mb/s minimum rate (instead of 100 Mb/s)",
		Columns: []string{"algorithm", "minimum rate (Gb/s)", "min. rate, all senders active (Gb/s)", "average throughput, wire (Gb/s)", "incast completion time (µs)", "fairness CoV (%)", "CNPs", "PFC pauses", "max RTT (µs)", "last flow done (ms)"}}
	for _, a := range []struct{ cc, name string }{{"dcqcn", "DCQCN"}, {"dcqcnp", "DCQCN-p"}} {
		run, err := ctx.Run("minrate=1 cc=" + a.cc)
		if err != nil {
			sens.Rows = append(sens.Rows, []string{a.name, "not available: " + err.Error()})
			continue
		}
		r, err := e3Metrics(run, window)
		if err != nil {
			return nil, fmt.Errorf("minrate=1 %s: %w", a.cc, err)
		}
		s, _ := run.Summary()
		act := "no whole window"
		if r.minActiveOK {
			act = f3(r.minActive)
		}
		sens.Rows = append(sens.Rows, []string{a.name, minRateStr(r), act, f3(r.avgWire), ictStr(r), f3(r.cov), fmt.Sprint(r.cnps), fmt.Sprint(r.pauses), f3(s.RTT.MaxUs), f3(r.lastMs)})
	}
	sec.Tables = append(sec.Tables, sens)
	cost := report.Table{ID: "cost", Title: "Simulation cost (one core)", Columns: []string{"algorithm", "events", "data packets", "wall (s)", "events/s", "ns per data packet"}}
	for _, a := range e3Algs {
		if r := res[a.cc]; r != nil {
			cost.Rows = append(cost.Rows, []string{a.name, fmt.Sprint(r.events), fmt.Sprint(r.dataPkts), fmt.Sprintf("%.3f", r.wall),
				fmt.Sprintf("%.3g", float64(r.events)/r.wall), fmt.Sprintf("%.0f", r.wall*1e9/float64(r.dataPkts))})
		}
	}
	sec.Tables = append(sec.Tables, cost)
	// Figures: receiver link rate and bottleneck queue over time.
	linkFig := report.Figure{ID: "link-rate", Title: "Receiver link wire rate", XLabel: "time (ms)", YLabel: "Gb/s", Step: true}
	qFig := report.Figure{ID: "queue", Title: "Bottleneck queue (max per bin)", XLabel: "time (ms)", YLabel: "queue (MB)", Step: true}
	for i, a := range e3Algs {
		r := res[a.cc]
		if r == nil {
			continue
		}
		var x, y []float64
		for _, b := range r.link {
			x, y = append(x, b.Start/1e6), append(y, b.WireG)
		}
		linkFig.Series = append(linkFig.Series, report.Series{Label: a.name, X: x, Y: y, Style: i + 1})
		x, y = nil, nil
		for _, b := range r.queue {
			x, y = append(x, b.Start/1e6), append(y, b.Max/1e6)
		}
		qFig.Series = append(qFig.Series, report.Series{Label: a.name, X: x, Y: y, Style: i + 1})
	}
	sec.Figures = append(sec.Figures, linkFig, qFig)
	pfcFig := report.Figure{ID: "pfc", Title: "PFC PAUSE frames sent to the senders per ms", XLabel: "time (ms)", YLabel: "PAUSE frames per ms", Step: true}
	for i, a := range e3Algs {
		if res[a.cc] == nil {
			continue
		}
		run, _ := ctx.Run("cc=" + a.cc)
		x, y, err := pausesPerMs(run)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", a.cc, err)
		}
		pfcFig.Series = append(pfcFig.Series, report.Series{Label: a.name, X: x, Y: y, Style: i + 1})
	}
	sec.Figures = append(sec.Figures, pfcFig)
	if run, err := ctx.Run("cc=dcqcnp"); err == nil {
		fig, err := senderRates(run, "DCQCN-p: throughput of four senders (per-flow throughput over time)")
		if err != nil {
			return nil, err
		}
		sec.Figures = append(sec.Figures, fig)
	}

	claims := map[string]report.Claim{}
	for _, a := range e3Algs {
		r := res[a.cc]
		if r == nil {
			continue
		}
		claims["minrate-"+a.cc] = report.Claim{CCSimValue: minRateStr(r)}
		claims["avgtput-"+a.cc] = report.Claim{CCSimValue: f3(r.avgWire), Note: fmt.Sprintf("payload %.4g Gb/s", r.avgPay)}
		claims["ict-"+a.cc] = report.Claim{CCSimValue: ictStr(r), Note: r.ictState}
		claims["cov-"+a.cc] = report.Claim{CCSimValue: f3(r.cov), Note: fmt.Sprintf("over the first %.3g ms", r.covIntervalMs)}
	}
	dp, dq, dt, dc := res["dcqcnp"], res["dcqcn"], res["timely"], res["dctcp"]
	if dp != nil && dq != nil && dt != nil && dc != nil && dp.minOK && dq.minOK && dt.minOK && dc.minOK {
		pct := func(a, b float64) float64 { return 100 * (a/b - 1) }
		claims["minrate-order"] = report.Verdict(fmt.Sprintf("%+.0f / %+.0f / %+.0f", pct(dp.minRate, dq.minRate), pct(dp.minRate, dt.minRate), pct(dp.minRate, dc.minRate)),
			dp.minRate > dq.minRate && dp.minRate > dt.minRate && dp.minRate > dc.minRate, "")
	}
	if dp != nil && dt != nil && dc != nil {
		claims["cov-order"] = report.Verdict(fmt.Sprintf("%.3g vs %.3g / %.3g", dp.cov, dt.cov, dc.cov), dp.cov < dt.cov && dp.cov < dc.cov, "")
	}
	if dp != nil && dq != nil {
		claims["fairer-than-dcqcn"] = report.Verdict(fmt.Sprintf("%.3g vs %.3g", dp.cov, dq.cov), dp.cov < dq.cov, "")
		claims["events"] = report.Claim{CCSimValue: fmt.Sprint(dp.cnps - dq.cnps), Note: fmt.Sprintf("CNPs %d vs %d; rate decreases %d vs %d", dp.cnps, dq.cnps, dp.cuts, dq.cuts)}
		claims["events-order"] = report.Verdict(fmt.Sprintf("%d vs %d CNPs", dp.cnps, dq.cnps), dp.cnps > dq.cnps, "")
	}
	sec.Claims = ctx.Claims(claims)
	if run, err := ctx.Run("cc=dcqcnp"); err == nil {
		if recs, err := run.Flows(); err == nil {
			qps := float64(len(recs))
			share := 25e9 / qps
			gap := float64(payloadOf(run)+48) * 8 / share
			sec.Notes = append(sec.Notes,
				fmt.Sprintf("Why every algorithm ends up PFC-bound here: %d QPs share the 25 Gb/s link, %.3g Mb/s each, so one QP sends a packet every %.3g ms and can receive a congestion notification at most that often, while the rate-increase timers of DCQCN and DCQCN-p fire every 55 µs (%.0f increase events per possible notification). The floor of 100 Mb/s per QP also keeps the offered load at %.0f Gb/s or more. The 32 MiB buffer fills, PFC paces the senders, and the switch's round robin over its 80 ingress ports gives every sender the same share: hence the tiny fairness CoV (the same under every algorithm) and an incast episode as long as the transfer.", int(qps), share/1e6, gap*1e3, gap/55e-6, qps*0.1),
				"The minimum rate over the whole transfer is set by its tail: when the last flows are left, their QPs sit at low rates after many cuts and recover in several timer periods (DCQCN-p's additive step starts only after F = 5 events), so the link idles in the last windows. While all senders are active every algorithm keeps the link full (second row).",
				"The paper's Table 4 values (minimum rates of 9–13 Gb/s, incast completion in 0.2–5 ms, CoV of 15–216 %) imply a network in which rate control, not PFC, decides the shares; with the setup as the paper describes it (4,000 QPs, a 25 Gb/s bottleneck, a 32 MiB buffer, PFC) ccsim finds PFC in control for hundreds of milliseconds. The sensitivity runs show that a 1 Mb/s floor does not change this.")
		}
	}
	if len(errs) > 0 {
		sec.Notes = append(sec.Notes, "runs missing: "+fmt.Sprint(errs))
	}
	return sec, nil
}

func minRateStr(r *e3Result) string {
	if !r.minOK {
		return "no whole window"
	}
	return f3(r.minRate)
}

func ictStr(r *e3Result) string {
	switch r.ictState {
	case "ok":
		return fmt.Sprintf("%.0f", r.ict/1e3)
	case "never drained":
		return fmt.Sprintf("> %.0f", r.ict/1e3)
	}
	return r.ictState
}

func e3Metrics(run *experiment.RunRef, window float64) (*e3Result, error) {
	sum, err := run.Summary()
	if err != nil {
		return nil, err
	}
	recs, err := run.Flows()
	if err != nil {
		return nil, err
	}
	snd := senderFlows(recs)
	last := sum.Summary.LastFinishNs
	r := &e3Result{cnps: sum.Congestion.CNPs, cuts: sum.Congestion.RateCuts, pauses: sum.PFC.PauseFrames,
		pausedMs: sum.PFC.PausedUs / 1e3, events: sum.Events, wall: sum.WallSeconds, lastMs: last / 1e6}
	for _, f := range recs {
		r.dataPkts += (f.SizeBytes + int64(payloadOf(run)) - 1) / int64(payloadOf(run))
	}
	if r.link, err = receiverLink(run); err != nil {
		return nil, err
	}
	r.minRate, r.minOK = minRate(r.link, window, last)
	firstDone := last
	for _, s := range snd {
		if s.FCT > 0 {
			firstDone = min(firstDone, (s.Start + s.FCT).Nanoseconds())
		}
	}
	r.minActive, r.minActiveOK = minRate(r.link, window, firstDone)
	r.avgWire, r.avgPay = meanRate(r.link, last)
	if r.queue, err = bottleneckQueue(run); err != nil {
		return nil, err
	}
	r.ict, r.ictState = incastCompletion(r.queue)
	cov, iv, err := fairnessCoV(run, snd)
	if err != nil {
		return nil, err
	}
	r.cov, r.covIntervalMs = cov, iv/1e6
	return r, nil
}

func payloadOf(run *experiment.RunRef) int {
	if run.Scenario != nil {
		return run.Scenario.Host.PayloadBytes
	}
	return 1024
}

// pausesPerMs sums the PAUSE frames of every link per millisecond.
func pausesPerMs(run *experiment.RunRef) (x, y []float64, err error) {
	t, err := run.Table("pfc_bins.csv")
	if err != nil {
		return nil, nil, err
	}
	v, err := t.FloatCols("bin_start_ns", "pause_frames")
	if err != nil {
		return nil, nil, err
	}
	start, n := v[0], v[1]
	per := map[int]float64{}
	last := 0
	for k := range start {
		ms := int(start[k] / 1e6)
		per[ms] += n[k]
		last = max(last, ms)
	}
	for ms := 0; ms <= last; ms++ {
		x, y = append(x, float64(ms)), append(y, per[ms])
	}
	return x, y, nil
}

// senderRates plots the delivered rate of senders 0 (150 MB), 1 (200 MB),
// 3 (10 MB) and 20 (5 MB) over time.
func senderRates(run *experiment.RunRef, title string) (report.Figure, error) {
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
		fig.Series = append(fig.Series, report.Series{Label: fmt.Sprintf("sender %d (%s)", sid, []string{"150 MB", "200 MB", "10 MB", "5 MB"}[i]), X: x, Y: y, Style: i + 1})
	}
	return fig, nil
}
