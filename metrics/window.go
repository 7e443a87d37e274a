package metrics

import (
	"cmp"
	"slices"

	"github.com/ccsim/ccsim/sim"
)

// ByteSeries holds, per flow, samples of the flow's cumulative delivered
// bytes at given times (e.g. one sample per ACK, or one per flow at every
// tick of a periodic monitor). The zero value is ready to use.
//
// Between two consecutive samples of a flow the cumulative byte count is
// interpolated linearly, so a flow delivering at a constant rate is
// represented exactly by any two of its samples. A flow's active interval
// is [first sample, last sample]; outside it the flow is not active. To
// make the active interval exact, record a sample of 0 bytes at the flow's
// start and one of its size at its completion.
//
// Samples of a flow may be added in any time order (they are sorted
// stably by time on first use). When a flow has several samples at the
// same time, the one added last is its value at that instant.
type ByteSeries struct {
	index map[int]int // flow id -> position in flows
	flows []byteFlow
}

type byteFlow struct {
	id      int
	samples []byteSample
	sorted  bool
}

type byteSample struct {
	at    sim.Time
	bytes int64
}

// Add records that flow had delivered bytes cumulative bytes at time at.
func (s *ByteSeries) Add(flow int, at sim.Time, bytes int64) {
	if s.index == nil {
		s.index = make(map[int]int)
	}
	i, ok := s.index[flow]
	if !ok {
		i = len(s.flows)
		s.index[flow] = i
		s.flows = append(s.flows, byteFlow{id: flow, sorted: true})
	}
	f := &s.flows[i]
	if n := len(f.samples); n > 0 && at < f.samples[n-1].at {
		f.sorted = false
	}
	f.samples = append(f.samples, byteSample{at, bytes})
}

// Flows returns the ids of the flows with at least one sample, ascending.
func (s *ByteSeries) Flows() []int {
	ids := make([]int, len(s.flows))
	for i := range s.flows {
		ids[i] = s.flows[i].id
	}
	slices.Sort(ids)
	return ids
}

// Len is the number of flows with at least one sample.
func (s *ByteSeries) Len() int { return len(s.flows) }

// FlowRate is the throughput of one flow over a window.
type FlowRate struct {
	// ID is the flow id.
	ID int
	// Bps is the flow's delivered rate in bits per second over the part
	// of the window during which it was active.
	Bps float64
	// Active is that part's length (> 0).
	Active sim.Time
}

// WindowRates returns, in ascending flow id, the throughput of every flow
// active during the window [from, to]: a flow is active during the window
// when its active interval [first sample, last sample] overlaps the window
// with positive length. Its rate is
//
//	(B(b) − B(a)) · 8 / (b − a) bits/s, a = max(from, first), b = min(to, last)
//
// with B the linearly interpolated cumulative byte count. Flows that are
// active during the whole window are thus compared over the same interval;
// a flow that starts or finishes inside the window is measured over its
// own active part only. It returns nil when to <= from.
func WindowRates(s *ByteSeries, from, to sim.Time) []FlowRate {
	if s == nil || to <= from {
		return nil
	}
	var out []FlowRate
	for i := range s.flows {
		f := &s.flows[i]
		if !f.sorted {
			slices.SortStableFunc(f.samples, func(x, y byteSample) int { return cmp.Compare(x.at, y.at) })
			f.sorted = true
		}
		first, last := f.samples[0].at, f.samples[len(f.samples)-1].at
		a, b := max(from, first), min(to, last)
		if b <= a {
			continue
		}
		bits := (f.bytesAt(b) - f.bytesAt(a)) * 8
		out = append(out, FlowRate{ID: f.id, Bps: bits / (b - a).Seconds(), Active: b - a})
	}
	slices.SortFunc(out, func(x, y FlowRate) int { return cmp.Compare(x.ID, y.ID) })
	return out
}

// WindowThroughput returns the rates in bits/s of WindowRates(s, from, to)
// (flows active during the window, in ascending flow id).
func WindowThroughput(s *ByteSeries, from, to sim.Time) []float64 {
	rs := WindowRates(s, from, to)
	if rs == nil {
		return nil
	}
	out := make([]float64, len(rs))
	for i, r := range rs {
		out[i] = r.Bps
	}
	return out
}

// JainOverWindow is Jain's fairness index of WindowThroughput(s, from, to):
// 1 when every flow active during the window got the same rate, 0 when no
// flow was active.
func JainOverWindow(s *ByteSeries, from, to sim.Time) float64 {
	return Jain(WindowThroughput(s, from, to))
}

// bytesAt returns the interpolated cumulative bytes at t, which must lie
// within the flow's (sorted) sample range.
func (f *byteFlow) bytesAt(t sim.Time) float64 {
	sm := f.samples
	// j = index of the first sample later than t; sm[j-1] is the last
	// sample at or before t (the last added among equal times).
	j, _ := slices.BinarySearchFunc(sm, t, func(x byteSample, t sim.Time) int {
		if x.at <= t {
			return -1
		}
		return 1
	})
	if j == 0 {
		return float64(sm[0].bytes)
	}
	p := sm[j-1]
	if j == len(sm) || p.at == t {
		return float64(p.bytes)
	}
	q := sm[j]
	return float64(p.bytes) + float64(q.bytes-p.bytes)*float64(t-p.at)/float64(q.at-p.at)
}
