package pidnn

// E2's metric: the background flows' slowdowns by size bin, unfinished
// flows censored at the run's end, and whether each percentile is exact or
// a lower bound.

import (
	"cmp"
	"math"
	"slices"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/metrics"
	"github.com/ccsim/ccsim/sim"
)

const nBins = 20

// binStat is one size bin: its largest size, its flows and how many of them
// are censored, the 95th-percentile slowdown and whether it is a lower bound
// (a censored flow, whose true slowdown is larger, may move it).
type binStat struct {
	maxSize     int64
	n, censored int
	p95         float64
	p95Lower    bool
}

// flowSD is a flow's slowdown as a statistic counts it: a finished flow's
// own; an unfinished one's at the run's end (a lower bound).
type flowSD struct {
	size     int64
	sd       float64
	censored bool
}

// background are the background flows' slowdowns (every flow not of group
// "incast"), unfinished ones censored at end (FCT = end − start, slowdown
// clamped to ≥ 1 like the others; docs/metrics.md §5), in size order (the
// sort is stable, as metrics.SizeBins's); flows that never started are
// left out.
func background(flows []metrics.FlowRecord, end sim.Time) []flowSD {
	out := make([]flowSD, 0, len(flows))
	for i := range flows {
		f := &flows[i]
		if f.Group == "incast" {
			continue
		}
		switch {
		case f.Done:
			out = append(out, flowSD{f.SizeBytes, f.Slowdown(), false})
		case f.NotStarted || end == metrics.NoCensoring || f.Start >= end:
		default:
			sd := math.NaN()
			if f.IdealFCT > 0 {
				sd = max(1, float64(end-f.Start)/float64(f.IdealFCT))
			}
			out = append(out, flowSD{f.SizeBytes, sd, true})
		}
	}
	slices.SortStableFunc(out, func(a, b flowSD) int { return cmp.Compare(a.size, b.size) })
	return out
}

// sizeBins cuts the size-ordered flows into nb bins of equal count (the
// reference analysis's binning, metrics.SizeBins: bin i holds flows
// [i·n/nb, (i+1)·n/nb)) and gives each bin's 95th-percentile slowdown.
func sizeBins(fs []flowSD, nb int) []binStat {
	n := len(fs)
	var out []binStat
	for i := range nb {
		l, r := i*n/nb, (i+1)*n/nb
		if l == r {
			continue
		}
		b := binStat{maxSize: fs[r-1].size, n: r - l}
		b.p95, b.p95Lower, b.censored = percentile(fs[l:r], 0.95)
		out = append(out, b)
	}
	return out
}

// percentile is the p-quantile of the flows' slowdowns by the canonical
// rule (the sorted sample at index ⌊n·p⌋), whether it is a lower bound (a
// censored value, whose true one is larger, lies at or below it:
// metrics.PercentileCensored), and the number of censored flows.
func percentile(fs []flowSD, p float64) (v float64, lower bool, censored int) {
	if len(fs) == 0 {
		return math.NaN(), false, 0
	}
	sd := make([]float64, len(fs))
	cens := make([]bool, len(fs))
	for i, f := range fs {
		sd[i], cens[i] = f.sd, f.censored
		if f.censored {
			censored++
		}
	}
	v, exact := metrics.PercentileCensored(sd, cens, p)
	return v, !exact, censored
}

// countPairs is experiment.CountPairs with the undecided count dropped when
// it is 0: the flip check (experiment.Flip) builds count measures of two
// values only and rejects the three of CountPairs, whatever u is; [k, n]
// and [k, n, 0] are decided alike. With undecided points the three values
// stay (the count is then inconclusive where they matter).
func countPairs(r experiment.Rel, a, b []experiment.Sample, aLow, bLow []bool) experiment.Measure {
	m := experiment.CountPairs(r, a, b, aLow, bLow)
	if len(m.Values) == 3 && m.Values[2].Mean() == 0 {
		m.Values = m.Values[:2]
	}
	return m
}
