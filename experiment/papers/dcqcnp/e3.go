package dcqcnp

// E3: DCQCN-p against DCQCN, TIMELY and DCTCP on the 80-to-1 incast with
// 4,000 QPs (the paper's Table 4), and Table 4's metrics as ccsim
// interprets them (docs/metrics.md, paper 004).

import (
	"fmt"
	"math"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/report"
)

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

// sensAlgs are the algorithms of the sensitivity runs: the DCQCN reaction
// points with a 1 Mb/s floor, far below the 6.25 Mb/s fair share of 4,000
// QPs on 25 Gb/s.
var sensAlgs = experiment.Algs{algs[0], algs[3]}

func e3Runs(sc experiment.Scale) []experiment.RunSpec {
	runs := experiment.Sweep{Base: base, Patch: scalePatch(sc), CC: algs.CCs(), CCPatch: e3CCPatch}.Expand()
	low := map[string]map[string]any{}
	for _, cc := range sensAlgs.CCs() {
		low[cc] = experiment.Merge(e3CCPatch[cc], map[string]any{"params": map[string]any{cc: map[string]any{"min_rate_mbps": 1}}})
	}
	return append(runs, experiment.Sweep{Base: base, Patch: scalePatch(sc), CC: sensAlgs.CCs(), CCPatch: low,
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
	for _, a := range algs {
		t := table4[a.CC]
		claims = append(claims,
			experiment.Claim{ID: "minrate-" + a.CC, Description: a.Name + ": minimum rate of the bottleneck link", PaperValue: fmt.Sprint(t.minRate), Unit: "Gb/s"},
			experiment.Claim{ID: "avgtput-" + a.CC, Description: a.Name + ": average throughput of the bottleneck link", PaperValue: fmt.Sprint(t.avgTput), Unit: "Gb/s"},
			experiment.Claim{ID: "ict-" + a.CC, Description: a.Name + ": incast completion time", PaperValue: fmt.Sprint(t.ict), Unit: "µs"},
			experiment.Claim{ID: "cov-" + a.CC, Description: a.Name + ": fairness \"variance\" (CoV of per-sender throughput)", PaperValue: fmt.Sprint(t.cov), Unit: "%"},
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

// analyzeE3 reads the four runs of Table 4 and the two sensitivity runs
// and builds the section: Table 4 beside the paper, the sensitivity and
// cost tables, the time-series figures, the claims and the notes on why
// PFC decides this incast.
func analyzeE3(ctx *experiment.Context) (*report.Section, error) {
	window := windowUs(ctx.Scale) * 1e3
	res, errs, err := readE3(ctx, window)
	if err != nil {
		return nil, err
	}
	sens, err := sensitivityTable(ctx, window)
	if err != nil {
		return nil, err
	}
	sec := &report.Section{Tables: []report.Table{table4Table(res), sens, costTable(res)}}
	if sec.Figures, err = e3Figures(ctx, res); err != nil {
		return nil, err
	}
	sec.Claims = ctx.Claims(e3Verdicts(res))
	sec.Notes = e3Notes(ctx)
	if len(errs) > 0 {
		sec.Notes = append(sec.Notes, "runs missing: "+fmt.Sprint(errs))
	}
	return sec, nil
}

// readE3 reads the metrics of each algorithm's run; a run that is missing
// is listed in errs, a run whose files cannot be read is an error.
func readE3(ctx *experiment.Context, window float64) (res map[string]*e3Result, errs []string, err error) {
	res = map[string]*e3Result{}
	for _, a := range algs {
		run, err := ctx.Run("cc=" + a.CC)
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		r, err := e3Metrics(run, window)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", a.CC, err)
		}
		res[a.CC] = r
	}
	if len(res) == 0 {
		return nil, nil, fmt.Errorf("no run finished: %v", errs)
	}
	return res, errs, nil
}

// table4Table is Table 4, the paper's value beside ccsim's for each
// algorithm, with ccsim's extra rows.
func table4Table(res map[string]*e3Result) report.Table {
	t4 := report.Table{ID: "table4", Title: "Table 4 — paper | ccsim", Columns: []string{"metric"}}
	for _, a := range algs {
		t4.Columns = append(t4.Columns, a.Name+" paper", a.Name+" ccsim")
	}
	row := func(name string, paper func(string) string, ours func(*e3Result) string) {
		r := []string{name}
		for _, a := range algs {
			v := "—"
			if x := res[a.CC]; x != nil {
				v = ours(x)
			}
			r = append(r, paper(a.CC), v)
		}
		t4.Rows = append(t4.Rows, r)
	}
	p := func(f func(string) float64) func(string) string {
		return func(cc string) string { return fmt.Sprint(f(cc)) }
	}
	none := func(string) string { return "" }
	row("minimum rate (Gb/s)", p(func(cc string) float64 { return table4[cc].minRate }), func(r *e3Result) string { return minRateStr(r) })
	row("minimum rate while all senders are active (Gb/s)", none, func(r *e3Result) string { return minActiveStr(r) })
	row("average throughput, wire (Gb/s)", p(func(cc string) float64 { return table4[cc].avgTput }), func(r *e3Result) string { return experiment.G4(r.avgWire) })
	row("average throughput, payload (Gb/s)", none, func(r *e3Result) string { return experiment.G4(r.avgPay) })
	row("incast completion time (µs)", p(func(cc string) float64 { return table4[cc].ict }), func(r *e3Result) string { return ictStr(r) })
	row("fairness CoV (%)", p(func(cc string) float64 { return table4[cc].cov }), func(r *e3Result) string { return experiment.G4(r.cov) })
	row("congestion events: CNPs received", none, func(r *e3Result) string { return fmt.Sprint(r.cnps) })
	row("rate decreases", none, func(r *e3Result) string { return fmt.Sprint(r.cuts) })
	row("PFC pause frames", none, func(r *e3Result) string { return fmt.Sprint(r.pauses) })
	row("last flow done (ms)", none, func(r *e3Result) string { return experiment.G4(r.lastMs) })
	return t4
}

// sensitivityTable shows the DCQCN reaction points with a 1 Mb/s floor.
func sensitivityTable(ctx *experiment.Context, window float64) (report.Table, error) {
	sens := report.Table{ID: "minrate1", Title: "Sensitivity: DCQCN and DCQCN-p with a 1 Mb/s minimum rate (instead of 100 Mb/s)",
		Columns: []string{"algorithm", "minimum rate (Gb/s)", "min. rate, all senders active (Gb/s)", "average throughput, wire (Gb/s)", "incast completion time (µs)", "fairness CoV (%)", "CNPs", "PFC pauses", "max RTT (µs)", "last flow done (ms)"}}
	for _, a := range sensAlgs {
		run, err := ctx.Run("minrate=1 cc=" + a.CC)
		if err != nil {
			sens.Rows = append(sens.Rows, []string{a.Name, "not available: " + err.Error()})
			continue
		}
		r, err := e3Metrics(run, window)
		if err != nil {
			return sens, fmt.Errorf("minrate=1 %s: %w", a.CC, err)
		}
		s, _ := run.Summary()
		sens.Rows = append(sens.Rows, []string{a.Name, minRateStr(r), minActiveStr(r), experiment.G4(r.avgWire), ictStr(r), experiment.G4(r.cov), fmt.Sprint(r.cnps), fmt.Sprint(r.pauses), experiment.G4(s.RTT.MaxUs), experiment.G4(r.lastMs)})
	}
	return sens, nil
}

// costTable is the simulation cost of each algorithm's run.
func costTable(res map[string]*e3Result) report.Table {
	cost := report.Table{ID: "cost", Title: "Simulation cost (one core)", Columns: []string{"algorithm", "events", "data packets", "wall (s)", "events/s", "ns per data packet"}}
	for _, a := range algs {
		if r := res[a.CC]; r != nil {
			cost.Rows = append(cost.Rows, []string{a.Name, fmt.Sprint(r.events), fmt.Sprint(r.dataPkts), fmt.Sprintf("%.3f", r.wall),
				experiment.EventsPerSecond(r.events, r.wall), fmt.Sprintf("%.0f", r.wall*1e9/float64(r.dataPkts))})
		}
	}
	return cost
}

// e3Figures are the receiver link's rate, the bottleneck queue and the
// PAUSE frames over time for every algorithm, and four DCQCN-p senders'
// throughput.
func e3Figures(ctx *experiment.Context, res map[string]*e3Result) ([]report.Figure, error) {
	linkFig := report.Figure{ID: "link-rate", Title: "Receiver link wire rate", XLabel: "time (ms)", YLabel: "Gb/s", Step: true}
	qFig := report.Figure{ID: "queue", Title: "Bottleneck queue (max per bin)", XLabel: "time (ms)", YLabel: "queue (MB)", Step: true}
	for i, a := range algs {
		r := res[a.CC]
		if r == nil {
			continue
		}
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
	}
	figs := []report.Figure{linkFig, qFig}
	pfcFig := report.Figure{ID: "pfc", Title: "PFC PAUSE frames sent to the senders per ms", XLabel: "time (ms)", YLabel: "PAUSE frames per ms", Step: true}
	for i, a := range algs {
		if res[a.CC] == nil {
			continue
		}
		run, _ := ctx.Run("cc=" + a.CC)
		x, y, err := pausesPerMs(run)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", a.CC, err)
		}
		pfcFig.Series = append(pfcFig.Series, report.Series{Label: a.Name, X: x, Y: y, Style: i + 1})
	}
	figs = append(figs, pfcFig)
	if run, err := ctx.Run("cc=dcqcnp"); err == nil {
		fig, err := senderRates(run, "DCQCN-p: throughput of four senders (per-flow throughput over time)")
		if err != nil {
			return nil, err
		}
		figs = append(figs, fig)
	}
	return figs, nil
}

// e3Verdicts evaluates Table 4's values and the paper's orderings from the
// runs that finished.
func e3Verdicts(res map[string]*e3Result) map[string]report.Claim {
	claims := map[string]report.Claim{}
	for _, a := range algs {
		r := res[a.CC]
		if r == nil {
			continue
		}
		claims["minrate-"+a.CC] = report.Claim{CCSimValue: minRateStr(r)}
		claims["avgtput-"+a.CC] = report.Claim{CCSimValue: experiment.G4(r.avgWire), Note: fmt.Sprintf("payload %.4g Gb/s", r.avgPay)}
		claims["ict-"+a.CC] = report.Claim{CCSimValue: ictStr(r), Note: r.ictState}
		claims["cov-"+a.CC] = report.Claim{CCSimValue: experiment.G4(r.cov), Note: fmt.Sprintf("over the first %.3g ms", r.covIntervalMs)}
	}
	dp, dq, dt, dc := res["dcqcnp"], res["dcqcn"], res["timely"], res["dctcp"]
	if dp != nil && dq != nil && dt != nil && dc != nil && dp.minOK && dq.minOK && dt.minOK && dc.minOK {
		pct := experiment.Pct
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
	return claims
}

// e3Notes explain, from DCQCN-p's run, why PFC and not the rate control
// decides the shares (none when that run is missing).
func e3Notes(ctx *experiment.Context) []string {
	run, err := ctx.Run("cc=dcqcnp")
	if err != nil {
		return nil
	}
	recs, err := run.Flows()
	if err != nil {
		return nil
	}
	qps := float64(len(recs))
	share := 25e9 / qps
	gap := float64(payloadOf(run)+48) * 8 / share
	return []string{
		fmt.Sprintf("Why every algorithm ends up PFC-bound here: %d QPs share the 25 Gb/s link, %.3g Mb/s each, so one QP sends a packet every %.3g ms and can receive a congestion notification at most that often, while the rate-increase timers of DCQCN and DCQCN-p fire every 55 µs (%.0f increase events per possible notification). The floor of 100 Mb/s per QP also keeps the offered load at %.0f Gb/s or more. The 32 MiB buffer fills, PFC paces the senders, and the switch's round robin over its 80 ingress ports gives every sender the same share: hence the tiny fairness CoV (the same under every algorithm) and an incast episode as long as the transfer.", int(qps), share/1e6, gap*1e3, gap/55e-6, qps*0.1),
		"The minimum rate over the whole transfer is set by its tail: when the last flows are left, their QPs sit at low rates after many cuts and recover in several timer periods (DCQCN-p's additive step starts only after F = 5 events), so the link idles in the last windows. While all senders are active every algorithm keeps the link full (second row).",
		"The paper's Table 4 values (minimum rates of 9–13 Gb/s, incast completion in 0.2–5 ms, CoV of 15–216 %) imply a network in which rate control, not PFC, decides the shares; with the setup as the paper describes it (4,000 QPs, a 25 Gb/s bottleneck, a 32 MiB buffer, PFC) ccsim finds PFC in control for hundreds of milliseconds. The sensitivity runs show that a 1 Mb/s floor does not change this.",
	}
}

func minRateStr(r *e3Result) string {
	if !r.minOK {
		return "no whole window"
	}
	return experiment.G4(r.minRate)
}

func minActiveStr(r *e3Result) string {
	if !r.minActiveOK {
		return "no whole window"
	}
	return experiment.G4(r.minActive)
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

// windowUs is the window of the minimum-rate metric at a scale.
func windowUs(sc experiment.Scale) float64 { return experiment.AtScale(sc, 10.0, 100.0) }

// linkBin is one bin of link_rate.csv for the receiver's link.
type linkBin struct {
	Start, Len     float64 // ns
	Wire, Payload  int64   // bytes
	WireG, PayLoad float64 // Gb/s
}

func receiverLink(run *experiment.RunRef) ([]linkBin, error) {
	t, err := run.Table("link_rate.csv")
	if err != nil {
		return nil, err
	}
	v, err := t.FloatCols("bin_start_ns", "bin_ns", "node", "port", "wire_bytes", "payload_bytes", "wire_gbps", "payload_gbps")
	if err != nil {
		return nil, err
	}
	var out []linkBin
	for k := range t.Rows {
		if v[2][k] != switchID || v[3][k] != recvPort {
			continue
		}
		out = append(out, linkBin{Start: v[0][k], Len: v[1][k], Wire: int64(v[4][k]), Payload: int64(v[5][k]), WireG: v[6][k], PayLoad: v[7][k]})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("link_rate.csv has no rows of switch %d port %d", switchID, recvPort)
	}
	return out, nil
}

// queueBin is one bin of queue_series.csv for the bottleneck port.
type queueBin struct {
	Start          float64 // ns
	Min, Mean, Max float64 // bytes
}

func bottleneckQueue(run *experiment.RunRef) ([]queueBin, error) {
	t, err := run.Table("queue_series.csv")
	if err != nil {
		return nil, err
	}
	v, err := t.FloatCols("bin_start_ns", "node", "port", "min_bytes", "mean_bytes", "max_bytes")
	if err != nil {
		return nil, err
	}
	var out []queueBin
	for k := range t.Rows {
		if v[1][k] == switchID && v[2][k] == recvPort {
			out = append(out, queueBin{Start: v[0][k], Min: v[3][k], Mean: v[4][k], Max: v[5][k]})
		}
	}
	return out, nil
}

// minRate is the minimum over whole windows of the receiver link's wire
// rate, after the first window and before the last flow finishes
// (docs/metrics.md, paper 004 "minimum rate"); ok is false when there is
// no such window.
func minRate(bins []linkBin, window float64, lastFinishNs float64) (gbps float64, ok bool) {
	gbps = math.Inf(1)
	for _, b := range bins {
		if b.Len < window || b.Start < window || b.Start+b.Len > lastFinishNs {
			continue
		}
		gbps = min(gbps, b.WireG)
		ok = true
	}
	return gbps, ok
}

// meanRate is the receiver link's mean wire and payload rate from the
// first flow start to the last flow finish.
func meanRate(bins []linkBin, lastFinishNs float64) (wire, payload float64) {
	var w, p int64
	for _, b := range bins {
		if b.Start < lastFinishNs {
			w += b.Wire
			p += b.Payload
		}
	}
	return float64(w) * 8 / lastFinishNs, float64(p) * 8 / lastFinishNs
}

// kminBytes is the paper's K_min, 100 KiB (§3.1): the bottleneck queue
// falling below it ends the incast episode.
const kminBytes = 100 << 10

// incastCompletion is the time from the synchronous start until the
// bottleneck queue first drains below K_min after exceeding it (paper
// 004's "incast completion time", interpreted). state says "ok", "never
// congested" (0) or "never drained" (the end of the samples).
func incastCompletion(q []queueBin) (ns float64, state string) {
	exceeded := false
	for _, b := range q {
		if !exceeded {
			// the episode starts in the first bin in which the queue
			// reached K_min; it ends in the first later bin that holds a
			// sample below K_min
			exceeded = b.Max >= kminBytes
			continue
		}
		if b.Min < kminBytes {
			return b.Start, "ok"
		}
	}
	if !exceeded {
		return 0, "never congested"
	}
	if len(q) == 0 {
		return 0, "no samples"
	}
	return q[len(q)-1].Start, "never drained"
}

// fairnessCoV is the coefficient of variation (std/mean, population) of
// the senders' throughput over the interval in which all are active: from
// the start until the first sender completes (whole flow-rate bins only).
func fairnessCoV(run *experiment.RunRef, senders []senderFlow) (cov float64, intervalNs float64, err error) {
	first := math.Inf(1) // ns
	for _, s := range senders {
		if s.FCT > 0 {
			first = min(first, (s.Start + s.FCT).Nanoseconds())
		}
	}
	t, err := run.Table("flow_rate.csv")
	if err != nil {
		return 0, 0, err
	}
	v, err := t.FloatCols("bin_start_ns", "bin_ns", "src", "bytes")
	if err != nil {
		return 0, 0, err
	}
	start, length, src, bytes := v[0], v[1], v[2], v[3]
	per := map[int]float64{}
	end := 0.0
	for k := range start {
		if start[k]+length[k] <= first {
			per[int(src[k])] += bytes[k]
			end = max(end, start[k]+length[k])
		}
	}
	if end == 0 || len(per) == 0 {
		return 0, 0, fmt.Errorf("no whole flow-rate bin before the first sender finished (%.0f ns)", first)
	}
	var xs []float64
	for _, s := range senders {
		xs = append(xs, per[s.Src]*8/end)
	}
	mean, sd := meanSD(xs)
	return 100 * sd / mean, end, nil
}

func meanSD(xs []float64) (mean, sd float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		sd += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(sd / float64(len(xs)))
}
