package pidnn

// E2's runs read per algorithm and seed, and the measures of its claims.

import (
	"fmt"
	"slices"

	"github.com/ccsim/ccsim/experiment"
)

// e2Run is one run of E2 (one algorithm, one seed).
type e2Run struct {
	bins []binStat
	// p90Win is the 90th-percentile slowdown of the background flows of
	// bins 1–winLast pooled, and whether it is a lower bound
	p90Win                float64
	p90WinLower           bool
	background, incast    int
	censored              int // background flows censored at the run's end
	bursts                int // incast bursts (incast flows / senders)
	wall                  float64
	events                int64
	simEndMs              float64
	unfinishedAll, flowsN int
	drops, dataDropped    int64 // packets dropped; payload bytes of dropped data packets
	seed                  int
}

// e2Data are E2's runs per algorithm, one per seed in seed order.
type e2Data map[string][]*e2Run

// readE2 reads algorithm c's runs over the seeds.
func readE2(ctx *experiment.Context, c string) ([]*e2Run, error) {
	runs, err := ctx.SeedRuns("cc=" + c)
	if err != nil {
		return nil, err
	}
	var out []*e2Run
	for _, run := range runs {
		fl, err := run.Flows()
		if err != nil {
			return nil, err
		}
		s, err := run.Summary()
		if err != nil {
			return nil, err
		}
		r := &e2Run{wall: s.WallSeconds, events: s.Events, simEndMs: s.SimEndNs / 1e6, flowsN: len(fl), unfinishedAll: s.Summary.Unfinished,
			drops: s.Drops, dataDropped: s.Bytes.Dropped, seed: int(run.Spec.Seed)}
		bg := background(fl, s.End())
		r.bins = sizeBins(bg, nBins)
		if len(r.bins) != nBins {
			return nil, fmt.Errorf("%s: %d size bins (need at least %d background flows)", run.Dir, len(r.bins), nBins)
		}
		n := len(bg)
		r.p90Win, r.p90WinLower, _ = percentile(bg[:winLast*n/nBins], 0.90)
		for _, b := range r.bins {
			r.censored += b.censored
		}
		for _, f := range fl {
			if f.Group == "incast" {
				r.incast++
			} else {
				r.background++
			}
		}
		if b := run.Scenario.Workload.IncastBursts; b != nil && b.Senders > 0 {
			r.bursts = r.incast / b.Senders
		}
		out = append(out, r)
	}
	return out, nil
}

// p95s is algorithm c's p95 slowdown of 1-based bin k over the seeds, and
// whether it is a lower bound in any seed.
func (d e2Data) p95s(c string, k int) (experiment.Sample, bool) {
	var s experiment.Sample
	low := false
	for _, r := range d[c] {
		s = append(s, r.bins[k-1].p95)
		low = low || r.bins[k-1].p95Lower
	}
	return s, low
}

// series is algorithm c's p95 over bins from … to (1-based, inclusive).
func (d e2Data) series(c string, from, to int) ([]experiment.Sample, []bool) {
	var ss []experiment.Sample
	var low []bool
	for k := from; k <= to; k++ {
		s, l := d.p95s(c, k)
		ss, low = append(ss, s), append(low, l)
	}
	return ss, low
}

func (d e2Data) have(cs ...string) bool {
	for _, c := range cs {
		if len(d[c]) == 0 {
			return false
		}
	}
	return true
}

