package fabric

// Per-flow losses, goodput and one-way latency on a small star whose
// numbers follow by hand (docs/metrics.md §16–§18).

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ccsim/ccsim/sim"
	"github.com/ccsim/ccsim/topo"
	"github.com/ccsim/ccsim/workload"
)

// lossStar is hosts 0, 1, 2 around switch 3 (100 Gb/s, 1 µs links) whose
// port towards host 2 loses every packet it sends, RTO 100 µs, stop at
// 280 µs, with three flows at line rate (noCC):
//
//	A 0→1 10,000 B at 0:     clean both ways; done
//	B 0→2  5,500 B at 0:     every data packet lost on switch→host 2
//	C 2→0  2,500 B at 50 µs: data delivered, every ACK lost on switch→host 2
func lossStar(t *testing.T) (*Network, []sim.Time) {
	t.Helper()
	cfg := DefaultConfig()
	cfg.RTO = 100 * sim.Microsecond
	flows := []workload.Flow{
		{Src: 0, Dst: 1, Prio: 3, SizeBytes: 10_000},
		{Src: 0, Dst: 2, Prio: 3, SizeBytes: 5_500},
		{Src: 2, Dst: 0, Prio: 3, SizeBytes: 2_500, Start: 50 * sim.Microsecond},
	}
	n := buildNet(t, topo.Star(3, 100e9, sim.Microsecond), cfg, flows, noCCCtor)
	pt := n.Nodes[3].FirstPort + 2
	if n.Ports[n.Ports[pt].Peer].Node != 2 {
		t.Fatal("switch port 2 does not face host 2")
	}
	p := &n.Ports[pt]
	p.lossy, p.lossRate, p.lossRng = true, 1, rand.New(rand.NewPCG(1, 1))
	n.SetStop(280 * sim.Microsecond)
	var lat []sim.Time
	n.OnDataArrive = func(q *QP, sent, now sim.Time) { lat = append(lat, now-sent) }
	n.Run()
	return n, lat
}

// TestFlowLossesByHand checks each flow's drops, bytes and goodput against
// the hand count. B sends its 6 packets (5 × 1000 B + 500 B) at 0 and
// again at each RTO (100, 200 µs; the next, 300 µs, is after the stop):
// 18 data drops, 16,500 B, nothing delivered. C sends its 3 packets at
// 50, 150 and 250 µs; all arrive, only the first copies are in order and
// acknowledged (the receiver discards duplicates without an ACK), so 3
// ACKs are lost: 3 control drops, goodput 2,500 B of 7,500 B received.
// A finishes with no loss and no retransmission.
func TestFlowLossesByHand(t *testing.T) {
	n, _ := lossStar(t)
	want := []struct {
		dataDrops, dropBytes, ctrlDrops, tx, rx, goodput int64
		done                                             bool
	}{
		{0, 0, 0, 10_000, 10_000, 10_000, true},
		{18, 16_500, 0, 16_500, 0, 0, false},
		{0, 0, 3, 7_500, 7_500, 2_500, false},
	}
	inflight := n.FlowInFlight(nil)
	for i, w := range want {
		q := &n.QPs[i]
		got := []int64{q.DataDrops, q.DataDropBytes, q.CtrlDrops, q.TxBytes, q.RxBytes, q.Delivered()}
		exp := []int64{w.dataDrops, w.dropBytes, w.ctrlDrops, w.tx, w.rx, w.goodput}
		if !slices.Equal(got, exp) || q.Done != w.done {
			t.Errorf("flow %d: drops/bytes/ctrl/tx/rx/goodput %v done %v, want %v done %v", i, got, q.Done, exp, w.done)
		}
		// conservation per flow: sent = received + in flight + dropped
		if q.TxBytes != q.RxBytes+inflight[i]+q.DataDropBytes {
			t.Errorf("flow %d: sent %d != received %d + in flight %d + dropped %d", i, q.TxBytes, q.RxBytes, inflight[i], q.DataDropBytes)
		}
	}
	s := n.Stats
	if s.DataDropPackets != 18 || s.DataDropBytes != 16_500 || s.CtrlDrops != 3 || s.LinkLosses != 21 {
		t.Errorf("network: data drops %d (%d B), control %d, link losses %d; want 18 (16500 B), 3, 21",
			s.DataDropPackets, s.DataDropBytes, s.CtrlDrops, s.LinkLosses)
	}
	if n.Now() != 280*sim.Microsecond {
		t.Errorf("run ended at %v, want the stop time", n.Now())
	}
}

// TestLatencyEmptyPath: on an empty store-and-forward path of two 100 Gb/s
// links with 1 µs propagation, a packet's latency is 2 × (serialisation +
// propagation): 2 × (83,840 + 10⁶) ps for a full packet (1048 wire bytes).
// C's 500-B last packet (548 B) leaves its NIC right behind a full one and,
// being shorter, reaches the switch 40 ns before the switch has finished
// sending that one: it waits, and its latency is 83,840 + 43,840 + 2·10⁶
// ps (not 2 × (43,840 + 10⁶)). A's 10 packets and C's 3 × 3 copies are the
// 19 samples; B's never arrive.
func TestLatencyEmptyPath(t *testing.T) {
	n, lat := lossStar(t)
	full := 2 * (sim.TxTime(1048, 100e9) + sim.Microsecond)
	short := sim.TxTime(1048, 100e9) + sim.TxTime(548, 100e9) + 2*sim.Microsecond
	if full != 2_167_680 || short != 2_127_680 {
		t.Fatalf("serialisation: full %d ps, short %d ps", full, short)
	}
	var want []sim.Time
	for range 10 + 2*3 {
		want = append(want, full)
	}
	for range 3 {
		want = append(want, short)
	}
	slices.Sort(lat)
	slices.Sort(want)
	if !slices.Equal(lat, want) {
		t.Fatalf("latencies %v, want %v", lat, want)
	}
	h := n.Latency()
	s := h.Summary()
	if s.Packets != 19 || s.MinNs != 2127.68 || s.MaxNs != 2167.68 || s.P50Ns != 2167 || s.P99Ns != 2167 ||
		s.MeanNs != float64(16*2_167_680+3*2_127_680)/19/1000 {
		t.Errorf("summary %+v", s)
	}
	if h.Count() != n.Stats.DataRxPackets {
		t.Errorf("%d samples, %d data packets received", h.Count(), n.Stats.DataRxPackets)
	}
}
