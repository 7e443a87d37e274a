package metrics

import (
	"github.com/ccsim/ccsim/sim"
)

// LatencyHist accumulates latencies (docs/metrics.md §16) with exact
// percentiles at 1-ns resolution in bounded memory: every sample is
// counted in the bucket of its value truncated to a whole nanosecond, so
// the percentile it reports is exactly ⌊v/1 ns⌋ of the sample v the
// canonical rule (docs/metrics.md §1) selects among all samples
// (truncation is monotone, so it commutes with sorting). Count, minimum
// and maximum are exact to the picosecond, and so are the sum and mean
// while count × max < 2⁶³ ps (SumPs).
//
// The buckets are 16-bit counters in pages of latPageNs consecutive
// nanoseconds, allocated when a sample first falls in their range and
// indexed by a table of page pointers; a counter that passes 65,535
// carries into a 32-bit counter of a parallel carry page, allocated at
// the first carry of its page (so counts stay exact up to 2⁴⁸ samples per
// nanosecond). Memory is therefore 8 B per latPageNs ns up to the largest
// latency (the table) plus 8 KiB per page holding a sample and 16 KiB per
// page with a bucket of more than 65,535 samples: at most about 2 B per
// ns of the latency range actually covered, 6 B where single
// nanoseconds hold that many samples, whatever the number of samples.
// Add allocates only when a sample falls in a new page or beyond the
// table (or carries for the first time in a page); in steady state it
// allocates nothing and touches one counter. The zero value is ready to
// use.
type LatencyHist struct {
	count int64
	// sum of the samples in ps, exact while count × max < 2⁶³ (checked
	// where it is read: beyond, the mean comes from the buckets)
	sum      int64
	min, max sim.Time
	pages    []*latPage
	// carry[k][i] counts the wraps of pages[k][i] past 65,535 (carry is
	// nil, or as long as pages, with nil entries for pages without one)
	carry []*latCarry
}

// latPageNs is the number of 1-ns buckets per page (a power of two).
const (
	latPageBits = 12
	latPageNs   = 1 << latPageBits
)

// latPage counts the samples of latPageNs consecutive nanoseconds, mod
// 2¹⁶ (an 8 KiB object: a size class of its own, no slack).
type latPage [latPageNs]uint16

// latCarry counts the wraps of a page's counters.
type latCarry [latPageNs]uint32

// Add records one latency sample; negative values count as 0.
func (h *LatencyHist) Add(t sim.Time) {
	if !h.TryAdd(t) {
		h.addSlow(t)
	}
}

// TryAdd is Add's fast path, for callers on a hot path: it records t if
// t lies strictly above the minimum, at most at the maximum, in an
// existing page, and its counter does not carry (the steady state), and
// reports whether it did; if not, the caller calls Add. It makes no call,
// so the compiler inlines it:
//
//	if !h.TryAdd(t) {
//		h.Add(t)
//	}
func (h *LatencyHist) TryAdd(t sim.Time) bool {
	ns := uint64(t) / uint64(sim.Nanosecond)
	k := ns >> latPageBits
	if t <= h.min || t > h.max || k >= uint64(len(h.pages)) {
		return false
	}
	p := h.pages[k]
	i := ns & (latPageNs - 1)
	if p == nil || p[i] == 1<<16-1 {
		return false
	}
	p[i]++
	h.count++
	h.sum += int64(t)
	return true
}

// addSlow is Add for a sample that sets a new minimum or maximum, is
// negative, falls in a page that does not exist yet, or carries.
//
//go:noinline
func (h *LatencyHist) addSlow(t sim.Time) {
	if t < 0 {
		t = 0
	}
	if h.count == 0 || t < h.min {
		h.min = t
	}
	if t > h.max {
		h.max = t
	}
	h.count++
	h.sum += int64(t)
	ns := uint64(t) / uint64(sim.Nanosecond)
	if k := ns >> latPageBits; k < uint64(len(h.pages)) {
		if p := h.pages[k]; p != nil {
			i := ns & (latPageNs - 1)
			if p[i]++; p[i] == 0 {
				h.carryOut(ns)
			}
			return
		}
	}
	h.addNewPage(ns)
}

// addNewPage counts a sample of ns nanoseconds whose page does not exist
// yet: it grows the table and allocates the page.
func (h *LatencyHist) addNewPage(ns uint64) {
	k := int(ns >> latPageBits)
	if k >= len(h.pages) {
		// grow by doubling: O(log) table allocations over a run
		n := max(k+1, 2*len(h.pages))
		pages := make([]*latPage, n)
		copy(pages, h.pages)
		h.pages = pages
	}
	h.pages[k] = new(latPage)
	h.pages[k][ns&(latPageNs-1)] = 1
}

// carryOut notes that bucket ns's 16-bit counter wrapped past 65,535.
//
//go:noinline
func (h *LatencyHist) carryOut(ns uint64) {
	k := int(ns >> latPageBits)
	if len(h.carry) < len(h.pages) {
		c := make([]*latCarry, len(h.pages))
		copy(c, h.carry)
		h.carry = c
	}
	if h.carry[k] == nil {
		h.carry[k] = new(latCarry)
	}
	h.carry[k][ns&(latPageNs-1)]++
}

// Reset discards all samples, keeping the allocated pages.
func (h *LatencyHist) Reset() {
	for _, p := range h.pages {
		if p != nil {
			*p = latPage{}
		}
	}
	for _, c := range h.carry {
		if c != nil {
			*c = latCarry{}
		}
	}
	*h = LatencyHist{pages: h.pages, carry: h.carry}
}

// Count is the number of samples.
func (h *LatencyHist) Count() int64 { return h.count }

