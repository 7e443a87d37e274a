package metrics

import (
	"math"
	"math/bits"

	"github.com/ccsim/ccsim/sim"
)

// LatencyHist accumulates latencies (docs/metrics.md §16) with exact
// percentiles at 1-ns resolution in bounded memory: every sample is
// counted in the bucket of its value truncated to a whole nanosecond, so
// the percentile it reports is exactly ⌊v/1 ns⌋ of the sample v the
// canonical rule (docs/metrics.md §1) selects among all samples
// (truncation is monotone, so it commutes with sorting). Count, sum (and
// so the mean), minimum and maximum are exact to the picosecond.
//
// The buckets live in pages of latPageNs consecutive nanoseconds,
// allocated when a sample first falls in their range and indexed by a
// table of page pointers. Memory is therefore 8 B per latPageNs ns up to
// the largest latency (the table) plus 16 KiB per page holding a sample:
// at most about 4 B per ns of the latency range actually covered
// (1 ms of spread: 4 MiB), whatever the number of samples. Add allocates
// only when a sample falls in a new page or beyond the table; in steady
// state (latencies within the pages seen) it allocates nothing and
// touches one counter. The zero value is ready to use.
type LatencyHist struct {
	count    int64
	sumHi    uint64 // 128-bit sum of the samples in ps (exact mean)
	sumLo    uint64
	min, max sim.Time
	pages    []*latPage
	// wraps lists the buckets (ns) whose 32-bit counter wrapped, once per
	// wrap: each entry adds 2³² samples to its bucket (never seen in
	// practice: 4·10⁹ packets of the same nanosecond).
	wraps []int64
}

// latPageNs is the number of 1-ns buckets per page (a power of two).
const (
	latPageBits = 12
	latPageNs   = 1 << latPageBits
)

// latPage counts the samples of latPageNs consecutive nanoseconds.
type latPage [latPageNs]uint32

// Add records one latency sample; negative values count as 0.
func (h *LatencyHist) Add(t sim.Time) {
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
	var c uint64
	h.sumLo, c = bits.Add64(h.sumLo, uint64(t), 0)
	h.sumHi += c
	ns := uint64(t) / uint64(sim.Nanosecond)
	if k := ns >> latPageBits; k < uint64(len(h.pages)) {
		if p := h.pages[k]; p != nil {
			i := ns & (latPageNs - 1)
			p[i]++
			if p[i] == 0 {
				h.wrapped(ns)
			}
			return
		}
	}
	h.addNewPage(ns)
}

// addNewPage counts a sample of ns nanoseconds whose page does not exist
// yet: it grows the table and allocates the page.
//
//go:noinline
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

// wrapped notes that bucket ns's counter wrapped past 2³² − 1.
//
//go:noinline
func (h *LatencyHist) wrapped(ns uint64) { h.wraps = append(h.wraps, int64(ns)) }

// Reset discards all samples, keeping the allocated pages.
func (h *LatencyHist) Reset() {
	for _, p := range h.pages {
		if p != nil {
			*p = latPage{}
		}
	}
	pages := h.pages
	*h = LatencyHist{pages: pages, wraps: h.wraps[:0]}
}

// Count is the number of samples.
func (h *LatencyHist) Count() int64 { return h.count }

// Min is the smallest sample, exact (0 with no samples).
func (h *LatencyHist) Min() sim.Time { return h.min }

// Max is the largest sample, exact (0 with no samples).
func (h *LatencyHist) Max() sim.Time { return h.max }

// Mean is the mean sample in ps, from the exact sum (0 with no samples).
func (h *LatencyHist) Mean() float64 {
	if h.count == 0 {
		return 0
	}
	return (float64(h.sumHi)*0x1p64 + float64(h.sumLo)) / float64(h.count)
}

// SumPs is the exact sum of the samples in ps, and false if it does not
// fit in an int64 (beyond 2⁶³ ps, about 107 days of summed latency).
func (h *LatencyHist) SumPs() (sum int64, ok bool) {
	if h.sumHi != 0 || h.sumLo > math.MaxInt64 {
		return 0, false
	}
	return int64(h.sumLo), true
}

// Bytes is the memory the histogram holds (table, pages, wrap list).
func (h *LatencyHist) Bytes() int64 {
	b := int64(cap(h.pages))*8 + int64(cap(h.wraps))*8
	for _, p := range h.pages {
		if p != nil {
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
	var extra map[int64]uint64 // wrapped buckets (almost always none)
	if len(h.wraps) > 0 {
		extra = make(map[int64]uint64, len(h.wraps))
		for _, ns := range h.wraps {
			extra[ns] += 1 << 32
		}
	}
	var seen uint64
	target := uint64(idx)
	for k, pg := range h.pages {
		if pg == nil {
			continue
		}
		for i, c := range pg {
			n := uint64(c)
			ns := int64(k)<<latPageBits + int64(i)
			if extra != nil {
				n += extra[ns]
			}
			seen += n
			if seen > target {
				return ns
			}
		}
	}
	return int64(h.max / sim.Nanosecond) // unreachable: the counts sum to count
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
	return PacketLatency{Packets: h.count, MeanNs: h.Mean() / float64(sim.Nanosecond),
		MinNs: h.min.Nanoseconds(), P50Ns: h.PercentileNs(0.5), P99Ns: h.PercentileNs(0.99),
		P999Ns: h.PercentileNs(0.999), MaxNs: h.max.Nanoseconds()}
}
