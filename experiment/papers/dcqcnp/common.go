package dcqcnp

// Shared by E2 and E3: the 80-to-1 incast (scenarios/papers/dcqcn-p/
// incast80.yaml), its patches at each scale, and the senders' flows read
// from its result files.

import (
	"slices"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/metrics"
	"github.com/ccsim/ccsim/sim"
)

const (
	base     = "incast80.yaml"
	switchID = 81 // the star's switch
	recvPort = 80 // its port towards the receiver (host 80)
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
