package cc_test

import (
	"testing"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/scenario/assemble"
	"github.com/ccsim/ccsim/sim"
)

// The two branches of the Bolt authors' sender that ccsim's Bolt lacked
// before issue 17 (docs/algorithms/bolt.md I7, I8). Expected values follow
// the authors' arithmetic (bolt-l4-protocol.cc, BoltOutboundMsg::HandleBts
// and HandleRtx) with max_md 0.5, in packets instead of bytes.

// boSRC delivers an SRC for a packet sent rttSrc before now, at a queue of
// queue bytes on a 100 Gb/s link.
func boSRC(q *fabric.QP, b *cc.Bolt, now, rttSrc sim.Time, queue int64) {
	arg := cc.BoltSRC{QueueBytes: queue, LinkBps: 100e9, TxTime: now - rttSrc}.Arg()
	b.OnNotice(q, &fabric.Notice{Kind: fabric.KindNotice, Arg: arg}, now)
}

// At a window of one packet or less every SRC cuts cwnd by max_md, before
// (and regardless of) the rate limit of SRC decrements, without restarting
// it: cwnd = (1 − max_md)^k after k SRCs arriving at the same instant.
func TestBoltSRCSmallWindowEverySRC(t *testing.T) {
	p := cc.BoltDefaults()
	p.InitCwnd = 2
	q, b := boNew(t, p, 1<<40)
	b.OnAck(q, &fabric.AckInfo{Seq: 500, NewlyAcked: 500, RTT: 8 * boUs}, 8*boUs) // RTT 8 µs, no AI (SeqAI 2000)
	if b.Cwnd != 2 || b.RTT != 8*boUs {
		t.Fatalf("after the ACK: cwnd %v RTT %v, want 2, 8µs", b.Cwnd, b.RTT)
	}
	// cwnd 2 > 1: a rate-limited decrement (one packet) that starts the
	// interval: rtt_src 2 µs, queue 20 packets, rate 2·1048·8/8 µs =
	// 2.096 Gb/s: target_q 0.4192 packets, interval ≈ 4.77 µs
	t0 := 100 * boUs
	boSRC(q, b, t0, 2*boUs, 20*boWire)
	if b.Cwnd != 1 || b.LastDecAt != t0 || b.Decrements != 1 {
		t.Fatalf("decrement: cwnd %v LastDecAt %v decrements %d; want 1, %v, 1", b.Cwnd, b.LastDecAt, b.Decrements, t0)
	}
	// now at one packet: the SRCs of the same instant, inside the interval,
	// each cut by max_md; the last one's queue is empty (target_q 0), which
	// the small-window branch does not look at
	want := 1.0
	for k := 1; k <= 6; k++ {
		queue := int64(20 * boWire)
		if k == 6 {
			queue = 0
		}
		boSRC(q, b, t0, 2*boUs, queue)
		want *= 0.5
		if b.Cwnd != want {
			t.Fatalf("SRC %d at cwnd ≤ 1: cwnd %v, want %v = 0.5^%d", k, b.Cwnd, want, k)
		}
	}
	if b.SRCs != 7 || b.Decrements != 7 || b.LastDecAt != t0 {
		t.Errorf("SRCs %d decrements %d LastDecAt %v; want 7, 7, %v (the small-window cut leaves the interval alone)", b.SRCs, b.Decrements, b.LastDecAt, t0)
	}
	// below one packet: one packet in flight, paced at cwnd·wire per RTT
	if rate := int64(want * boWire * 8 * 1e12 / float64(8*boUs)); q.WindowBytes != boMTU || q.RateBps != rate {
		t.Errorf("cwnd %v: window %d rate %d, want %d, %d", b.Cwnd, q.WindowBytes, q.RateBps, boMTU, rate)
	}
	// 1/64 → 1/128 is below min_cwnd 0.01: clamped
	boSRC(q, b, t0+sim.Nanosecond, 2*boUs, 20*boWire)
	if b.Cwnd != 0.01 {
		t.Errorf("cwnd %v, want min_cwnd 0.01", b.Cwnd)
	}
}

