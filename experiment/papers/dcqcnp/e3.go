package dcqcnp

// E3: DCQCN-p against DCQCN, TIMELY and DCTCP on the 80-to-1 incast (the
// paper's Table 4 and the text around it), with Table 4's metrics as ccsim
// interprets them (docs/metrics.md §13, docs/reproduce.md paper 004).

import (
	"fmt"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/report"
)

// paperECN is the switch marking of the paper's NS-3 runs (§3.1): K_min
// 100 KiB, K_max 400 KiB, P_max 0.1 on every port speed.
var paperECN = []any{
	map[string]any{"link_gbps": 25, "kmin_kb": 102.4, "kmax_kb": 409.6, "pmax": 0.1},
	map[string]any{"link_gbps": 100, "kmin_kb": 102.4, "kmax_kb": 409.6, "pmax": 0.1},
}

// e3CCPatch configures each algorithm. DCQCN is the reaction point the
// paper restates (§1, Table 3; docs/algorithms/dcqcnp.md §6): the DCQCN
// paper's (canonical mode: a cut per CNP, α and increase timers of 55 µs,
// byte counter 10 MiB, F = 5, additive once a counter is greater than F
// — "大于 F", ai_threshold_strict —, g = 1/256, R_AI 40 Mb/s, R_HAI 200
// Mb/s) with a CNP at most every 50 µs per flow, a 100 Mb/s minimum rate,
// and the paper's switch marking. DCQCN-p: its defaults with a CNP per
// marked packet. TIMELY and DCTCP: their reference presets (the paper
// gives no parameters), TIMELY with the paper's switch marking.
var e3CCPatch = map[string]map[string]any{
	"dcqcn": {
		"params": map[string]any{"dcqcn": map[string]any{
			"mode": "canonical", "alpha_resume_interval_us": 55, "rp_timer_us": 55, "byte_counter_bytes": 10 << 20,
			"g": 1.0 / 256, "fast_recovery_times": 5, "ai_threshold_strict": true, "rate_ai_mbps": 40, "rate_hai_mbps": 200, "min_rate_mbps": 100}},
		"host":   map[string]any{"cnp_interval_us": 50},
		"switch": map[string]any{"ecn_rules": paperECN},
	},
	"dcqcnp": {"params": map[string]any{"dcqcnp": dcqcnpParams}},
	"timely": {"switch": map[string]any{"ecn_rules": paperECN}},
}

func e3Runs(sc experiment.Scale) []experiment.RunSpec {
	return experiment.Sweep{Base: base, Patch: scalePatch(sc), CC: algs.CCs(), CCPatch: e3CCPatch, Seeds: experiment.Seeds(sc)}.Expand()
}

// Table 4 of the paper (minimum rate, average throughput, incast
// completion time) and the fairness "variance" of §3.2's text, by
// algorithm.
var table4 = map[string]struct{ minRate, avgTput, ict, cov float64 }{
	"dcqcn":  {10.76, 18.74, 5000, 15},
	"timely": {8.95, 23.48, 200, 216},
	"dctcp":  {10.78, 25.08, 1400, 191},
	"dcqcnp": {13.28, 23.69, 479, 65},
}

// minRateUp are §3.2's "分别增长了 24%、48%、23%": DCQCN-p's minimum rate
// above each algorithm's (%).
var minRateUp = map[string]float64{"dcqcn": 24, "timely": 48, "dctcp": 23}

func e3() *experiment.Experiment {
	return &experiment.Experiment{
		ID:       "e3",
		Title:    "DCQCN-p vs DCQCN, TIMELY and DCTCP on the 80-to-1 incast (Table 4)",
		SetupAt:  e3Setup,
		Claims:   e3Claims(),
		Readings: incastReadings(),
		Checks:   incastChecks(),
		Runs:     e3Runs,
		Analyze:  analyzeE3,
	}
}

