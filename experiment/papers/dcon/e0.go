package dcon

// E0: the testbed burst under PFC with DCQCN (the paper's Fig. 2).

import (
	"fmt"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/report"
)

func e0() *experiment.Experiment {
	return &experiment.Experiment{
		ID:    "e0",
		Title: "Bursts under PFC with DCQCN (Fig. 2)",
		Setup: burstSetup,
		Claims: []experiment.Claim{
			{ID: "converged", Description: "f0 and f1 converge to the fair rate before the burst", PaperValue: "20 / 20", Unit: "Gb/s"},
			{ID: "collapse", Description: "f0 and f1 fall to near zero during the burst", PaperValue: "yes", Verdict: true},
			{ID: "pause-l2-s1", Description: "P1/L2 backs up to the PFC threshold and L2 pauses S1 (PAUSE frames on L2 → S1)", PaperValue: "yes", Verdict: true},
			{ID: "spread", Description: "congestion spreads to L0 and L1 (PAUSE frames on S1 → L0 and S1 → L1)", PaperValue: "yes", Verdict: true},
			{ID: "reconverge", Description: "after the burst f0 and f1 re-converge (≥ 80 % of their rate before it)", PaperValue: "yes", Verdict: true},
		},
		Runs:    func(sc experiment.Scale) []experiment.RunSpec { return burstRuns(sc, "dcqcn") },
		Analyze: analyzeE0,
	}
}

// analyzeE0 reads DCQCN's burst run: the table, the three panels and the
// claims of Fig. 2.
func analyzeE0(ctx *experiment.Context) (*report.Section, error) {
	run, err := ctx.Run("cc=dcqcn")
	if err != nil {
		return nil, err
	}
	r, err := analyseBurst(run, timing(ctx.Scale))
	if err != nil {
		return nil, err
	}
	sec := &report.Section{Tables: []report.Table{burstTable("The burst with DCQCN", map[string]*burstResult{"DCQCN": r}, []string{"DCQCN"})},
		Figures: burstFigures("dcqcn", "DCQCN", r)}
	sec.Claims = ctx.Claims(map[string]report.Claim{
		"converged":   {CCSimValue: fmt.Sprintf("%.3g / %.3g", r.pre[0], r.pre[1])},
		"collapse":    report.Verdict(fmt.Sprintf("lowest %.3g / %.3g Gb/s (%.0f %% / %.0f %%)", r.min[0], r.min[1], 100*r.min[0]/r.pre[0], 100*r.min[1]/r.pre[1]), r.min[0] < collapse*r.pre[0] && r.min[1] < collapse*r.pre[1], ""),
		"pause-l2-s1": report.Verdict(fmt.Sprintf("%d frames; P1/L2 peak %.0f KB", r.pauses["L2→S1"], r.qMax["P1/L2 (ingress from S1)"]/1e3), r.pauses["L2→S1"] > 0, ""),
		"spread":      report.Verdict(fmt.Sprintf("%d / %d frames", r.pauses["S1→L0"], r.pauses["S1→L1"]), r.pauses["S1→L0"] > 0 && r.pauses["S1→L1"] > 0, ""),
		"reconverge":  report.Verdict(fmt.Sprintf("%.3g / %.3g Gb/s", r.after[0], r.after[1]), r.after[0] >= 0.8*r.pre[0] && r.after[1] >= 0.8*r.pre[1], ""),
	})
	return sec, nil
}
