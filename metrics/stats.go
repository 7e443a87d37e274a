// Package metrics turns simulation results into numbers and files: flow
// completion times and slowdowns, percentile summaries, size-binned slowdown
// tables, fairness, RTT and queue-length statistics, and writers/readers for
// the reference simulator's text formats (fct.txt, pfc.txt).
//
// # Percentile rule
//
// The whole project uses one percentile definition, the one used by the
// reference analysis scripts: sort the n samples ascending and take the
// element at 0-based index floor(n*p), clamped to n-1. The product n*p is
// computed in float64, exactly as Python's int(len(a)*p) does, so results
// match the reference bit for bit.
package metrics

import (
	"math"
	"slices"
)

// PercentileIndex returns the 0-based index that the canonical percentile
// rule selects among n sorted samples: floor(n*p) clamped to [0, n-1].
// It returns -1 when n <= 0 or p is NaN.
func PercentileIndex(n int, p float64) int {
	if n <= 0 || math.IsNaN(p) {
		return -1
	}
	x := float64(n) * p
	if x <= 0 {
		return 0
	}
	if x >= float64(n-1) {
		return n - 1
	}
	return int(x) // truncation == floor for x >= 0
}

// Percentile returns the p-quantile (p in [0,1]) of sorted, which must be
// sorted ascending, by the canonical rule: sorted[floor(n*p)] clamped to the
// last element. It returns NaN for an empty slice or NaN p.
func Percentile(sorted []float64, p float64) float64 {
	i := PercentileIndex(len(sorted), p)
	if i < 0 {
		return math.NaN()
	}
	return sorted[i]
}

// PercentileOf is Percentile on an unsorted slice: it sorts a copy of xs and
// leaves xs unchanged.
func PercentileOf(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return Percentile(s, p)
}

// PercentileCensored is the p-quantile (canonical rule) of a sample in
// which the values marked censored are lower bounds of the true ones (a
// flow censored at the run's end, docs/metrics.md §5). exact reports
// whether the quantile is the true one: it is when every censored value
// lies strictly above it, since raising values above the selected one
// cannot move it; otherwise it is a lower bound. NaN for an empty sample.
func PercentileCensored(xs []float64, censored []bool, p float64) (v float64, exact bool) {
	if len(xs) == 0 {
		return math.NaN(), false
	}
	v = PercentileOf(xs, p)
	for i, x := range xs {
		if i < len(censored) && censored[i] && x <= v {
			return v, false
		}
	}
	return v, true
}

// Dist summarizes a sample of float64 values. Percentiles follow the
// canonical rule (see Percentile). When N == 0 every statistic is 0.
type Dist struct {
	// N is the number of samples.
	N int `json:"n"`
	// Mean is the arithmetic mean, summed in ascending order so the result
	// does not depend on input order.
	Mean float64 `json:"mean"`
	// P50 is the median by the canonical rule.
	P50 float64 `json:"p50"`
	// P95 is the 95th percentile by the canonical rule.
	P95 float64 `json:"p95"`
	// P99 is the 99th percentile by the canonical rule.
	P99 float64 `json:"p99"`
	// Max is the largest sample.
	Max float64 `json:"max"`
	// Min is the smallest sample.
	Min float64 `json:"min"`
}

// Summarize computes a Dist of xs. xs is not modified (a copy is sorted).
func Summarize(xs []float64) Dist {
	if len(xs) == 0 {
		return Dist{}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return SummarizeSorted(s)
}

// SummarizeSorted computes a Dist of sorted, which must be sorted ascending.
// It does not allocate.
func SummarizeSorted(sorted []float64) Dist {
	n := len(sorted)
	if n == 0 {
		return Dist{}
	}
	sum := 0.0
	for _, x := range sorted {
		sum += x
	}
	return Dist{
		N:    n,
		Mean: sum / float64(n),
		P50:  Percentile(sorted, 0.50),
		P95:  Percentile(sorted, 0.95),
		P99:  Percentile(sorted, 0.99),
		Max:  sorted[n-1],
		Min:  sorted[0],
	}
}

// Jain returns Jain's fairness index (Σx)² / (n·Σx²) of xs: 1 when all
// values are equal, 1/n when one entity has everything.
//
// Edge cases: an empty slice yields 0 (there is nothing to be fair to); an
// all-zero slice yields 1 (everyone has the same, zero, share).
func Jain(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var sum, sumSq float64
	for _, x := range xs {
		sum += x
		sumSq += x * x
	}
	if sumSq == 0 {
		return 1
	}
	return sum * sum / (float64(len(xs)) * sumSq)
}
