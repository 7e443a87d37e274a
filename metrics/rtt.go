package metrics

import (
	"slices"

	"github.com/ccsim/ccsim/sim"
)

// RTTStats accumulates RTT samples exactly. Add is O(1) amortized and does
// not allocate once the sample slice has grown (use NewRTTStats to
// preallocate); percentiles sort the samples in place on demand and the
// sorted state is kept until the next Add. The zero value is ready to use.
type RTTStats struct {
	samples []int64 // picoseconds
	sumPs   int64
	maxPs   int64
	sorted  bool
}

// NewRTTStats returns an RTTStats with room for capacity samples.
func NewRTTStats(capacity int) *RTTStats {
	return &RTTStats{samples: make([]int64, 0, capacity)}
}

// Add records one RTT sample.
func (s *RTTStats) Add(rtt sim.Time) {
	v := int64(rtt)
	if len(s.samples) == 0 || v > s.maxPs {
		s.maxPs = v
	}
	s.samples = append(s.samples, v)
	s.sumPs += v
	s.sorted = false
}

// Reset discards all samples, keeping the allocated storage.
func (s *RTTStats) Reset() {
	s.samples = s.samples[:0]
	s.sumPs, s.maxPs, s.sorted = 0, 0, false
}

// Count is the number of samples.
func (s *RTTStats) Count() int { return len(s.samples) }

// Mean is the mean RTT, truncated to a picosecond (0 with no samples).
func (s *RTTStats) Mean() sim.Time {
	if len(s.samples) == 0 {
		return 0
	}
	return sim.Time(s.sumPs / int64(len(s.samples)))
}

// Max is the largest RTT (0 with no samples).
func (s *RTTStats) Max() sim.Time { return sim.Time(s.maxPs) }

// P99 is the 99th-percentile RTT by the canonical rule (0 with no samples).
func (s *RTTStats) P99() sim.Time { return s.Percentile(0.99) }

// Percentile is the p-quantile RTT by the canonical rule (0 with no
// samples or NaN p).
func (s *RTTStats) Percentile(p float64) sim.Time {
	i := PercentileIndex(len(s.samples), p)
	if i < 0 {
		return 0
	}
	if !s.sorted {
		slices.Sort(s.samples)
		s.sorted = true
	}
	return sim.Time(s.samples[i])
}

// Summary returns the distribution of the samples in microseconds.
func (s *RTTStats) Summary() Dist {
	if len(s.samples) == 0 {
		return Dist{}
	}
	if !s.sorted {
		slices.Sort(s.samples)
		s.sorted = true
	}
	us := make([]float64, len(s.samples))
	for i, v := range s.samples {
		us[i] = sim.Time(v).Microseconds()
	}
	return SummarizeSorted(us)
}
