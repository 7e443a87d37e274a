package metrics

import (
	"encoding/json"
	"math"
	mathbits "math/bits"
	"slices"

	"github.com/ccsim/ccsim/sim"
)

// FlowRecord is the outcome of one flow.
type FlowRecord struct {
	// ID is the flow's identifier, unique within a run.
	ID int
	// Src and Dst are the source and destination node ids.
	Src, Dst int
	// SPort and DPort are the source and destination ports (the reference
	// uses DPort as the priority/traffic class).
	SPort, DPort int
	// Prio is the flow's priority class.
	Prio int
	// SizeBytes is the flow's payload size in bytes.
	SizeBytes int64
	// Start is when the flow started; Finish when its last byte was
	// acknowledged (meaningful only when Done).
	Start, Finish sim.Time
	// IdealFCT is the flow's completion time alone on an idle network.
	IdealFCT sim.Time
	// Done reports whether the flow finished.
	Done bool
	// NotStarted marks a chained flow that never started (its predecessor
	// did not complete): Start is then unknown.
	NotStarted bool
	// Group is the flow's traffic class tag (workload.GroupName: "cross",
	// "intra", "incast", "bw", "probe"; "" untagged).
	Group string
}

// FCT is the flow completion time Finish-Start (meaningful only when Done).
func (r FlowRecord) FCT() sim.Time { return r.Finish - r.Start }

// Slowdown is FCT/IdealFCT clamped below at 1, as the reference analysis
// does (slow<1?1:slow). It is meaningful only when Done, and NaN when
// IdealFCT <= 0.
func (r FlowRecord) Slowdown() float64 {
	return slowdown(r.FCT(), r.IdealFCT)
}

// NoCensoring, as the end time of SummarizeFlows or SizeBins, leaves
// unfinished flows out of the statistics: the reference analysis's rule
// (its fct.txt lists finished flows only), used only to compare with it.
// Every other statistic censors them (docs/metrics.md §5).
const NoCensoring sim.Time = -1

// Outcome is the FCT and slowdown a statistic counts for the flow in a run
// that ended at end: a finished flow's own; an unfinished flow that had
// started is censored at the end (FCT = end − Start, a lower bound of its
// true FCT, and its slowdown likewise). ok is false for a flow that never
// started (a chained flow whose predecessor did not complete, or a start at
// or after the end) and, with end = NoCensoring, for every unfinished flow.
func (r *FlowRecord) Outcome(end sim.Time) (fct sim.Time, sd float64, censored, ok bool) {
	switch {
	case r.Done:
		return r.FCT(), r.Slowdown(), false, true
	case end == NoCensoring || r.NotStarted || r.Start >= end:
		return 0, 0, false, false
	}
	fct = end - r.Start
	return fct, slowdown(fct, r.IdealFCT), true, true
}

func slowdown(fct, ideal sim.Time) float64 {
	if ideal <= 0 {
		return math.NaN()
	}
	s := float64(fct) / float64(ideal)
	if s < 1 {
		return 1
	}
	return s
}

// Flow size classes used by FCTSummary, with exactly the reference
// analysis semantics:
//
//	small_lt100KB:  SizeBytes <  100000
//	mid_100KB_1MB:  100000 <= SizeBytes <= 1000000 (both ends inclusive)
//	large_gt1MB:    SizeBytes >  1000000
const (
	// SmallFlowLimitBytes is the size (bytes) below which a flow is "small".
	SmallFlowLimitBytes = 100_000
	// LargeFlowLimitBytes is the size (bytes) above which a flow is
	// "large"; flows in [SmallFlowLimitBytes, LargeFlowLimitBytes] are "mid".
	LargeFlowLimitBytes = 1_000_000
)

// FlowGroup holds the slowdown and FCT distributions of the flows of one
// size class: the finished flows and the unfinished ones censored at the
// run's end (see SummarizeFlows). Its JSON form is flat and mirrors the
// reference summary files: {"n", "censored", "mean_sd", "p50_sd", "p95_sd",
// "p99_sd", "max_sd", "mean_fct_us", "p50_fct_us", "p95_fct_us",
// "p99_fct_us", "max_fct_us"}; an empty group encodes as {"n": 0,
// "censored": 0}.
type FlowGroup struct {
	// N is the number of flows in the group, censored ones included.
	N int
	// Censored is the number of them that had not finished when the run
	// ended: each enters with its FCT and slowdown at the end, a lower
	// bound, so that with Censored > 0 every statistic of the group is a
	// lower bound.
	Censored int
	// Slowdown is the distribution of slowdowns (dimensionless, >= 1).
	Slowdown Dist
	// FCTUs is the distribution of FCTs in microseconds.
	FCTUs Dist
}