// e2Measures measures E2's claims from the runs that were read (a claim
// whose algorithms are missing is left unmeasured).
func e2Measures(d e2Data) map[string]experiment.Measure {
	ms := map[string]experiment.Measure{}
	pairs := func(id string, r experiment.Rel, a, b string, from, to int) {
		if !d.have(a, b) {
			return
		}
		sa, la := d.series(a, from, to)
		sb, lb := d.series(b, from, to)
		m := countPairs(r, sa, sb, la, lb)
		m.Note = fmt.Sprintf("%s vs %s, bins %d–%d: %s", algs.Name(a), algs.Name(b), from, to, pairText(r, sa, sb, la, lb, from))
		ms[id] = m
	}
	dir := func(id string, r experiment.Rel, a, b string, k int) {
		if !d.have(a, b) {
			return
		}
		sa, la := d.p95s(a, k)
		sb, lb := d.p95s(b, k)
		ms[id] = experiment.Measure{Values: []experiment.Sample{sa, sb}, Lower: []bool{la, lb}, Labels: []string{algs.Name(a), algs.Name(b)}}
	}
	pairs("pidnn-beats-timely-small", experiment.Less, "pidnn", "timely", 1, smallLast)
	pairs("pidnn-beats-dcqcn-small", experiment.Less, "pidnn", "dcqcn", 1, smallLast)
	dir("pidnn-loses-large-timely", experiment.Greater, "pidnn", "timely", nBins)
	dir("pidnn-loses-large-dcqcn", experiment.Greater, "pidnn", "dcqcn", nBins)
	dir("rttch-helps-large", experiment.Less, "pidnn+rttch", "pidnn", nBins)
	pairs("rttch-costs-small", experiment.Greater, "pidnn+rttch", "pidnn", 1, winLast)
	pairs("win-beats-hpcc-small", experiment.Less, "pidnn+rttch+win", "hpcc", 1, winLast)
	pairs("win-beats-dcqcn-small", experiment.Less, "pidnn+rttch+win", "dcqcn", 1, winLast)
	if w := "pidnn+rttch+win"; d.have(w) {
		var p90 experiment.Sample
		low := false
		for _, r := range d[w] {
			p90, low = append(p90, r.p90Win), low || r.p90WinLower
		}
		ms["win-p90-below-1.5"] = experiment.Measure{Values: []experiment.Sample{p90}, Lower: []bool{low}}
		sa, la := d.series(w, winLast+1, nBins)
		b, lb := d.p95s(w, winLast)
		var sb []experiment.Sample
		var lbs []bool
		for range sa {
			sb, lbs = append(sb, b), append(lbs, lb)
		}
		m := countPairs(experiment.Greater, sa, sb, la, lbs)
		m.Note = fmt.Sprintf("bins 15–20 vs bin 14 (%s): %s", experiment.G4Dash(b.Mean()), pairText(experiment.Greater, sa, sb, la, lbs, winLast+1))
		ms["win-worse-above-7k"] = m
	}
	for _, c := range e2Algs {
		if !d.have(c) {
			continue
		}
		for k := 1; k <= nBins; k++ {
			s, low := d.p95s(c, k)
			ms[fmt.Sprintf("t8-%s-%02d", e2Short[c], k)] = experiment.Measure{Mag: []experiment.Sample{s}, MagLower: []bool{low}}
		}
		if c == "pidnn" {
			var b experiment.Sample
			for _, r := range d[c] {
				b = append(b, float64(r.bursts))
			}
			ms["incasts"] = experiment.Measure{Mag: []experiment.Sample{b}, Note: "bursts in the PIDNN runs (the workload is the same for every algorithm of a seed)"}
		}
	}
	return ms
}

// pairText lists the bins (numbered from first) where "a Rel b" does not
// hold on the means, or is bounded: the points a count leaves out.
func pairText(r experiment.Rel, a, b []experiment.Sample, la, lb []bool, first int) string {
	var out []string
	for i := range a {
		one := experiment.CountPairs(r, a[i:i+1], b[i:i+1], la[i:i+1], lb[i:i+1])
		if one.Values[0].Mean() == 1 {
			continue
		}
		what := "no"
		if one.Values[2].Mean() == 1 {
			what = "undecided"
		}
		out = append(out, fmt.Sprintf("bin %d %s (%s vs %s)", first+i, what, experiment.G4Dash(a[i].Mean()), experiment.G4Dash(b[i].Mean())))
	}
	if len(out) == 0 {
		return "holds in every bin"
	}
	return joinSemi(slices.Clip(out))
}