func e3Setup(sc experiment.Scale) string {
	win := experiment.AtScale(sc, "10 µs", "100 µs")
	qbin := experiment.AtScale(sc, "1 µs", "10 µs")
	s := incastSetup(sc) + `

At PMTU 1,024 B, once per algorithm (the paper: "使用 4 000 个调度流", using 4,000 scheduled flows — in the primary reading the NIC's capacity of §2.2, not 4,000 active QPs; reading qp4000 runs 4,000 QPs). DCQCN-p: its defaults (g = 1/16, R_ai = 0.2, R_hai = 0.8, F = 5, time threshold 55 µs, byte threshold 10 MiB, D = 4 µs, U = 55 µs, 512-entry CAM per NIC), a CNP per marked packet, minimum rate 100 Mb/s. DCQCN: the paper's Table 3 and §1 — the DCQCN paper's reaction point (a cut per CNP; α and rate-increase timers 55 µs; byte counter 10 MiB; F = 5 with additive increase once a counter is greater than F, "大于 F"; g = 1/256; R_AI = 40 Mb/s, R_HAI = 200 Mb/s), a CNP at most every 50 µs per flow, minimum rate 100 Mb/s. TIMELY and DCTCP: ccsim's reference presets (the paper gives no parameters). Switch marking K_min 100 KiB, K_max 400 KiB, P_max 0.1 for DCQCN, DCQCN-p and TIMELY; DCTCP keeps its step marking. The rate floor's sensitivity (1 Mb/s, 1 Gb/s) is experiment e3floor.

Table 4's metrics are undefined in the paper; ccsim's interpretations (docs/metrics.md §13): minimum rate = the minimum over whole ` + win + ` windows, after the first window and while at least 2 senders are unfinished (the incast is many-to-one: a criterion of the workload, not of the algorithm), of the receiver link's wire rate (bytes the switch put on the link, headers included; shown beside: while all senders are active, and to the last completion); average throughput = that link's wire bytes over the time from the start to the last sender's completion (payload rate shown beside it); incast completion time = the time until the bottleneck queue, having reached K_min, first falls below it again (queue sampled every 1 µs, bins of ` + qbin + `) — the transfer itself needs hundreds of milliseconds, so the paper's 0.2–5 ms cannot be completion times (see the findings); fairness "variance" = the coefficient of variation (population std / mean) of the 80 flows' throughput over the whole run, each flow's bytes over its completion time (an unfinished flow censored at the run's end) — the paper's metric as stated, whose value under ideal sharing is not 0 (an extra table normalises it by each flow's fair share, without verdicts); congestion events = rate decreases (CNPs shown beside). Magnitudes are decided within the paper's tolerance (±25 %).`
	if sc == experiment.ScaleQuick {
		s += ` At quick scale the whole transfer lasts about 0.35 ms and its runs only exercise the pipeline: their numbers say nothing about the algorithms.`
	}
	return s
}

// e3Claims are Table 4's entries and the statements of §3.2, the abstract
// and §4, typed: Table 4's numbers that the text never states are Number
// (n/a); those it states are magnitudes.
func e3Claims() []experiment.Claim {
	var cs []experiment.Claim
	for _, a := range algs {
		t := table4[a.CC]
		c := []experiment.Claim{
			{ID: "minrate-" + a.CC, Description: a.Name + ": minimum rate of the bottleneck link (Table 4)", PaperValue: fmt.Sprint(t.minRate), Unit: "Gb/s", Kind: experiment.Number},
			{ID: "avgtput-" + a.CC, Description: a.Name + ": average throughput of the bottleneck link (Table 4; never discussed in the text)", PaperValue: fmt.Sprint(t.avgTput), Unit: "Gb/s", Kind: experiment.Number},
			{ID: "ict-" + a.CC, Description: a.Name + ": incast completion time (Table 4; impossible as a transfer completion time, see the findings)", PaperValue: fmt.Sprint(t.ict), Unit: "µs", Kind: experiment.Number},
			{ID: "cov-" + a.CC, Description: a.Name + ": fairness \"variance\" (§3.2: \"公平性方差\"; CoV of per-flow throughput over the whole run)", PaperValue: fmt.Sprint(t.cov), Unit: "%",
				Kind: experiment.Magnitude, Mag: experiment.MagValue, Paper: t.cov},
		}
		if a.CC == "dcqcnp" {
			c[0] = experiment.Claim{ID: c[0].ID, Description: "DCQCN-p: minimum rate on the link (abstract, §3.2, §4: \"最小速率为 13.28 Gbit/s\")", PaperValue: "13.28", Unit: "Gb/s",
				Kind: experiment.Magnitude, Mag: experiment.MagValue, Paper: 13.28}
			c[2] = experiment.Claim{ID: c[2].ID, Description: "DCQCN-p: incast completion time (§4: \"incast 完成时延为 479 μs\"; against ccsim's interpretation of an undefined metric)", PaperValue: "479", Unit: "µs",
				Kind: experiment.Magnitude, Mag: experiment.MagValue, Paper: 479}
		}
		cs = append(cs, c...)
	}
	for _, a := range algs[:3] {
		cs = append(cs, experiment.Claim{ID: "minrate-vs-" + a.CC, Description: fmt.Sprintf("DCQCN-p's minimum rate is %g %% above %s's (abstract, §3.2: \"分别增长了 24%%、48%%、23%%\")", minRateUp[a.CC], a.Name),
			PaperValue: fmt.Sprintf("+%g", minRateUp[a.CC]), Unit: "%", Kind: experiment.Direction, Rel: experiment.Greater, Mag: experiment.MagValue, Paper: minRateUp[a.CC]})
	}
	return append(cs,
		experiment.Claim{ID: "cov-vs-timely", Description: "DCQCN-p shares the bandwidth more fairly than TIMELY (abstract: 65 % vs 216 %, \"显著的性能提升\")", PaperValue: "65 < 216", Unit: "%", Kind: experiment.Direction, Rel: experiment.Less},
		experiment.Claim{ID: "cov-vs-dctcp", Description: "DCQCN-p shares the bandwidth more fairly than DCTCP (abstract: 65 % vs 191 %)", PaperValue: "65 < 191", Unit: "%", Kind: experiment.Direction, Rel: experiment.Less},
		experiment.Claim{ID: "fairer-than-dcqcn", Description: "§4: compared with DCQCN, DCTCP and TIMELY, DCQCN-p shows a significant improvement, \"公平性方差仅为 65%\" (the paper is inconsistent: its §3.2 gives DCQCN 15 %)", PaperValue: "65 < DCQCN", Unit: "%", Kind: experiment.Direction, Rel: experiment.Less},
		experiment.Claim{ID: "ict-vs-dcqcn", Description: "§4: DCQCN-p improves on DCQCN, incast completion 479 µs (Table 4: DCQCN 5,000 µs)", PaperValue: "479 < 5000", Unit: "µs", Kind: experiment.Direction, Rel: experiment.Less},
		experiment.Claim{ID: "ict-vs-dctcp", Description: "§4: DCQCN-p improves on DCTCP, incast completion 479 µs (Table 4: DCTCP 1,400 µs)", PaperValue: "479 < 1400", Unit: "µs", Kind: experiment.Direction, Rel: experiment.Less},
		experiment.Claim{ID: "ict-vs-timely", Description: "§4: DCQCN-p improves on TIMELY, incast completion 479 µs (the paper is inconsistent: Table 4 gives TIMELY 200 µs)", PaperValue: "479 < TIMELY", Unit: "µs", Kind: experiment.Direction, Rel: experiment.Less},
		experiment.Claim{ID: "events", Description: "DCQCN-p has 3 more congestion events than DCQCN (§3.2: \"多 3 次拥塞次数\"; ccsim: rate decreases, DCQCN-p − DCQCN)", PaperValue: "+3", Unit: "events",
			Kind: experiment.Direction, Rel: experiment.Greater, Mag: experiment.MagValue, Paper: 3},
	)
}