type flowGroupJSON struct {
	N         int      `json:"n"`
	Censored  int      `json:"censored"`
	MeanSD    *float64 `json:"mean_sd,omitempty"`
	P50SD     *float64 `json:"p50_sd,omitempty"`
	P95SD     *float64 `json:"p95_sd,omitempty"`
	P99SD     *float64 `json:"p99_sd,omitempty"`
	MaxSD     *float64 `json:"max_sd,omitempty"`
	MeanFCTUs *float64 `json:"mean_fct_us,omitempty"`
	P50FCTUs  *float64 `json:"p50_fct_us,omitempty"`
	P95FCTUs  *float64 `json:"p95_fct_us,omitempty"`
	P99FCTUs  *float64 `json:"p99_fct_us,omitempty"`
	MaxFCTUs  *float64 `json:"max_fct_us,omitempty"`
}

// MarshalJSON encodes g in the reference summary's flat form.
func (g FlowGroup) MarshalJSON() ([]byte, error) {
	j := flowGroupJSON{N: g.N, Censored: g.Censored}
	if g.N > 0 {
		j.MeanSD, j.P50SD, j.P95SD, j.P99SD, j.MaxSD = &g.Slowdown.Mean, &g.Slowdown.P50, &g.Slowdown.P95, &g.Slowdown.P99, &g.Slowdown.Max
		j.MeanFCTUs, j.P50FCTUs, j.P95FCTUs, j.P99FCTUs, j.MaxFCTUs = &g.FCTUs.Mean, &g.FCTUs.P50, &g.FCTUs.P95, &g.FCTUs.P99, &g.FCTUs.Max
	}
	return json.Marshal(j)
}

// UnmarshalJSON decodes the flat form written by MarshalJSON (and by the
// reference analysis). Missing fields are left 0; Min is not encoded.
func (g *FlowGroup) UnmarshalJSON(b []byte) error {
	var j flowGroupJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	get := func(p *float64) float64 {
		if p == nil {
			return 0
		}
		return *p
	}
	*g = FlowGroup{
		N:        j.N,
		Censored: j.Censored,
		Slowdown: Dist{N: j.N, Mean: get(j.MeanSD), P50: get(j.P50SD), P95: get(j.P95SD), P99: get(j.P99SD), Max: get(j.MaxSD)},
		FCTUs:    Dist{N: j.N, Mean: get(j.MeanFCTUs), P50: get(j.P50FCTUs), P95: get(j.P95FCTUs), P99: get(j.P99FCTUs), Max: get(j.MaxFCTUs)},
	}
	return nil
}

// FCTSummary summarizes a set of flow records. The FCT and slowdown
// distributions cover every flow that started: the finished ones and the
// unfinished ones censored at the run's end (dropping the latter would
// favour whichever algorithm leaves flows unfinished); the byte count, the
// sending rate and the time span cover finished flows only. Its JSON form
// mirrors the reference analysis summary files; values are not rounded. A
// counted flow with IdealFCT <= 0 has a NaN slowdown, which makes
// json.Marshal fail rather than silently report a wrong number.
type FCTSummary struct {
	// Flows is the number of records given.
	Flows int `json:"flows_in_file"`
	// Finished is the number of records with Done set.
	Finished int `json:"finished"`
	// Unfinished is Flows - Finished.
	Unfinished int `json:"unfinished"`
	// Censored is the number of unfinished flows that had started: they
	// enter the distributions censored at the run's end (Unfinished −
	// Censored flows never started and are left out).
	Censored int `json:"censored"`
	// End is the run's end, where unfinished flows are censored
	// (NoCensoring: they are left out).
	End sim.Time `json:"-"`
	// FirstStart is the earliest Start of a finished flow (0 if none).
	FirstStart sim.Time `json:"-"`
	// LastFinish is the latest Finish of a finished flow (0 if none).
	LastFinish sim.Time `json:"-"`
	// FirstStartNs is FirstStart in nanoseconds.
	FirstStartNs float64 `json:"first_start_ns"`
	// LastFinishNs is LastFinish in nanoseconds.
	LastFinishNs float64 `json:"last_finish_ns"`
	// SimSpanUs is LastFinish-FirstStart in microseconds.
	SimSpanUs float64 `json:"sim_span_us"`
	// BytesFinished is the total size of finished flows in bytes.
	BytesFinished int64 `json:"bytes_finished"`
	// MeanSendingRateGbps is Σ(size·8) / Σ(FCT in seconds) / 1e9 over
	// finished flows, in Gb/s (0 if there are none or ΣFCT is 0).
	MeanSendingRateGbps float64 `json:"mean_sending_rate_gbps"`
	// FinishTime is the largest FCT of a finished flow (0 if none).
	FinishTime sim.Time `json:"-"`
	// FinishTimeUs is FinishTime in microseconds.
	FinishTimeUs float64 `json:"finish_time_us"`
	// All covers every counted flow (finished or censored).
	All FlowGroup `json:"all"`
	// Small covers counted flows with SizeBytes < 100000.
	Small FlowGroup `json:"small_lt100KB"`
	// Mid covers counted flows with 100000 <= SizeBytes <= 1000000.
	Mid FlowGroup `json:"mid_100KB_1MB"`
	// Large covers counted flows with SizeBytes > 1000000.
	Large FlowGroup `json:"large_gt1MB"`
}

