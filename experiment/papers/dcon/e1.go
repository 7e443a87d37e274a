package dcon

// E1: the testbed burst with DCON beside DCQCN (the paper's Fig. 6).

import (
	"fmt"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/report"
)

func e1() *experiment.Experiment {
	return &experiment.Experiment{
		ID:    "e1",
		Title: "The same bursts with DCON (Fig. 6)",
		Setup: burstSetup,
		Claims: []experiment.Claim{
			{ID: "p1l2-below-pfc", Description: "with DCON, P1/L2 (L2's ingress from S1) stays below the PFC threshold: L2 does not pause S1", PaperValue: "yes (< 320 KB, no PAUSE)", Verdict: true},
			{ID: "no-hol", Description: "with DCON, f0 suffers no HOL blocking during the burst (lowest 100 µs ≥ 80 % of before)", PaperValue: "yes", Verdict: true},
			{ID: "f1-limited", Description: "with DCON, f1 is rate-limited in time (its rate during the burst below its rate before)", PaperValue: "yes", Verdict: true},
			{ID: "f0-vs-dcqcn", Description: "f0's lowest throughput during the burst is higher with DCON than with DCQCN", PaperValue: "yes", Verdict: true},
			{ID: "no-pause-plotted", Description: "with DCON no PAUSE frames cross L2 → S1, S1 → L0, S1 → L1 (the links of Figs. 2 and 6; DCQCN: some)", PaperValue: "yes", Verdict: true},
		},
		Runs:    func(sc experiment.Scale) []experiment.RunSpec { return burstRuns(sc, "dcon", "dcqcn") },
		Analyze: analyzeE1,
	}
}

// analyzeE1 reads DCON's and DCQCN's burst runs: the table beside each
// other, DCON's panels and the claims of Fig. 6.
func analyzeE1(ctx *experiment.Context) (*report.Section, error) {
	res := map[string]*burstResult{}
	for _, a := range []string{"dcon", "dcqcn"} {
		run, err := ctx.Run("cc=" + a)
		if err != nil {
			return nil, err
		}
		if res[algs.Name(a)], err = analyseBurst(run, timing(ctx.Scale)); err != nil {
			return nil, err
		}
	}
	d, q := res["DCON"], res["DCQCN"]
	sec := &report.Section{Tables: []report.Table{burstTable("The burst with DCON beside DCQCN", res, []string{"DCON", "DCQCN"})},
		Figures: burstFigures("dcon", "DCON", d)}
	p1 := d.qMax["P1/L2 (ingress from S1)"]
	sec.Claims = ctx.Claims(map[string]report.Claim{
		"p1l2-below-pfc": report.Verdict(fmt.Sprintf("peak %.0f KB, %d PAUSE frames L2 → S1", p1/1e3, d.pauses["L2→S1"]), p1 < 320e3 && d.pauses["L2→S1"] == 0, ""),
		"no-hol": report.Verdict(fmt.Sprintf("lowest %.3g of %.3g Gb/s (%.0f %%)", d.min[0], d.pre[0], 100*d.min[0]/d.pre[0]), d.min[0] >= noHOL*d.pre[0],
			fmt.Sprintf("mean during the burst %.3g Gb/s (%.0f %% of before; DCQCN: %.3g Gb/s)", d.mean[0], 100*d.mean[0]/d.pre[0], q.mean[0])),
		"f1-limited":  report.Verdict(fmt.Sprintf("%.3g → %.3g Gb/s", d.pre[1], d.mean[1]), d.mean[1] < d.pre[1], ""),
		"f0-vs-dcqcn": report.Verdict(fmt.Sprintf("%.3g vs %.3g Gb/s", d.min[0], q.min[0]), d.min[0] > q.min[0], ""),
		"no-pause-plotted": report.Verdict(fmt.Sprintf("%d vs %d (all links: %d vs %d)", plotted(d), plotted(q), d.pfcTotal, q.pfcTotal), plotted(d) == 0 && plotted(q) > 0,
			"PAUSE frames on every link are in the table: DCON's land mostly on the burst senders' own host links, where only congested flows are paused"),
	})
	return sec, nil
}

// plotted is the number of PAUSE frames on the links Figs. 2 and 6 plot.
func plotted(r *burstResult) int64 {
	var n int64
	for _, l := range pauseLinks {
		n += r.pauses[l.name]
	}
	return n
}
