package pidnn

// E1e: the effect of prediction, LSTM+PID against PID only at rtt_target
// 5 µs (paper 001 §4.2.3).

import (
	"fmt"
	"math"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/report"
)

// change is the paper's percentage change from PID only (a) to LSTM+PID
// (b): the difference over the smaller of the two (spec ambiguity 12: the
// paper divides increases by the old value and decreases by the new one),
// signed as b − a.
func change(a, b float64) float64 {
	if a == b {
		return 0
	}
	return 100 * (b - a) / min(a, b)
}

func e1e() *experiment.Experiment {
	return &experiment.Experiment{
		ID:    "e1e",
		Title: "Effect of prediction: LSTM+PID against PID only, rtt_target 5 µs",
		Setup: e1Setup + "\n\nRuns: pid and pidnn, both with rtt_target 5 µs (the runs of E1c/E1d; the same with the paper's gains in the verdict's note). Percentage changes as the paper computes them (spec ambiguity 12): (LSTM+PID − PID only) divided by the smaller of the two, i.e. increases over the PID-only value and decreases over the LSTM+PID value (the paper's −18.9 % for P99 is (7.462 − 6.276)/6.276).",
		Claims: []experiment.Claim{
			{ID: "rtt-mean-change", Description: "mean RTT, LSTM+PID vs PID only", PaperValue: "+1.38", Unit: "%"},
			{ID: "rate-change", Description: "RATE_mean (throughput), LSTM+PID vs PID only", PaperValue: "+43.12", Unit: "%"},
			{ID: "p99-change", Description: "P99 RTT, LSTM+PID vs PID only", PaperValue: "-18.9", Unit: "%"},
			{ID: "max-change", Description: "max RTT, LSTM+PID vs PID only", PaperValue: "-16.12", Unit: "%"},
			{ID: "prediction-helps", Description: "prediction raises the throughput and lowers P99 and max RTT at about the same mean RTT (|change| < 5 %)", PaperValue: "yes", Verdict: true},
		},
		Runs: func(sc experiment.Scale) []experiment.RunSpec {
			return []experiment.RunSpec{e1Run(sc, "pid", 5), e1Run(sc, "pidnn", 5), e1RunGains(sc, "pid", 5, "paper"), e1RunGains(sc, "pidnn", 5, "paper")}
		},
		Analyze: analyzeE1e,
	}
}

// analyzeE1e compares LSTM+PID with PID only as the paper computes its
// percentage changes.
func analyzeE1e(ctx *experiment.Context) (*report.Section, error) {
	pid, err := readE1(ctx, keyOf("pid", 5))
	if err != nil {
		return nil, err
	}
	nn, err := readE1(ctx, keyOf("pidnn", 5))
	if err != nil {
		return nil, err
	}
	sec := &report.Section{}
	cm, cr, cp, cx := change(pid.rttMean, nn.rttMean), change(pid.rate, nn.rate), change(pid.p99, nn.p99), change(pid.rttMax, nn.rttMax)
	t := report.Table{ID: "prediction", Title: "Effect of prediction (target 5 µs)", Columns: []string{"metric", "PID only, ccsim", "LSTM+PID, ccsim", "change, ccsim (%)", "PID only, paper", "LSTM+PID, paper", "change, paper (%)"}}
	for _, r := range []struct {
		name       string
		a, b, c    float64
		pa, pb, pc float64
	}{
		{"mean RTT (µs)", pid.rttMean, nn.rttMean, cm, paperPID.rttMean, paperTarget[5].rttMean, 1.38},
		{"RATE_mean (Gb/s)", pid.rate, nn.rate, cr, paperPID.rate, paperTarget[5].rate, 43.12},
		{"P99 RTT (µs)", pid.p99, nn.p99, cp, paperPID.p99, paperTarget[5].p99, -18.9},
		{"max RTT (µs)", pid.rttMax, nn.rttMax, cx, paperPID.rttMax, paperTarget[5].rttMax, -16.12},
	} {
		t.Rows = append(t.Rows, []string{r.name, experiment.G4Dash(r.a), experiment.G4Dash(r.b), fmt.Sprintf("%+.2f", r.c), experiment.G4Dash(r.pa), experiment.G4Dash(r.pb), fmt.Sprintf("%+.2f", r.pc)})
	}
	sec.Tables = append(sec.Tables, t)
	claims := map[string]report.Claim{
		"rtt-mean-change": report.Measured(fmt.Sprintf("%+.2f", cm), ""),
		"rate-change":     report.Measured(fmt.Sprintf("%+.2f", cr), ""),
		"p99-change":      report.Measured(fmt.Sprintf("%+.2f", cp), ""),
		"max-change":      report.Measured(fmt.Sprintf("%+.2f", cx), ""),
	}
	helps := cr > 0 && cp < 0 && cx < 0 && math.Abs(cm) < 5
	note := ""
	pidP, err1 := readE1(ctx, e1RunGains(experiment.ScalePaper, "pid", 5, "paper").Key)
	nnP, err2 := readE1(ctx, e1RunGains(experiment.ScalePaper, "pidnn", 5, "paper").Key)
	if err1 == nil && err2 == nil {
		note = fmt.Sprintf("with the paper's gains: rate %+.1f %%, P99 %+.1f %%, max %+.1f %%, mean %+.1f %%",
			change(pidP.rate, nnP.rate), change(pidP.p99, nnP.p99), change(pidP.rttMax, nnP.rttMax), change(pidP.rttMean, nnP.rttMean))
	}
	claims["prediction-helps"] = report.Verdict(fmt.Sprintf("rate %+.1f %%, P99 %+.1f %%, max %+.1f %%, mean %+.1f %%", cr, cp, cx, cm), helps, note)
	sec.Claims = ctx.Claims(claims)
	return sec, nil
}