// A retransmission timeout cuts cwnd by max_md if the last decrease (SRC
// decrement, NACK or timeout) is at least one RTT ago; the fabric calls
// the hook (fabric.TimeoutAlgorithm) when its RTO fires.
func TestBoltTimeoutCutOncePerRTT(t *testing.T) {
	p := cc.BoltDefaults()
	p.InitCwnd = 20
	q, b := boNew(t, p, 1<<40)
	tmo, ok := fabric.Algorithm(b).(fabric.TimeoutAlgorithm)
	if !ok {
		t.Fatal("Bolt does not react to the retransmission timeout (no OnTimeout)")
	}
	// before any RTT sample (RTT 0) every timeout may cut
	tmo.OnTimeout(q, 2*boUs)
	tmo.OnTimeout(q, 2*boUs)
	if b.Cwnd != 5 || q.WindowBytes != 5000 || b.LastDecAt != 2*boUs {
		t.Fatalf("two timeouts without an RTT: cwnd %v window %d LastDecAt %v; want 5, 5000, 2µs", b.Cwnd, q.WindowBytes, b.LastDecAt)
	}
	b.OnAck(q, &fabric.AckInfo{Seq: 500, NewlyAcked: 500, RTT: 8 * boUs}, 8*boUs) // RTT 8 µs, no AI
	t0 := 100 * boUs
	tmo.OnTimeout(q, t0)
	tmo.OnTimeout(q, t0+8*boUs-sim.Nanosecond) // within one RTT: no cut
	if b.Cwnd != 2.5 || b.LastDecAt != t0 {
		t.Errorf("timeouts within an RTT: cwnd %v LastDecAt %v; want 2.5, %v", b.Cwnd, b.LastDecAt, t0)
	}
	tmo.OnTimeout(q, t0+8*boUs)
	if b.Cwnd != 1.25 || b.LastDecAt != t0+8*boUs || q.WindowBytes != 1250 {
		t.Errorf("timeout one RTT later: cwnd %v LastDecAt %v window %d; want 1.25, %v, 1250", b.Cwnd, b.LastDecAt, q.WindowBytes, t0+8*boUs)
	}
	// an SRC decrement restarts the interval the timeout checks
	b.Cwnd = 10
	t1 := 200 * boUs
	boSRC(q, b, t1, 2*boUs, 20*boWire)
	tmo.OnTimeout(q, t1+5*boUs)
	if b.Cwnd != 9 {
		t.Errorf("timeout 5 µs after an SRC decrement: cwnd %v, want 9", b.Cwnd)
	}
	tmo.OnTimeout(q, t1+8*boUs)
	if b.Cwnd != 4.5 {
		t.Errorf("timeout one RTT after the SRC decrement: cwnd %v, want 4.5", b.Cwnd)
	}
	// below one packet: paced
	tmo.OnTimeout(q, t1+16*boUs)
	tmo.OnTimeout(q, t1+24*boUs)
	tmo.OnTimeout(q, t1+32*boUs)
	if rate := int64(0.5625 * boWire * 8 * 1e12 / float64(8*boUs)); b.Cwnd != 0.5625 || q.WindowBytes != boMTU || q.RateBps != rate {
		t.Errorf("cwnd %v window %d rate %d; want 0.5625, %d, %d", b.Cwnd, q.WindowBytes, q.RateBps, boMTU, rate)
	}
}

