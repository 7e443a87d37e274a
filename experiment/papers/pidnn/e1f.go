package pidnn

// E1f: LSTM+PID against HPCC, TIMELY and DCTCP on the incast (the paper's
// Table 6).

import (
	"fmt"
	"math"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/report"
)

// e1fAlgs are Table 6's rows in its order.
var e1fAlgs = []string{"pidnn", "hpcc", "timely", "dctcp"}

// paperTable6 is the paper's Table 6 (LSTM+PID's row is Table 5's at
// target 5 µs).
var paperTable6 = map[string]paperRow{
	"pidnn":  paperTarget[5],
	"hpcc":   {4.3223, 16.3949, 4.56, 90.48, math.NaN(), math.NaN()},
	"timely": {11.9797, 15.6302, 102.673, 165.244, math.NaN(), math.NaN()},
	"dctcp":  {14.6578, 17.4700, 28.054, 86.32, math.NaN(), math.NaN()},
}

func e1f() *experiment.Experiment {
	return &experiment.Experiment{
		ID:    "e1f",
		Title: "LSTM+PID against HPCC, TIMELY and DCTCP on the incast (Table 6)",
		Setup: e1Setup + "\n\nRuns: pidnn (rtt_target 5 µs), hpcc, timely and dctcp with their reference presets (TIMELY's gradient normaliser min_rtt_us = 20 µs, the paper's \"20 µs gradient unit\"). The paper ranks congestion control quality HPCC > LSTM+PID > DCTCP ≈ TIMELY; ccsim tests the ranking by both P99 RTT and mean RTT: HPCC below LSTM+PID, and LSTM+PID below both DCTCP and TIMELY (DCTCP ≈ TIMELY is not tested).",
		Claims: []experiment.Claim{
			{ID: "ranking", Description: "HPCC > LSTM+PID > DCTCP, TIMELY by P99 RTT and by mean RTT (lower is better)", PaperValue: "yes", Verdict: true},
			{ID: "pidnn-max-lowest", Description: "LSTM+PID has the lowest max RTT (it starts at 10 Gb/s, the others at line rate)", PaperValue: "21.144 vs 90.48, 165.244, 86.32", Unit: "µs", Verdict: true},
			{ID: "pidnn-rate-highest", Description: "LSTM+PID has the highest RATE_mean", PaperValue: "21.18 vs 16.39, 15.63, 17.47", Unit: "Gb/s", Verdict: true},
			{ID: "hpcc-p99", Description: "HPCC's P99 RTT", PaperValue: "4.56", Unit: "µs"},
		},
		Runs: func(sc experiment.Scale) []experiment.RunSpec {
			runs := []experiment.RunSpec{e1Run(sc, "pidnn", 5)}
			for _, c := range e1fAlgs[1:] {
				runs = append(runs, e1Run(sc, c, 0))
			}
			return runs
		},
		Analyze: analyzeE1f,
	}
}

// analyzeE1f reads the four runs: Table 6 beside the paper and the
// ranking claims.
func analyzeE1f(ctx *experiment.Context) (*report.Section, error) {
	res := map[string]*e1Result{}
	for _, c := range e1fAlgs {
		tg := 0.0
		if c == "pidnn" {
			tg = 5
		}
		r, err := readE1(ctx, keyOf(c, tg))
		if err != nil {
			return nil, err
		}
		res[c] = r
	}
	sec := &report.Section{}
	t := report.Table{ID: "table6", Title: "Table 6 — LSTM+PID, HPCC, TIMELY, DCTCP, ccsim beside the paper", Columns: append([]string{"algorithm", "source", "RTT samples"}, e1Cols...)}
	for _, c := range e1fAlgs {
		t.Rows = append(t.Rows, append([]string{algs.Name(c), "ccsim", fmt.Sprint(res[c].samples)}, rowCells(res[c])...), append([]string{algs.Name(c), "paper", ""}, paperCells(paperTable6[c])...))
	}
	sec.Tables = append(sec.Tables, t)
	p, h, ti, d := res["pidnn"], res["hpcc"], res["timely"], res["dctcp"]
	rank := h.p99 < p.p99 && p.p99 < ti.p99 && p.p99 < d.p99 && h.rttMean < p.rttMean && p.rttMean < ti.rttMean && p.rttMean < d.rttMean
	claims := map[string]report.Claim{
		"ranking": report.Verdict(fmt.Sprintf("P99 %s / %s / %s / %s µs, mean %s / %s / %s / %s µs (HPCC / LSTM+PID / DCTCP / TIMELY)",
			experiment.G4Dash(h.p99), experiment.G4Dash(p.p99), experiment.G4Dash(d.p99), experiment.G4Dash(ti.p99), experiment.G4Dash(h.rttMean), experiment.G4Dash(p.rttMean), experiment.G4Dash(d.rttMean), experiment.G4Dash(ti.rttMean)), rank, ""),
		"pidnn-max-lowest":   report.Verdict(fmt.Sprintf("%s vs %s, %s, %s", experiment.G4Dash(p.rttMax), experiment.G4Dash(h.rttMax), experiment.G4Dash(ti.rttMax), experiment.G4Dash(d.rttMax)), p.rttMax < min(h.rttMax, ti.rttMax, d.rttMax), "order: LSTM+PID vs HPCC, TIMELY, DCTCP"),
		"pidnn-rate-highest": report.Verdict(fmt.Sprintf("%s vs %s, %s, %s", experiment.G4Dash(p.rate), experiment.G4Dash(h.rate), experiment.G4Dash(ti.rate), experiment.G4Dash(d.rate)), p.rate > max(h.rate, ti.rate, d.rate), "order: LSTM+PID vs HPCC, TIMELY, DCTCP"),
		"hpcc-p99":           report.Measured(experiment.G4Dash(h.p99), ""),
	}
	sec.Claims = ctx.Claims(claims)
	return sec, nil
}
