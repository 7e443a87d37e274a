package dcqcnp

// The 80-to-1 incast of E2 and E3 (scenarios/papers/dcqcn-p/incast80.yaml)
// and the metrics read from its result files.

import (
	"fmt"
	"math"
	"slices"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/metrics"
	"github.com/ccsim/ccsim/sim"
)

const (
	base     = "incast80.yaml"
	switchID = 81 // the star's switch
	recvPort = 80 // its port towards the receiver (host 80)
	// kminBytes is the paper's K_min, 100 KiB (§3.1): the bottleneck
	// queue falling below it ends the incast episode.
	kminBytes = 100 << 10
)

// paperSizes are the senders' bytes: 1 × 150 MB, 2 × 200 MB, 17 × 10 MB,
// 60 × 5 MB (the paper's 143.05, 190.73, 9.54 and 4.77 MiB).
func paperSizes(div int64) []any {
	var out []any
	for i := range 80 {
		var s int64
		switch {
		case i == 0:
			s = 150_000_000
		case i < 3:
			s = 200_000_000
		case i < 20:
			s = 10_000_000
		default:
			s = 5_000_000
		}
		out = append(out, s/div)
	}
	return out
}

// scalePatch is the part of every run's patch that depends on the scale:
// quick divides the bytes by 1000, uses 5 QPs per sender and finer bins.
func scalePatch(sc experiment.Scale) map[string]any {
	if sc == experiment.ScaleQuick {
		return map[string]any{
			"stop_ms":  50,
			"workload": map[string]any{"incast": map[string]any{"sizes_bytes": paperSizes(1000), "qps_per_sender": 5}},
			"outputs": map[string]any{"series": map[string]any{
				"bin_us": 10, "flow_rate_bin_us": 20, "queue_bin_us": 1}},
		}
	}
	return map[string]any{}
}

// windowUs is the window of the minimum-rate metric at a scale.
func windowUs(sc experiment.Scale) float64 {
	if sc == experiment.ScaleQuick {
		return 10
	}
	return 100
}

// senderFlow is one sender's data: the flows of its QPs as one flow.
type senderFlow struct {
	Src   int
	Bytes int64
	Start sim.Time
	FCT   sim.Time // last QP finish − first QP start (0: unfinished)
}

// senderFlows groups the per-QP records by sender, in sender order.
func senderFlows(recs []metrics.FlowRecord) []senderFlow {
	by := map[int]*senderFlow{}
	fin := map[int]sim.Time{}
	done := map[int]bool{}
	for _, r := range recs {
		s := by[r.Src]
		if s == nil {
			s = &senderFlow{Src: r.Src, Start: r.Start}
			by[r.Src] = s
			done[r.Src] = true
		}
		s.Bytes += r.SizeBytes
		s.Start = min(s.Start, r.Start)
		if r.Done {
			fin[r.Src] = max(fin[r.Src], r.Finish)
		} else {
			done[r.Src] = false
		}
	}
	var out []senderFlow
	for src, s := range by {
		if done[src] {
			s.FCT = fin[src] - s.Start
		}
		out = append(out, *s)
	}
	slices.SortFunc(out, func(a, b senderFlow) int { return a.Src - b.Src })
	return out
}

// linkBin is one bin of link_rate.csv for the receiver's link.
type linkBin struct {
	Start, Len     float64 // ns
	Wire, Payload  int64   // bytes
	WireG, PayLoad float64 // Gb/s
}

func receiverLink(run *experiment.RunRef) ([]linkBin, error) {
	t, err := run.Table("link_rate.csv")
	if err != nil {
		return nil, err
	}
	v, err := t.FloatCols("bin_start_ns", "bin_ns", "node", "port", "wire_bytes", "payload_bytes", "wire_gbps", "payload_gbps")
	if err != nil {
		return nil, err
	}
	var out []linkBin
	for k := range t.Rows {
		if v[2][k] != switchID || v[3][k] != recvPort {
			continue
		}
		out = append(out, linkBin{Start: v[0][k], Len: v[1][k], Wire: int64(v[4][k]), Payload: int64(v[5][k]), WireG: v[6][k], PayLoad: v[7][k]})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("link_rate.csv has no rows of switch %d port %d", switchID, recvPort)
	}
	return out, nil
}

