package metrics

import (
	"cmp"
	"io"
	"slices"
	"strconv"

	"github.com/ccsim/ccsim/sim"
)

// SizeBin is one row of the size-binned slowdown table.
type SizeBin struct {
	// MaxSizeBytes is the largest flow size in the bin (the row label).
	MaxSizeBytes int64
	// N is the number of flows in the bin, Censored of them censored
	// (their slowdown a lower bound).
	N, Censored int
	// P50, P95 and P99 are slowdown percentiles by the canonical rule.
	P50, P95, P99 float64
}

// SizeBins builds the size-binned slowdown table of the reference
// fct_analysis.py over the flows of a run that ended at end: the counted
// flows (finished, and unfinished ones censored at end as in
// SummarizeFlows; end = NoCensoring counts finished flows only, the
// reference's rule) are sorted by size (stable, so equal sizes keep input
// order), and bin i of nbins holds flows [floor(i*n/nbins),
// floor((i+1)*n/nbins)). With nbins = 20 each bin holds 5% of the flows.
// Bins that would be empty (n < nbins) are omitted, so the result has nbins
// rows whenever there are at least nbins counted flows. nbins <= 0 yields
// nil.
//
// Differences from the reference script, which callers handle themselves:
// it filters by dport and start time, it breaks size ties by `sort -n`'s
// whole-line fallback rather than input order, and its `split('\n')[:-2]`
// drops the largest flow.
func SizeBins(recs []FlowRecord, nbins int, end sim.Time) []SizeBin {
	if nbins <= 0 {
		return nil
	}
	type fs struct {
		size     int64
		sd       float64
		censored bool
	}
	flows := make([]fs, 0, len(recs))
	for i := range recs {
		if _, d, cens, ok := recs[i].Outcome(end); ok {
			flows = append(flows, fs{recs[i].SizeBytes, d, cens})
		}
	}
	slices.SortStableFunc(flows, func(a, b fs) int { return cmp.Compare(a.size, b.size) })
	n := len(flows)
	bins := make([]SizeBin, 0, min(nbins, n))
	sd := make([]float64, 0, n/nbins+1)
	for i := 0; i < nbins; i++ {
		// 64-bit products: i*n cannot overflow for any realistic n.
		l, r := i*n/nbins, (i+1)*n/nbins
		if l == r {
			continue
		}
		sd = sd[:0]
		cens := 0
		for _, f := range flows[l:r] {
			sd = append(sd, f.sd)
			if f.censored {
				cens++
			}
		}
		slices.Sort(sd)
		bins = append(bins, SizeBin{
			MaxSizeBytes: flows[r-1].size,
			N:            r - l,
			Censored:     cens,
			P50:          Percentile(sd, 0.50),
			P95:          Percentile(sd, 0.95),
			P99:          Percentile(sd, 0.99),
		})
	}
	return bins
}

// WriteSizeBins writes bins as text, one line per bin:
// "size p50 p95 p99", e.g. "10000 1.234 2.500 3.000", with size in bytes
// and slowdowns with 3 decimals as in the reference script. No header.
func WriteSizeBins(w io.Writer, bins []SizeBin) error {
	buf := make([]byte, 0, 64*len(bins))
	for _, b := range bins {
		buf = strconv.AppendInt(buf, b.MaxSizeBytes, 10)
		for _, x := range [3]float64{b.P50, b.P95, b.P99} {
			buf = append(buf, ' ')
			buf = strconv.AppendFloat(buf, x, 'f', 3, 64)
		}
		buf = append(buf, '\n')
	}
	_, err := w.Write(buf)
	return err
}
