package dcon

// E1: the testbed burst with DCON beside DCQCN (the paper's Fig. 6).

import (
	"fmt"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/report"
)

func e1() *experiment.Experiment {
	return &experiment.Experiment{
		ID:      "e1",
		Title:   "The same bursts with DCON (Fig. 6)",
		SetupAt: burstSetup,
		Claims: []experiment.Claim{
			{ID: "converged-dcon", Description: "the premise (§3.1, §6.1.1 「实验参数设置与3.1节所述一致」): with DCON, f0 and f1 have converged to 20 Gb/s before the burst (the lower of the two, wire rate)",
				PaperValue: "20", Unit: "Gb/s", Kind: experiment.Magnitude, Mag: experiment.MagValue, Paper: 20},
			{ID: "p1l2-below-pfc", Description: "with DCON the queue of P1/L2 (L2's ingress from S1, shared by f0 and f1) never exceeds the PFC threshold (its peak, worst seed)",
				PaperValue: "≤ 320", Unit: "KB", Kind: experiment.Range, Lo: 0, Hi: 320},
			{ID: "no-pause-l2-s1", Description: "with DCON L2 does not pause S1 (PAUSE frames on L2 → S1, worst seed)",
				PaperValue: "0", Unit: "PAUSE frames", Kind: experiment.Exact, Paper: 0},
			{ID: "no-hol", Description: "with DCON the non-congested flow f0 suffers no head-of-line blocking: no transmitter on its path (H0, L0 → S1, S1 → L2) is paused during the burst (paused time, worst seed)",
				PaperValue: "0", Unit: "µs paused", Kind: experiment.Exact, Paper: 0},
			{ID: "f1-limited", Description: "with DCON the congested flow f1 is rate-limited in time: its mean during the burst below its rate before",
				PaperValue: "yes", Unit: "Gb/s", Kind: experiment.Direction, Rel: experiment.Less},
			{ID: "f0-vs-dcqcn", Description: "derived (Fig. 2(c) against §6.1.1): f0's mean rate during the burst is higher with DCON than with DCQCN",
				PaperValue: "yes", Unit: "Gb/s", Kind: experiment.Direction, Rel: experiment.Greater},
			{ID: "no-pause-plotted", Description: "with DCON no congestion spreading: no PAUSE frames on L2 → S1, S1 → L0, S1 → L1 (the links §3.1 names; worst seed)",
				PaperValue: "0", Unit: "PAUSE frames", Kind: experiment.Exact, Paper: 0},
		},
		Readings: []experiment.Reading{
			{ID: "cnm-sender", Title: "a CNM for every burst packet; the sender's 50 µs window (DCON's defaults)", Why: cnmSenderWhy, Primary: true},
			cnmGapReading(),
		},
		Checks:  burstChecks(),
		Runs:    func(sc experiment.Scale) []experiment.RunSpec { return burstRuns(sc, "dcon", "dcqcn") },
		Analyze: analyzeE1,
	}
}

// analyzeE1 reads DCON's and DCQCN's burst runs: the table beside each
// other, DCON's panels and the claims of Fig. 6.
func analyzeE1(ctx *experiment.Context) (*report.Section, error) {
	res := map[string][]*burstRun{}
	for _, a := range []string{"dcon", "dcqcn"} {
		runs, err := readBurst(ctx, "cc="+a)
		if err != nil {
			return nil, err
		}
		res[algs.Name(a)] = runs
	}
	d, q := res["DCON"], res["DCQCN"]
	sec := &report.Section{Tables: []report.Table{burstTable("The burst with DCON beside DCQCN", res, []string{"DCON", "DCQCN"})},
		Figures: burstFigures("dcon", "DCON", d[0])}
	measureAll(ctx, e1Measures(d, q))
	sec.Notes = append(sec.Notes, convergedNote("DCON", d, timing(ctx.Scale)),
		"Fig. 6 has two panels only (queues, throughput); the PAUSE frames on every link are in the table. A pause of f0's own NIC or of L0 → S1 is head-of-line blocking of f0 that DCON's rule cannot prevent: half of the burst crosses S1 (ECMP), so P0/S1 is itself a congestion point, and S1's ingress from L0 carries only flows to that port (f0 included), so S1 sends no CNM and can only pause L0.")
	return sec, nil
}

// e1Measures measures Fig. 6's claims on DCON's runs d (and DCQCN's q).
func e1Measures(d, q []*burstRun) map[string]experiment.Measure {
	ms := map[string]experiment.Measure{}
	ms["converged-dcon"] = premise(d, func(r *burstRun) [2]float64 { return r.pre }, "before the burst")
	p1 := over(d, func(r *burstRun) float64 { return r.qMax[queueNames[1]] / 1e3 })
	ms["p1l2-below-pfc"] = worstMeasure(p1, "KB", "the queue series counts reserve and headroom too (Port.IngressBytes), PFC the shared part: the band is a few KB stricter than PFC")
	l2s1 := over(d, func(r *burstRun) float64 { return float64(r.frames["L2→S1"]) })
	ms["no-pause-l2-s1"] = worstMeasure(l2s1, "frames", "")
	var parts string
	hol := over(d, func(r *burstRun) float64 {
		s := 0.0
		for _, p := range f0Path {
			s += r.paused[p]
		}
		return s
	})
	for _, p := range f0Path {
		parts += fmt.Sprintf("%s %s µs; ", p, sampleCell(over(d, func(r *burstRun) float64 { return r.paused[p] })))
	}
	f0 := over(d, func(r *burstRun) float64 { return r.mean[0] / r.pre[0] })
	ms["no-hol"] = worstMeasure(hol, "µs", parts+fmt.Sprintf("f0's mean during the burst %s of its rate before", sampleCell(f0)))
	f1 := experiment.Measure{Values: []experiment.Sample{over(d, func(r *burstRun) float64 { return r.mean[1] }), over(d, func(r *burstRun) float64 { return r.pre[1] })},
		Labels: []string{"during", "before"}}
	ms["f1-limited"] = f1
	ms["f0-vs-dcqcn"] = experiment.Measure{Values: []experiment.Sample{over(d, func(r *burstRun) float64 { return r.mean[0] }), over(q, func(r *burstRun) float64 { return r.mean[0] })},
		Labels: []string{"DCON", "DCQCN"}, Note: "means over the burst window (a single lowest bin mixes HOL blocking with f0's share of S1 → L2)"}
	plotted := over(d, func(r *burstRun) float64 {
		n := int64(0)
		for _, l := range pauseLinks {
			n += r.frames[l.name]
		}
		return float64(n)
	})
	ms["no-pause-plotted"] = worstMeasure(plotted, "frames", fmt.Sprintf("all links: DCON %s, DCQCN %s frames",
		sampleCell(over(d, func(r *burstRun) float64 { return float64(r.pfcTotal) })), sampleCell(over(q, func(r *burstRun) float64 { return float64(r.pfcTotal) }))))
	return ms
}

// worstMeasure is the measure of a claim that something never happens (or
// never exceeds a bound): its worst seed (lead's decision Q3), with every
// seed's value in the text.
func worstMeasure(s experiment.Sample, unit, note string) experiment.Measure {
	w := worst(s)
	return experiment.Measure{Values: []experiment.Sample{w}, Note: note,
		Text: fmt.Sprintf("worst seed %s %s (seeds: %s)", experiment.G4(w[0]), unit, seedsText(s))}
}
