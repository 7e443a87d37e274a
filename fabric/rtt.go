package fabric

import (
	"math"
	"math/bits"

	"github.com/ccsim/ccsim/sim"
)

// RTTHist accumulates RTT samples in a log-linear histogram: 64 linear
// sub-buckets per power of two of nanoseconds, so a percentile is exact to
// within 1/64 (1.6 %); mean and max are exact. Adding a sample allocates
// nothing.
type RTTHist struct {
	Count  int64
	Sum    sim.Time
	MaxRTT sim.Time
	MinRTT sim.Time
	b      [64 * 40]int64
}

const rttSub = 64

func rttBucket(ns int64) int {
	if ns < rttSub {
		return int(ns)
	}
	e := bits.Len64(uint64(ns)) - 7 // ns >> e in [64, 128)
	return (e+1)*rttSub + int(ns>>uint(e)) - rttSub
}

func rttUpper(b int) int64 {
	if b < rttSub {
		return int64(b)
	}
	e := b/rttSub - 1
	m := int64(b%rttSub + rttSub)
	return (m+1)<<uint(e) - 1
}

// Add records one sample.
func (h *RTTHist) Add(t sim.Time) {
	if h.Count == 0 || t < h.MinRTT {
		h.MinRTT = t
	}
	h.Count++
	h.Sum += t
	if t > h.MaxRTT {
		h.MaxRTT = t
	}
	ns := int64(t / sim.Nanosecond)
	if ns < 0 {
		ns = 0
	}
	b := rttBucket(ns)
	if b >= len(h.b) {
		b = len(h.b) - 1
	}
	h.b[b]++
}

// Mean is the mean RTT.
func (h *RTTHist) Mean() sim.Time {
	if h.Count == 0 {
		return 0
	}
	return h.Sum / sim.Time(h.Count)
}

// Quantile returns the upper edge of the bucket holding the sample at index
// floor(Count·p) of the sorted samples (the project's percentile rule),
// capped at the exact maximum.
func (h *RTTHist) Quantile(p float64) sim.Time {
	if h.Count == 0 {
		return 0
	}
	idx := int64(math.Floor(float64(h.Count) * p))
	if idx >= h.Count {
		idx = h.Count - 1
	}
	var c int64
	for b, k := range h.b {
		c += k
		if c > idx {
			v := sim.Time(rttUpper(b)) * sim.Nanosecond
			if v > h.MaxRTT {
				v = h.MaxRTT
			}
			return v
		}
	}
	return h.MaxRTT
}
