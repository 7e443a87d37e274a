// Package experiment holds reproductions of published experiments and the
// comparison of ccsim against the reference simulator's outputs.
package experiment

import (
	"fmt"
	"math"
	"os"

	"github.com/ccsim/ccsim/metrics"
	"github.com/ccsim/ccsim/scenario/result"
	"github.com/ccsim/ccsim/sim"
)

// RefComparison compares ccsim's per-flow FCTs with a reference fct.txt.
type RefComparison struct {
	Flows         int
	RefMeanFCTUs  float64
	SimMeanFCTUs  float64
	RefMaxFCTUs   float64
	SimMaxFCTUs   float64
	MeanErr       float64 // (sim − ref) / ref
	MaxErr        float64
	RefMeanSlowdn float64
	SimMeanSlowdn float64
	Unfinished    int
}

// String formats the comparison as one line.
func (c RefComparison) String() string {
	return fmt.Sprintf("flows %d: mean FCT %.1f us vs ref %.1f us (%+.2f%%), finish %.1f us vs ref %.1f us (%+.2f%%)",
		c.Flows, c.SimMeanFCTUs, c.RefMeanFCTUs, 100*c.MeanErr, c.SimMaxFCTUs, c.RefMaxFCTUs, 100*c.MaxErr)
}

// CompareWithRef reads the reference fct file and compares it with a run.
func CompareWithRef(r *result.Result, refPath string) (RefComparison, error) {
	f, err := os.Open(refPath)
	if err != nil {
		return RefComparison{}, err
	}
	defer f.Close()
	ref, err := metrics.ReadRefFCT(f)
	if err != nil {
		return RefComparison{}, fmt.Errorf("%s: %w", refPath, err)
	}
	var c RefComparison
	c.Flows = len(ref)
	for _, l := range ref {
		v := float64(l.FCTNs) / 1e3
		c.RefMeanFCTUs += v
		c.RefMaxFCTUs = math.Max(c.RefMaxFCTUs, v)
		c.RefMeanSlowdn += l.Slowdown()
	}
	c.RefMeanFCTUs /= float64(len(ref))
	c.RefMeanSlowdn /= float64(len(ref))
	n := 0
	for _, rec := range r.Flows {
		if !rec.Done {
			c.Unfinished++
			continue
		}
		v := rec.FCT().Microseconds()
		c.SimMeanFCTUs += v
		c.SimMaxFCTUs = math.Max(c.SimMaxFCTUs, v)
		c.SimMeanSlowdn += rec.Slowdown()
		n++
	}
	if n > 0 {
		c.SimMeanFCTUs /= float64(n)
		c.SimMeanSlowdn /= float64(n)
	}
	c.MeanErr = (c.SimMeanFCTUs - c.RefMeanFCTUs) / c.RefMeanFCTUs
	c.MaxErr = (c.SimMaxFCTUs - c.RefMaxFCTUs) / c.RefMaxFCTUs
	return c, nil
}

// RangeComparison compares slowdown percentiles of one flow-size range.
type RangeComparison struct {
	Range          string
	N, RefN        int
	P50, RefP50    float64
	P99, RefP99    float64
	P50Err, P99Err float64 // relative
}

// String formats one row.
func (r RangeComparison) String() string {
	return fmt.Sprintf("%-14s n %5d/%5d  p50 %.4f vs %.4f (%+.2f%%)  p99 %.4f vs %.4f (%+.2f%%)",
		r.Range, r.N, r.RefN, r.P50, r.RefP50, 100*r.P50Err, r.P99, r.RefP99, 100*r.P99Err)
}

// CompareRanges compares the p50 and p99 slowdown of the size ranges
// (< 100 KB, 100 KB–1 MB, > 1 MB, all) of a run with a reference fct file.
// Both sides count finished flows only, like with like: the reference's
// fct.txt lists no others (the run's own statistics censor unfinished
// flows, docs/metrics.md §5).
func CompareRanges(r *result.Result, refPath string) ([]RangeComparison, error) {
	return CompareRangesOf(metrics.SummarizeFlows(r.Flows, metrics.NoCensoring), refPath)
}

// CompareRangesOf is CompareRanges for a summary of flow records (e.g. read
// back from a run's flows.csv).
func CompareRangesOf(ss metrics.FCTSummary, refPath string) ([]RangeComparison, error) {
	f, err := os.Open(refPath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ref, err := metrics.ReadRefFCT(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", refPath, err)
	}
	if len(ref) == 0 {
		return nil, fmt.Errorf("%s: no flows (want the reference simulator's fct.txt: one finished flow per line, 8 fields)", refPath)
	}
	recs := make([]metrics.FlowRecord, len(ref))
	for i, l := range ref {
		recs[i] = l.Record(i)
	}
	rs := metrics.SummarizeFlows(recs, metrics.NoCensoring) // the reference lists finished flows only
	var out []RangeComparison
	for _, g := range []struct {
		name     string
		sim, ref metrics.FlowGroup
	}{
		{"<100KB", ss.Small, rs.Small}, {"100KB-1MB", ss.Mid, rs.Mid}, {">1MB", ss.Large, rs.Large}, {"all", ss.All, rs.All},
	} {
		c := RangeComparison{Range: g.name, N: g.sim.N, RefN: g.ref.N,
			P50: g.sim.Slowdown.P50, RefP50: g.ref.Slowdown.P50, P99: g.sim.Slowdown.P99, RefP99: g.ref.Slowdown.P99}
		c.P50Err = (c.P50 - c.RefP50) / c.RefP50
		c.P99Err = (c.P99 - c.RefP99) / c.RefP99
		out = append(out, c)
	}
	return out, nil
}

// RefInputs checks that a run and a reference fct file simulated the same
// flows: it returns the number of reference flows and how many of them
// have no flow of the run with the same size and start time (to the
// nanosecond; each run flow matches once). A comparison with unmatched
// flows compares different workloads, and its differences mean nothing
// (issue 19 §3.9: a run against another input's reference showed
// "+1662 %" without a warning). An empty reference is an error.
func RefInputs(run []metrics.FlowRecord, refPath string) (refN, unmatched int, err error) {
	f, err := os.Open(refPath)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	ref, err := metrics.ReadRefFCT(f)
	if err != nil {
		return 0, 0, fmt.Errorf("%s: %w", refPath, err)
	}
	if len(ref) == 0 {
		return 0, 0, fmt.Errorf("%s: no flows (want the reference simulator's fct.txt: one finished flow per line, 8 fields)", refPath)
	}
	type key struct{ size, startNs int64 }
	have := make(map[key]int, len(run))
	for _, r := range run {
		have[key{r.SizeBytes, int64(r.Start / sim.Nanosecond)}]++
	}
	for _, l := range ref {
		k := key{l.SizeBytes, l.StartNs}
		if have[k] == 0 {
			unmatched++
			continue
		}
		have[k]--
	}
	return len(ref), unmatched, nil
}