// analyzeE3 reads every algorithm's runs (all seeds) and builds the
// section: Table 4 beside the paper, the fairness and cost tables, the
// figures (first seed), the measures and the findings.
func analyzeE3(ctx *experiment.Context) (*report.Section, error) {
	res, errs, err := readE3(ctx)
	if err != nil {
		return nil, err
	}
	sec := &report.Section{Tables: []report.Table{table4Table(res), fairnessTable(res), costTable(res)}}
	if sec.Figures, err = e3Figures(ctx, res); err != nil {
		return nil, err
	}
	for id, m := range e3Measures(res) {
		ctx.Measure(id, m)
	}
	if sec.Notes, err = e3Notes(ctx, res); err != nil {
		return nil, err
	}
	if len(errs) > 0 {
		sec.Notes = append(sec.Notes, "runs missing: "+fmt.Sprint(errs))
	}
	return sec, nil
}

// readE3 reads the metrics of each algorithm's runs, one per seed; an
// algorithm whose runs are missing is listed in errs, a run whose files
// cannot be read is an error.
func readE3(ctx *experiment.Context) (res map[string][]*e3Result, errs []string, err error) {
	res = map[string][]*e3Result{}
	window := windowUs(ctx.Scale) * 1e3
	for _, a := range algs {
		runs, err := ctx.SeedRuns("cc=" + a.CC)
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		for _, run := range runs {
			r, err := e3Metrics(run, window)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %w", a.CC, err)
			}
			res[a.CC] = append(res[a.CC], r)
		}
	}
	if len(res) == 0 {
		return nil, nil, fmt.Errorf("no run finished: %v", errs)
	}
	return res, errs, nil
}

// sample is one metric of an algorithm's runs over the seeds.
func sample(rs []*e3Result, f func(*e3Result) float64) experiment.Sample {
	s := make(experiment.Sample, len(rs))
	for i, r := range rs {
		s[i] = f(r)
	}
	return s
}

// paired is f of DCQCN-p's and another algorithm's run of the same seed,
// over the seeds.
func paired(dp, x []*e3Result, f func(a, b *e3Result) float64) experiment.Sample {
	s := make(experiment.Sample, min(len(dp), len(x)))
	for i := range s {
		s[i] = f(dp[i], x[i])
	}
	return s
}