// small_cwnd_md_every_src: false keeps ccsim's earlier reading (I3): at
// one packet or less the SRC's cut is a decrement like the others, subject
// to the rate limit and restarting it.
func TestBoltSRCSmallWindowRateLimitedReading(t *testing.T) {
	p := cc.BoltDefaults()
	p.InitCwnd = 2
	p.SmallCwndMDEverySRC = false
	q, b := boNew(t, p, 1<<40)
	b.OnAck(q, &fabric.AckInfo{Seq: 500, NewlyAcked: 500, RTT: 8 * boUs}, 8*boUs)
	t0 := 100 * boUs
	boSRC(q, b, t0, 2*boUs, 20*boWire)
	boSRC(q, b, t0, 2*boUs, 20*boWire)
	boSRC(q, b, t0, 2*boUs, 20*boWire)
	if b.Cwnd != 1 || b.Decrements != 1 {
		t.Fatalf("SRCs within the interval: cwnd %v decrements %d, want 1, 1", b.Cwnd, b.Decrements)
	}
	// rate 1·1048·8/8 µs = 1.048 Gb/s: target_q 0.2096, interval ≈ 9.54 µs
	boSRC(q, b, t0+9*boUs, 2*boUs, 20*boWire)
	if b.Cwnd != 1 {
		t.Errorf("SRC 9 µs later: cwnd %v, want 1", b.Cwnd)
	}
	boSRC(q, b, t0+10*boUs, 2*boUs, 20*boWire)
	if b.Cwnd != 0.5 || b.LastDecAt != t0+10*boUs {
		t.Errorf("SRC 10 µs later: cwnd %v LastDecAt %v, want 0.5, %v", b.Cwnd, b.LastDecAt, t0+10*boUs)
	}
}

// In a lossy incast (PFC off, a 256 KiB buffer, RTO 200 µs) the fabric
// reports every retransmission timeout to Bolt: the senders count as many
// as the network.
func TestBoltScenarioTimeouts(t *testing.T) {
	s, err := scenario.Parse([]byte(`
name: bolt-lossy
stop_ms: 100
cc: [bolt]
topology: {kind: star, hosts: 9}
switch: {buffer_mib: 0.25, pfc: "off"}
host: {payload_bytes: 1000, rto_us: 200}
workload:
  incast: {senders: [0, 1, 2, 3, 4, 5, 6, 7], receiver: 8, sizes_bytes: [300000], qps_per_sender: 2}
`))
	if err != nil {
		t.Fatal(err)
	}
	bld, err := assemble.Build(s, "bolt", assemble.Options{})
	if err != nil {
		t.Fatal(err)
	}
	spec, _ := cc.Lookup("bolt")
	ctor, _ := spec.New(s.ParamsOf("bolt"))
	var algs []*cc.Bolt
	bld.Net.SetAlgorithm(func(q *fabric.QP) fabric.Algorithm {
		a := ctor(q)
		algs = append(algs, a.(*cc.Bolt))
		return a
	})
	r := bld.Run()
	var tmo, srcs, decs int64
	for _, a := range algs {
		tmo, srcs, decs = tmo+a.Timeouts, srcs+a.SRCs, decs+a.Decrements
	}
	t.Logf("%d timeouts (%d counted by the senders), %d drops, %d SRCs, %d decrements; last FCT %.1f µs",
		bld.Net.Stats.Timeouts, tmo, r.Drops, srcs, decs, r.Summary.FinishTimeUs)
	if bld.Net.Stats.Timeouts == 0 || tmo != bld.Net.Stats.Timeouts {
		t.Errorf("network timeouts %d, senders' %d; want equal and positive", bld.Net.Stats.Timeouts, tmo)
	}
	for _, f := range r.Flows {
		if !f.Done {
			t.Errorf("flow %d did not finish", f.ID)
		}
	}
}

// BenchmarkBoltOnNotice: one SRC through the sender, alternating the
// small-window branch (cwnd 0.8) and the rate-limited one (cwnd 20).
func BenchmarkBoltOnNotice(b *testing.B) {
	p := cc.BoltDefaults()
	p.MTUBytes = boMTU
	q := &fabric.QP{LineRateBps: boLine, RateBps: boLine, BaseRTT: 4 * boUs, PathBaseRTT: 4 * boUs, BDPBytes: 50_000, SizeBytes: 1 << 40}
	s := cc.NewBolt(p)(q).(*cc.Bolt)
	s.Start(q, 0)
	s.OnAck(q, &fabric.AckInfo{Seq: 500, NewlyAcked: 500, RTT: 8 * boUs}, 8*boUs)
	n := &fabric.Notice{Kind: fabric.KindNotice, Arg: cc.BoltSRC{QueueBytes: 20 * boWire, LinkBps: 100e9, TxTime: 0}.Arg()}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		s.Cwnd = 20
		if i&1 == 0 {
			s.Cwnd = 0.8
		}
		s.OnNotice(q, n, 2*boUs+sim.Time(i)*sim.Microsecond)
	}
}
