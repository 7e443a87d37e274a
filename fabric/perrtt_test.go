package fabric

import (
	"testing"

	"github.com/ccsim/ccsim/sim"
	"github.com/ccsim/ccsim/topo"
	"github.com/ccsim/ccsim/workload"
)

// Per-RTT sampling on a lone flow over a 2-host star (100 Gb/s, 1 µs links,
// 1000-B payloads): every packet's RTT is 2T + 4d + 2A = 4,177,280 ps (T =
// 83.84 ns per 1048-B packet, A = 4.8 ns per ACK; no queueing).
func TestPerRTTSamplingScripted(t *testing.T) {
	const (
		bps = int64(100e9)
		d   = sim.Microsecond
	)
	T := sim.TxTime(1048, bps)
	rtt := 2*T + 4*d + 2*sim.TxTime(AckBytes, bps)
	if rtt != 4_177_280 {
		t.Fatalf("rtt %d ps (test bug)", rtt)
	}
	// Line rate, 1000 packets sent back to back at k·T: packet 0 is timed;
	// its ACK arrives at RTT = 49.82 T, so the next packet sent (k = 50,
	// at 50 T) is timed, and so on: samples at packets 0, 50, …, 950 (20),
	// each ACKed at 50·i·T + RTT.
	n := buildNet(t, topo.Star(2, bps, d), DefaultConfig(), []workload.Flow{{Src: 0, Dst: 1, Prio: 3, SizeBytes: 1_000_000}}, noCCCtor)
	n.EnablePerRTT(4)
	n.Run()
	got := n.PerRTTSamples()
	if len(got) != 20 {
		t.Fatalf("%d samples, want 20: %v", len(got), got)
	}
	for i, s := range got {
		want := PerRTTSample{Flow: 0, At: sim.Time(50*i)*T + rtt, RTT: rtt}
		if s != want {
			t.Errorf("sample %d = %+v, want %+v", i, s, want)
		}
	}
	// Paced at 1 Gb/s the packet gap (8.384 µs) exceeds the RTT: every
	// packet is a sample.
	n = buildNet(t, topo.Star(2, bps, d), DefaultConfig(), []workload.Flow{{Src: 0, Dst: 1, Prio: 3, SizeBytes: 10_000}}, fixedCtor(1e9))
	n.EnablePerRTT(0)
	n.Run()
	got = n.PerRTTSamples()
	if len(got) != 10 {
		t.Fatalf("1 Gb/s: %d samples, want 10", len(got))
	}
	for i, s := range got {
		if s.RTT != rtt || s.At != sim.Time(i)*sim.TxTime(1048, 1e9)+rtt {
			t.Errorf("1 Gb/s sample %d = %+v, want RTT %d at %d", i, s, rtt, sim.Time(i)*sim.TxTime(1048, 1e9)+rtt)
		}
	}
	// off: nothing recorded
	n = buildNet(t, topo.Star(2, bps, d), DefaultConfig(), []workload.Flow{{Src: 0, Dst: 1, Prio: 3, SizeBytes: 10_000}}, noCCCtor)
	n.Run()
	if n.PerRTTSamples() != nil {
		t.Error("sampling off recorded samples")
	}
}

// A NACK abandons the outstanding sample and a retransmission timeout
// too; the sampler then times the next packet sent.
func TestPerRTTAbandon(t *testing.T) {
	n := buildNet(t, topo.Star(2, 100e9, sim.Microsecond), DefaultConfig(), []workload.Flow{{Src: 0, Dst: 1, Prio: 3, SizeBytes: 10_000}}, noCCCtor)
	n.EnablePerRTT(0)
	q := &n.QPs[0]
	n.now = 10
	n.perRTTSend(q) // times byte 0 at t = 10
	q.SndNxt = 1000
	n.now = 20
	n.perRTTSend(q) // outstanding: not timed
	if q.rs.seq != 0 || q.rs.sentAt != 10 {
		t.Fatalf("timed %+v, want byte 0 at 10", q.rs)
	}
	n.now = 30
	n.perRTTAck(q, 0, false) // does not cover byte 0
	n.perRTTAck(q, 0, true)  // NACK: abandon
	n.perRTTAck(q, 2000, false)
	if len(n.perRTTSamples) != 0 || q.rs.sampling {
		t.Fatalf("after a NACK: %v samples, sampling %v", n.perRTTSamples, q.rs.sampling)
	}
	q.SndNxt = 2000
	n.perRTTSend(q) // times byte 2000 at 30
	n.now = 45
	n.perRTTAck(q, 3000, false)
	if want := []PerRTTSample{{Flow: 0, At: 45, RTT: 15}}; len(n.perRTTSamples) != 1 || n.perRTTSamples[0] != want[0] {
		t.Fatalf("samples %v, want %v", n.perRTTSamples, want)
	}
}

// A retransmission timeout abandons the outstanding sample: the ACK that
// later covers the timed byte gives no sample, the next packet sent is
// timed instead.
func TestPerRTTAbandonOnTimeout(t *testing.T) {
	cfg := DefaultConfig()
	cfg.RTO = 1000
	n := buildNet(t, topo.Star(2, 100e9, sim.Microsecond), cfg, []workload.Flow{{Src: 0, Dst: 1, Prio: 3, SizeBytes: 10_000}}, noCCCtor)
	n.EnablePerRTT(0)
	q := &n.QPs[0]
	n.now = 10
	n.perRTTSend(q) // times byte 0 at t = 10
	q.SndUna, q.SndNxt, q.lastProgress = 0, 3000, 10
	n.now = 5000 // past lastProgress + RTO
	n.onRTO(q.ID, q.rto.Arm(n.now))
	if q.rs.sampling {
		t.Fatal("a timeout left the sample outstanding")
	}
	if q.SndNxt != q.SndUna {
		t.Fatalf("timeout did not go back: SndNxt %d SndUna %d", q.SndNxt, q.SndUna)
	}
	n.perRTTAck(q, 1000, false) // covers byte 0, but the sample was abandoned
	if len(n.perRTTSamples) != 0 {
		t.Fatalf("samples %v after the timeout, want none", n.perRTTSamples)
	}
	n.now = 6000
	n.perRTTSend(q) // the next packet sent is timed
	if !q.rs.sampling || q.rs.sentAt != 6000 {
		t.Fatalf("next packet not timed: %+v", q.rs)
	}
}