// queueBin is one bin of queue_series.csv for the bottleneck port.
type queueBin struct {
	Start          float64 // ns
	Min, Mean, Max float64 // bytes
}

func bottleneckQueue(run *experiment.RunRef) ([]queueBin, error) {
	t, err := run.Table("queue_series.csv")
	if err != nil {
		return nil, err
	}
	v, err := t.FloatCols("bin_start_ns", "node", "port", "min_bytes", "mean_bytes", "max_bytes")
	if err != nil {
		return nil, err
	}
	var out []queueBin
	for k := range t.Rows {
		if v[1][k] == switchID && v[2][k] == recvPort {
			out = append(out, queueBin{Start: v[0][k], Min: v[3][k], Mean: v[4][k], Max: v[5][k]})
		}
	}
	return out, nil
}

// minRate is the minimum over whole windows of the receiver link's wire
// rate, after the first window and before the last flow finishes
// (docs/metrics.md, paper 004 "minimum rate"); ok is false when there is
// no such window.
func minRate(bins []linkBin, window float64, lastFinishNs float64) (gbps float64, ok bool) {
	gbps = math.Inf(1)
	for _, b := range bins {
		if b.Len < window || b.Start < window || b.Start+b.Len > lastFinishNs {
			continue
		}
		gbps = min(gbps, b.WireG)
		ok = true
	}
	return gbps, ok
}

// meanRate is the receiver link's mean wire and payload rate from the
// first flow start to the last flow finish.
func meanRate(bins []linkBin, lastFinishNs float64) (wire, payload float64) {
	var w, p int64
	for _, b := range bins {
		if b.Start < lastFinishNs {
			w += b.Wire
			p += b.Payload
		}
	}
	return float64(w) * 8 / lastFinishNs, float64(p) * 8 / lastFinishNs
}

// incastCompletion is the time from the synchronous start until the
// bottleneck queue first drains below K_min after exceeding it (paper
// 004's "incast completion time", interpreted). state says "ok", "never
// congested" (0) or "never drained" (the end of the samples).
func incastCompletion(q []queueBin) (ns float64, state string) {
	exceeded := false
	for _, b := range q {
		if !exceeded {
			// the episode starts in the first bin in which the queue
			// reached K_min; it ends in the first later bin that holds a
			// sample below K_min
			exceeded = b.Max >= kminBytes
			continue
		}
		if b.Min < kminBytes {
			return b.Start, "ok"
		}
	}
	if !exceeded {
		return 0, "never congested"
	}
	if len(q) == 0 {
		return 0, "no samples"
	}
	return q[len(q)-1].Start, "never drained"
}

// fairnessCoV is the coefficient of variation (std/mean, population) of
// the senders' throughput over the interval in which all are active: from
// the start until the first sender completes (whole flow-rate bins only).
func fairnessCoV(run *experiment.RunRef, senders []senderFlow) (cov float64, intervalNs float64, err error) {
	first := math.Inf(1) // ns
	for _, s := range senders {
		if s.FCT > 0 {
			first = min(first, (s.Start + s.FCT).Nanoseconds())
		}
	}
	t, err := run.Table("flow_rate.csv")
	if err != nil {
		return 0, 0, err
	}
	v, err := t.FloatCols("bin_start_ns", "bin_ns", "src", "bytes")
	if err != nil {
		return 0, 0, err
	}
	start, length, src, bytes := v[0], v[1], v[2], v[3]
	per := map[int]float64{}
	end := 0.0
	for k := range start {
		if start[k]+length[k] <= first {
			per[int(src[k])] += bytes[k]
			end = max(end, start[k]+length[k])
		}
	}
	if end == 0 || len(per) == 0 {
		return 0, 0, fmt.Errorf("no whole flow-rate bin before the first sender finished (%.0f ns)", first)
	}
	var xs []float64
	for _, s := range senders {
		xs = append(xs, per[s.Src]*8/end)
	}
	mean, sd := meanSD(xs)
	return 100 * sd / mean, end, nil
}

func meanSD(xs []float64) (mean, sd float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		sd += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(sd / float64(len(xs)))
}