// SummarizeFlows computes an FCTSummary of recs from a run that ended at
// end (summary.json's sim_end_ns): unfinished flows that started are
// censored at end (end = NoCensoring leaves them out, only to compare with
// the reference analysis). The result does not depend on the order of recs.
func SummarizeFlows(recs []FlowRecord, end sim.Time) FCTSummary {
	s := FCTSummary{Flows: len(recs), End: end}
	// Exact integer sums keep the result independent of record order:
	// bits fit in int64 for any realistic run, the FCT sum in 128 bits.
	var bits int64
	var fctHi, fctLo uint64
	for i := range recs {
		r := &recs[i]
		if !r.Done {
			continue
		}
		if s.Finished == 0 || r.Start < s.FirstStart {
			s.FirstStart = r.Start
		}
		if s.Finished == 0 || r.Finish > s.LastFinish {
			s.LastFinish = r.Finish
		}
		if f := r.FCT(); f > s.FinishTime {
			s.FinishTime = f
		}
		s.Finished++
		s.BytesFinished += r.SizeBytes
		bits += r.SizeBytes * 8
		var carry uint64
		fctLo, carry = mathbits.Add64(fctLo, uint64(r.FCT()), 0)
		fctHi += carry
	}
	s.Unfinished = s.Flows - s.Finished
	s.FirstStartNs = s.FirstStart.Nanoseconds()
	s.LastFinishNs = s.LastFinish.Nanoseconds()
	s.SimSpanUs = (s.LastFinish - s.FirstStart).Microseconds()
	s.FinishTimeUs = s.FinishTime.Microseconds()
	if fctSec := (float64(fctHi)*0x1p64 + float64(fctLo)) / float64(sim.Second); fctSec > 0 {
		s.MeanSendingRateGbps = float64(bits) / fctSec / 1e9
	}

	// One backing array per quantity, partitioned by class: the three
	// classes are contiguous, and "all" is sorted separately afterwards.
	sd := make([]float64, 0, 2*len(recs))
	fct := make([]float64, 0, 2*len(recs))
	var bounds [4]int
	var censored [3]int
	for c := 0; c < 3; c++ {
		for i := range recs {
			r := &recs[i]
			if sizeClass(r.SizeBytes) != c {
				continue
			}
			f, d, cens, ok := r.Outcome(end)
			if !ok {
				continue
			}
			sd = append(sd, d)
			fct = append(fct, f.Microseconds())
			if cens {
				censored[c]++
			}
		}
		bounds[c+1] = len(sd)
	}
	groups := [3]*FlowGroup{&s.Small, &s.Mid, &s.Large}
	for c, g := range groups {
		*g = summarizeGroup(sd[bounds[c]:bounds[c+1]], fct[bounds[c]:bounds[c+1]])
		g.Censored = censored[c]
		s.Censored += censored[c]
	}
	n := len(sd)
	sd = append(sd, sd...)
	fct = append(fct, fct...)
	s.All = summarizeGroup(sd[n:], fct[n:])
	s.All.Censored = s.Censored
	return s
}

// sizeClass returns 0 for small, 1 for mid, 2 for large flows.
func sizeClass(size int64) int {
	switch {
	case size < SmallFlowLimitBytes:
		return 0
	case size <= LargeFlowLimitBytes:
		return 1
	default:
		return 2
	}
}

// summarizeGroup sorts sd and fct in place and summarizes them.
func summarizeGroup(sd, fct []float64) FlowGroup {
	slices.Sort(sd)
	slices.Sort(fct)
	return FlowGroup{N: len(sd), Slowdown: SummarizeSorted(sd), FCTUs: SummarizeSorted(fct)}
}
