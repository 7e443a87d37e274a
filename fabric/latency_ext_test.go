package fabric_test

import (
	"slices"
	"testing"

	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/metrics"
	"github.com/ccsim/ccsim/sim"
	"github.com/ccsim/ccsim/topo"
	"github.com/ccsim/ccsim/workload"
)

// traceLatency records every data packet's latency as the fabric sees it.
func traceLatency(n *fabric.Network) *[]sim.Time {
	var lat []sim.Time
	n.OnDataArrive = func(q *fabric.QP, sent, now sim.Time) { lat = append(lat, now-sent) }
	return &lat
}

// checkLatencyBrute compares the histogram's statistics with those of the
// sorted list of all samples: every percentile equal to the truncated ns
// of the sample the canonical rule picks, count, min and max exact.
func checkLatencyBrute(t *testing.T, n *fabric.Network, lat []sim.Time) {
	t.Helper()
	h := n.Latency()
	if int64(len(lat)) != h.Count() || h.Count() != n.Stats.DataRxPackets {
		t.Fatalf("%d traced, %d in the histogram, %d data packets received", len(lat), h.Count(), n.Stats.DataRxPackets)
	}
	s := slices.Clone(lat)
	slices.Sort(s)
	for _, p := range []float64{0, 0.5, 0.9, 0.99, 0.999, 0.9999, 1} {
		want := int64(s[metrics.PercentileIndex(len(s), p)] / sim.Nanosecond)
		if got := h.PercentileNs(p); got != want {
			t.Errorf("p%v: %d ns, sorted samples give %d ns", p*100, got, want)
		}
	}
	if h.Min() != s[0] || h.Max() != s[len(s)-1] {
		t.Errorf("min %v max %v, sorted %v %v", h.Min(), h.Max(), s[0], s[len(s)-1])
	}
	var sum int64
	for _, x := range s {
		sum += int64(x)
	}
	if got, ok := h.SumPs(); !ok || got != sum {
		t.Errorf("sum %d, want %d", got, sum)
	}
}

// TestLatencyIncastBrute: in the 20-to-1 incast (queues of hundreds of µs
// under PFC and DCQCN) the histogram's percentiles are those of the sorted
// list of all 20,000 latencies.
func TestLatencyIncastBrute(t *testing.T) {
	n := buildIncast(t, 1_000_000, "dcqcn")
	lat := traceLatency(n)
	n.Run()
	checkLatencyBrute(t, n, *lat)
	s := n.Latency().Summary()
	t.Logf("incast 20×1 MB: %+v, histogram %d B", s, n.Latency().Bytes())
	if float64(s.P99Ns) < 10*s.MinNs {
		t.Errorf("p99 %d ns is not 10 × the minimum %.3f ns: the incast should queue", s.P99Ns, s.MinNs)
	}
}

// lossyIncast is a 4-to-1 incast of 50 KB flows at line rate (no
// congestion control) through a switch without PFC and a 64 KiB buffer:
// drop-tail losses, go-back-N and RTO recovery.
func lossyIncast(t *testing.T) *fabric.Network {
	cfg := fabric.DefaultConfig()
	cfg.PFC = fabric.PFCOff
	cfg.BufferBytes = 64 << 10
	cfg.ReserveBytes = 0
	cfg.HeadroomRTTs = 0
	cfg.RTO = 50 * sim.Microsecond
	cfg.NackInterval = 5 * sim.Microsecond
	flows := make([]workload.Flow, 4)
	for i := range flows {
		flows[i] = workload.Flow{Src: i, Dst: 4, Prio: 3, SizeBytes: 50_000, Start: sim.Time(i) * 100 * sim.Nanosecond}
	}
	n := buildCC(t, topo.Star(5, 100e9, sim.Microsecond), cfg, flows, "none")
	n.SetStop(50 * sim.Millisecond)
	return n
}

// TestFlowLossesLossySwitch: drop-tail losses are attributed to their
// flows (the per-flow counts sum to the network's), every flow conserves
// its bytes (sent = received + in flight + dropped), goodput is the
// in-order delivery (the flow's size once done, below what was received
// when duplicates arrived), and the latency percentiles match the sorted
// samples.
func TestFlowLossesLossySwitch(t *testing.T) {
	n := lossyIncast(t)
	lat := traceLatency(n)
	n.Run()
	if n.Stats.FlowsDone != 4 {
		t.Fatalf("%d of 4 flows done", n.Stats.FlowsDone)
	}
	inflight := n.FlowInFlight(nil)
	var drops, dropBytes, ctrl, dup int64
	for i := range n.QPs {
		q := &n.QPs[i]
		if q.TxBytes != q.RxBytes+inflight[i]+q.DataDropBytes {
			t.Errorf("flow %d: sent %d != received %d + in flight %d + dropped %d", i, q.TxBytes, q.RxBytes, inflight[i], q.DataDropBytes)
		}
		if q.Delivered() != q.SizeBytes || q.RxBytes < q.Delivered() {
			t.Errorf("flow %d: goodput %d of %d, received %d", i, q.Delivered(), q.SizeBytes, q.RxBytes)
		}
		drops += q.DataDrops
		dropBytes += q.DataDropBytes
		ctrl += q.CtrlDrops
		dup += q.RxBytes - q.Delivered()
	}
	st := n.Stats
	if drops != st.DataDropPackets || dropBytes != st.DataDropBytes || ctrl != st.CtrlDrops {
		t.Errorf("per-flow drops %d (%d B), control %d; network %d (%d B), %d", drops, dropBytes, ctrl, st.DataDropPackets, st.DataDropBytes, st.CtrlDrops)
	}
	if drops == 0 || dup == 0 {
		t.Fatalf("drops %d, duplicate bytes %d: the scenario should lose packets and resend", drops, dup)
	}
	t.Logf("data drops %d (%d B), control drops %d, duplicates %d B, latency %+v", drops, dropBytes, ctrl, dup, n.Latency().Summary())
	checkLatencyBrute(t, n, *lat)
}

// TestFlowLossesDeterministic: two runs of the lossy incast give the same
// per-flow counters and latency distribution.
func TestFlowLossesDeterministic(t *testing.T) {
	type flowCounts struct{ drops, dropBytes, ctrl, rx, goodput int64 }
	run := func() ([]flowCounts, metrics.PacketLatency) {
		n := lossyIncast(t)
		n.Run()
		var fc []flowCounts
		for i := range n.QPs {
			q := &n.QPs[i]
			fc = append(fc, flowCounts{q.DataDrops, q.DataDropBytes, q.CtrlDrops, q.RxBytes, q.Delivered()})
		}
		return fc, n.Latency().Summary()
	}
	a, la := run()
	b, lb := run()
	if !slices.Equal(a, b) || la != lb {
		t.Errorf("runs differ: %v %+v vs %v %+v", a, la, b, lb)
	}
}
