package dcon

// E0: the testbed burst under PFC with DCQCN (the paper's Fig. 2).

import (
	"fmt"
	"math"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/report"
)

func e0() *experiment.Experiment {
	return &experiment.Experiment{
		ID:      "e0",
		Title:   "Bursts under PFC with DCQCN (Fig. 2)",
		SetupAt: burstSetup,
		Claims: []experiment.Claim{
			{ID: "converged", Description: "the premise (§3.1): f0 and f1 have converged to the fair rate of 20 Gb/s before the burst (the lower of the two, wire rate)",
				PaperValue: "20", Unit: "Gb/s", Kind: experiment.Magnitude, Mag: experiment.MagValue, Paper: 20},
			{ID: "collapse", Description: "while PFC keeps pausing, f0 and f1 fall to near zero (the higher of the two means over the PFC period, as a fraction of the rate before the burst; near zero read as < 10 %)",
				PaperValue: "near 0", Unit: "of the rate before", Kind: experiment.Range, Lo: 0, Hi: nearZero},
			{ID: "pause-l2-s1", Description: "P1/L2 backs up to the PFC threshold and L2 pauses S1 (PAUSE frames on L2 → S1)",
				PaperValue: "≥ 1", Unit: "PAUSE frames", Kind: experiment.Range, Lo: 1, Hi: math.Inf(1)},
			{ID: "spread", Description: "congestion spreads hop by hop to L0 and L1: PAUSE frames on S1 → L0 and on S1 → L1 (links with frames, of 2)",
				PaperValue: "2 of 2", Unit: "links", Kind: experiment.Count, Need: 2, Of: 2},
			{ID: "reconverge", Description: "after the burst f0 and f1 converge again to the fair rate of 20 Gb/s (the lower of the two over the last 5 ms, wire rate)",
				PaperValue: "20", Unit: "Gb/s", Kind: experiment.Magnitude, Mag: experiment.MagValue, Paper: 20},
		},
		Checks:  burstChecks(),
		Runs:    func(sc experiment.Scale) []experiment.RunSpec { return burstRuns(sc, "dcqcn") },
		Analyze: analyzeE0,
	}
}

// analyzeE0 reads DCQCN's burst runs: the table, the three panels and the
// claims of Fig. 2.
func analyzeE0(ctx *experiment.Context) (*report.Section, error) {
	runs, err := readBurst(ctx, "cc=dcqcn")
	if err != nil {
		return nil, err
	}
	sec := &report.Section{Tables: []report.Table{burstTable("The burst with DCQCN", map[string][]*burstRun{"DCQCN": runs}, []string{"DCQCN"})},
		Figures: burstFigures("dcqcn", "DCQCN", runs[0])}
	measureAll(ctx, e0Measures(runs))
	sec.Notes = append(sec.Notes, convergedNote("DCQCN", runs, timing(ctx.Scale)))
	return sec, nil
}

// e0Measures measures Fig. 2's claims on DCQCN's runs.
func e0Measures(runs []*burstRun) map[string]experiment.Measure {
	ms := map[string]experiment.Measure{}
	ms["converged"] = premise(runs, func(r *burstRun) [2]float64 { return r.pre }, "before the burst")
	collapse := over(runs, func(r *burstRun) float64 { return max(r.pfcMean[0]/r.pre[0], r.pfcMean[1]/r.pre[1]) })
	ms["collapse"] = experiment.Measure{Values: []experiment.Sample{collapse},
		Text: fmt.Sprintf("%s of the rate before (per seed: %s)", sampleCell(collapse), seedsText(collapse)),
		Note: pfcPeriodNote(runs)}
	frames := func(l string) experiment.Sample {
		return over(runs, func(r *burstRun) float64 { return float64(r.frames[l]) })
	}
	p1 := over(runs, func(r *burstRun) float64 { return r.qMax[queueNames[1]] / 1e3 })
	ms["pause-l2-s1"] = experiment.Measure{Values: []experiment.Sample{frames("L2→S1")},
		Text: fmt.Sprintf("%s frames; P1/L2 peak %s KB", sampleCell(frames("L2→S1")), sampleCell(p1))}
	// a link "has frames" in a seed when it has at least one: the count is
	// decided per link by the direction rule (frames > 0 in every seed)
	zero := make(experiment.Sample, len(runs))
	spread := pairs(experiment.Greater, []experiment.Sample{frames("S1→L0"), frames("S1→L1")}, []experiment.Sample{zero, zero}, nil, nil)
	paused := func(p string) experiment.Sample { return over(runs, func(r *burstRun) float64 { return r.paused[p] }) }
	spread.Text = withCountText(spread).Text + fmt.Sprintf(" (links); frames S1 → L0 %s, S1 → L1 %s; L0 → S1 paused %s µs, L1 → S1 %s µs", sampleCell(frames("S1→L0")), sampleCell(frames("S1→L1")),
		sampleCell(paused("L0 → S1")), sampleCell(paused("L1 → S1")))
	spread.Note = "ccsim sends one PAUSE per XOFF episode (no refreshes), so the paper's \"throughout\" (持续) is shown as paused time, not decided"
	ms["spread"] = spread
	ms["reconverge"] = premise(runs, func(r *burstRun) [2]float64 { return r.after }, "over the last 5 ms")
	return ms
}

// premise is a 20 Gb/s claim on f0 and f1: the lower of the two rates
// (wire), per seed. f0 and f1 share S1 → L2, so with the lower within the
// band the higher is at most 40 minus its lower edge.
func premise(runs []*burstRun, f func(*burstRun) [2]float64, when string) experiment.Measure {
	lo := over(runs, func(r *burstRun) float64 { return min(f(r)[0], f(r)[1]) })
	f0 := over(runs, func(r *burstRun) float64 { return f(r)[0] })
	f1 := over(runs, func(r *burstRun) float64 { return f(r)[1] })
	return experiment.Measure{Mag: []experiment.Sample{lo},
		Text: fmt.Sprintf("lower %s Gb/s (f0 %s, f1 %s, %s)", sampleCell(lo), sampleCell(f0), sampleCell(f1), when)}
}

// pfcPeriodNote says over which period collapse was measured.
func pfcPeriodNote(runs []*burstRun) string {
	none := 0
	for _, r := range runs {
		if !r.pfcPeriod {
			none++
		}
	}
	from := over(runs, func(r *burstRun) float64 { return r.pfcFrom })
	to := over(runs, func(r *burstRun) float64 { return r.pfcTo })
	n := fmt.Sprintf("PFC period %s – %s ms", sampleCell(from), sampleCell(to))
	if none > 0 {
		n += fmt.Sprintf("; in %d of %d seeds L2 never paused S1: the burst window instead (the premise of the claim is missing)", none, len(runs))
	}
	return n
}

// convergedNote says whether the long flows met the paper's premise (20
// Gb/s each) when the burst started.
func convergedNote(alg string, runs []*burstRun, t burstTiming) string {
	lo := over(runs, func(r *burstRun) float64 { return min(r.pre[0], r.pre[1]) })
	return fmt.Sprintf("%s: before the burst (%g–%g ms) the lower of f0 and f1 ran at %s Gb/s (wire rate; the paper's premise: both converged at 20 Gb/s). Every claim about the burst describes the situation ccsim reached, whether or not the premise holds.",
		alg, t.preFrom(), t.startMs, sampleCell(lo))
}