// Min is the smallest sample, exact (0 with no samples).
func (h *LatencyHist) Min() sim.Time { return h.min }

// Max is the largest sample, exact (0 with no samples).
func (h *LatencyHist) Max() sim.Time { return h.max }

// Mean is the mean sample in ps (0 with no samples): from the exact sum,
// or, when the sum may have passed 2⁶³ ps (SumPs), from the buckets, each
// sample taken as its whole ns plus 0.5 ns.
func (h *LatencyHist) Mean() float64 {
	if h.count == 0 {
		return 0
	}
	if s, ok := h.SumPs(); ok {
		return float64(s) / float64(h.count)
	}
	var sum float64
	h.eachBucket(func(ns int64, n uint64) bool {
		sum += (float64(ns) + 0.5) * float64(sim.Nanosecond) * float64(n)
		return true
	})
	return sum / float64(h.count)
}

// SumPs is the exact sum of the samples in ps, and false if it may not
// fit in an int64: when count × max reaches 2⁶³ ps (about 107 days of
// summed latency, e.g. 10⁹ packets of 9 ms).
func (h *LatencyHist) SumPs() (sum int64, ok bool) {
	if h.count > 0 && float64(h.count)*float64(h.max) >= 0x1p63 {
		return 0, false
	}
	return h.sum, true
}

// Bytes is the memory the histogram holds (tables and pages).
func (h *LatencyHist) Bytes() int64 {
	b := int64(cap(h.pages))*8 + int64(cap(h.carry))*8
	for _, p := range h.pages {
		if p != nil {
			b += latPageNs * 2
		}
	}
	for _, c := range h.carry {
		if c != nil {
			b += latPageNs * 4
		}
	}
	return b
}

// PercentileNs returns the p-quantile (canonical rule, docs/metrics.md
// §1) of the samples truncated to whole nanoseconds: exactly ⌊v/1 ns⌋ of
// the sample v at 0-based index ⌊n·p⌋ (clamped) of all samples sorted.
// It returns -1 with no samples. It walks every page (a few thousand
// adds per page): meant for the end of a run, not per packet.
func (h *LatencyHist) PercentileNs(p float64) int64 {
	idx := PercentileIndex(int(h.count), p)
	if idx < 0 {
		return -1
	}
	var seen uint64
	target := uint64(idx)
	res := int64(h.max / sim.Nanosecond) // not used: the counts sum to count
	h.eachBucket(func(ns int64, n uint64) bool {
		seen += n
		if seen > target {
			res = ns
			return false
		}
		return true
	})
	return res
}

// eachBucket calls f with every non-empty bucket (ns) and its count in
// ascending order until f returns false.
func (h *LatencyHist) eachBucket(f func(ns int64, n uint64) bool) {
	for k, pg := range h.pages {
		if pg == nil {
			continue
		}
		var cy *latCarry
		if k < len(h.carry) {
			cy = h.carry[k]
		}
		for i, c := range pg {
			n := uint64(c)
			if cy != nil {
				n += uint64(cy[i]) << 16
			}
			if n > 0 && !f(int64(k)<<latPageBits+int64(i), n) {
				return
			}
		}
	}
}

// PacketLatency is the distribution of one-way packet latencies (ns):
// summary.json's latency object (docs/outputs.md §2). The percentiles are
// exact at 1 ns (LatencyHist.PercentileNs); mean, min and max exact in ps.
type PacketLatency struct {
	Packets int64   `json:"packets"`
	MeanNs  float64 `json:"mean_ns"`
	MinNs   float64 `json:"min_ns"`
	P50Ns   int64   `json:"p50_ns"`
	P99Ns   int64   `json:"p99_ns"`
	P999Ns  int64   `json:"p999_ns"`
	MaxNs   float64 `json:"max_ns"`
}

// Summary returns the histogram's PacketLatency (all zero with no
// samples).
func (h *LatencyHist) Summary() PacketLatency {
	if h.count == 0 {
		return PacketLatency{}
	}
	var q [3]int64
	h.percentilesNs([]float64{0.5, 0.99, 0.999}, q[:])
	return PacketLatency{Packets: h.count, MeanNs: h.Mean() / float64(sim.Nanosecond),
		MinNs: h.min.Nanoseconds(), P50Ns: q[0], P99Ns: q[1], P999Ns: q[2], MaxNs: h.max.Nanoseconds()}
}

// percentilesNs writes PercentileNs(ps[i]) into out[i] for ascending ps in
// one walk over the buckets (a walk touches every counter up to the
// largest latency — about 2 MB on a 20 × 10 MB incast — so three separate
// walks cost milliseconds at the end of every run).
func (h *LatencyHist) percentilesNs(ps []float64, out []int64) {
	targets := make([]uint64, len(ps))
	for i, p := range ps {
		idx := PercentileIndex(int(h.count), p)
		if idx < 0 {
			out[i] = -1
			targets[i] = ^uint64(0)
			continue
		}
		targets[i] = uint64(idx)
		out[i] = int64(h.max / sim.Nanosecond)
	}
	next := 0
	for next < len(ps) && targets[next] == ^uint64(0) {
		next++
	}
	var seen uint64
	for k, pg := range h.pages {
		if pg == nil || next == len(ps) {
			continue
		}
		var cy *latCarry
		if k < len(h.carry) {
			cy = h.carry[k]
		}
		for i, c := range pg {
			n := uint64(c)
			if cy != nil {
				n += uint64(cy[i]) << 16
			}
			if n == 0 {
				continue
			}
			seen += n
			for next < len(ps) && seen > targets[next] {
				out[next] = int64(k)<<latPageBits + int64(i)
				next++
			}
			if next == len(ps) {
				return
			}
		}
	}
}