var (
	minLoaded = func(r *e3Result) float64 { return r.minLoaded }
	avgWire   = func(r *e3Result) float64 { return r.avgWire }
	ictUs     = func(r *e3Result) float64 { return r.ict / 1e3 }
	covRaw    = func(r *e3Result) float64 { return r.covRaw }
	rateCuts  = func(r *e3Result) float64 { return float64(r.cuts) }
)

// e3Measures measures every claim whose runs finished.
func e3Measures(res map[string][]*e3Result) map[string]experiment.Measure {
	ms := map[string]experiment.Measure{}
	for _, a := range algs {
		rs := res[a.CC]
		if rs == nil {
			continue
		}
		mr, ict, cv := sample(rs, minLoaded), sample(rs, ictUs), sample(rs, covRaw)
		cens := fmt.Sprintf("censored senders %s", cell(sample(rs, func(r *e3Result) float64 { return float64(r.censored) })))
		ms["avgtput-"+a.CC] = experiment.Measure{Text: cell(sample(rs, avgWire)), Note: fmt.Sprintf("wire rate; payload %s Gb/s. The paper's DCTCP value (25.08) exceeds a 25 Gb/s link", cell(sample(rs, func(r *e3Result) float64 { return r.avgPay })))}
		ms["cov-"+a.CC] = experiment.Measure{Mag: []experiment.Sample{cv}, Note: fmt.Sprintf("under ideal sharing %s %%; normalised by the fair share %s %% (extra table); %s",
			cell(sample(rs, func(r *e3Result) float64 { return r.covIdeal })), cell(sample(rs, func(r *e3Result) float64 { return r.covNorm })), cens)}
		ictNote := "the bottleneck queue first below K_min after reaching it; " + rs[0].ictState
		if a.CC == "dcqcnp" {
			ms["minrate-dcqcnp"] = experiment.Measure{Mag: []experiment.Sample{mr}, Note: "windows while ≥ 2 senders are unfinished; " + cens}
			ms["ict-dcqcnp"] = experiment.Measure{Mag: []experiment.Sample{ict}, Note: ictNote}
			continue
		}
		ms["minrate-"+a.CC] = experiment.Measure{Text: cell(mr), Note: "windows while ≥ 2 senders are unfinished; " + cens}
		ms["ict-"+a.CC] = experiment.Measure{Text: cell(ict), Note: ictNote}
	}
	dp := res["dcqcnp"]
	if dp == nil {
		return ms
	}
	direction := func(id string, x []*e3Result, f func(*e3Result) float64, labels []string, note string) {
		ms[id] = experiment.Measure{Values: []experiment.Sample{sample(dp, f), sample(x, f)}, Labels: labels, Note: note}
	}
	for _, a := range algs[:3] {
		x := res[a.CC]
		if x == nil {
			continue
		}
		note := ""
		if a.CC == "dcqcn" {
			note = "Table 4's own ratio is 13.28 / 10.76 − 1 = 23.4 %, printed 24 %"
		}
		ms["minrate-vs-"+a.CC] = experiment.Measure{Values: []experiment.Sample{sample(dp, minLoaded), sample(x, minLoaded)}, Labels: []string{"DCQCN-p", a.Name},
			Mag: []experiment.Sample{paired(dp, x, func(p, q *e3Result) float64 { return experiment.Pct(p.minLoaded, q.minLoaded) })}, Note: note}
		ms["ict-vs-"+a.CC] = experiment.Measure{Values: []experiment.Sample{sample(dp, ictUs), sample(x, ictUs)}, Labels: []string{"DCQCN-p", a.Name}}
	}
	for id, cc := range map[string]string{"cov-vs-timely": "timely", "cov-vs-dctcp": "dctcp", "fairer-than-dcqcn": "dcqcn"} {
		if x := res[cc]; x != nil {
			direction(id, x, covRaw, []string{"DCQCN-p", algs.Name(cc)}, "CoV of per-flow throughput over the whole run (%)")
		}
	}
	if dq := res["dcqcn"]; dq != nil {
		ms["events"] = experiment.Measure{Values: []experiment.Sample{sample(dp, rateCuts), sample(dq, rateCuts)}, Labels: []string{"DCQCN-p", "DCQCN"},
			Mag: []experiment.Sample{paired(dp, dq, func(p, q *e3Result) float64 { return float64(p.cuts - q.cuts) })},
			Note: fmt.Sprintf("rate decreases; CNPs received %s vs %s (DCQCN-p's receiver flags every marked packet, DCQCN's at most one per 50 µs per flow, so CNP counts are not comparable)",
				cell(sample(dp, func(r *e3Result) float64 { return float64(r.cnps) })), cell(sample(dq, func(r *e3Result) float64 { return float64(r.cnps) })))}
	}
	return ms
}
