package fabric

// Physics tests of the fabric: exact single-flow timing on a store-and-
// forward path and RED/ECN marking statistics. They use small local
// Algorithm implementations because package cc imports fabric (tests that
// need DCQCN are in physics_ext_test.go).

import (
	"math"
	"testing"

	"github.com/ccsim/ccsim/sim"
	"github.com/ccsim/ccsim/topo"
	"github.com/ccsim/ccsim/workload"
)

// noCC sends at line rate with no window (the `none` algorithm).
type noCC struct{}

func (noCC) Start(q *QP, now sim.Time)                {}
func (noCC) OnAck(q *QP, a *AckInfo, now sim.Time)    {}
func (noCC) OnNotice(q *QP, nt *Notice, now sim.Time) {}
func (noCC) OnTimer(q *QP, id int, now sim.Time)      {}
func (noCC) OnSend(q *QP, size int, now sim.Time)     {}

func noCCCtor(*QP) Algorithm { return noCC{} }

// fixedRate paces every packet at a constant rate and ignores feedback.
type fixedRate struct{ bps int64 }

func (f fixedRate) Start(q *QP, now sim.Time)              { q.SetRate(f.bps) }
func (fixedRate) OnAck(q *QP, a *AckInfo, now sim.Time)    {}
func (fixedRate) OnNotice(q *QP, nt *Notice, now sim.Time) {}
func (fixedRate) OnTimer(q *QP, id int, now sim.Time)      {}
func (fixedRate) OnSend(q *QP, size int, now sim.Time)     {}

func fixedCtor(bps int64) func(*QP) Algorithm {
	return func(*QP) Algorithm { return fixedRate{bps} }
}

// buildNet builds a network on g with cfg, registers flows and the
// algorithm, and fails the test on any error.
func buildNet(tb testing.TB, g *topo.Graph, cfg Config, flows []workload.Flow, ctor func(*QP) Algorithm) *Network {
	tb.Helper()
	n, err := New(g, cfg)
	if err != nil {
		tb.Fatal(err)
	}
	if err := n.AddFlows(flows, nil); err != nil {
		tb.Fatal(err)
	}
	n.SetAlgorithm(ctor)
	return n
}

// incastFlows returns k flows of size bytes from hosts 0..k-1 to host dst,
// class 3, all starting at start.
func incastFlows(k, dst int, size int64, start sim.Time) []workload.Flow {
	fl := make([]workload.Flow, k)
	for i := range fl {
		fl[i] = workload.Flow{Src: i, Dst: dst, Prio: 3, SizeBytes: size, Start: start}
	}
	return fl
}

// analyticFCT is the exact FCT of a lone flow over host → switch → host
// with every link at bps and one-way delay d: store-and-forward FIFO
// transmitters, the host sending back to back at line rate, one 60-B ACK per
// packet returned the same way. It replays the two-hop pipeline packet by
// packet (the closed form only holds when all packets have the same size).
func analyticFCT(size int64, payload int64, bps int64, d sim.Time) sim.Time {
	var hostFree, swFree, rxFree, swBackFree, lastAck sim.Time
	ack := sim.TxTime(AckBytes, bps)
	for off := int64(0); off < size; off += payload {
		pl := min(payload, size-off)
		tx := sim.TxTime(pl+DataHeaderBytes, bps)
		// host NIC: back to back from t = 0
		hostFree += tx
		atSwitch := hostFree + d
		// switch egress towards the receiver (FIFO, store and forward)
		swFree = max(swFree, atSwitch) + tx
		atRx := swFree + d
		// receiver NIC sends the ACK as soon as its transmitter is free
		rxFree = max(rxFree, atRx) + ack
		atSwitchBack := rxFree + d
		swBackFree = max(swBackFree, atSwitchBack) + ack
		lastAck = swBackFree + d
	}
	return lastAck
}

// TestSingleFlowExactFCT: one flow alone on a 2-host star at 100 Gb/s, 1 µs
// links, 1000-B payloads. The FCT must equal the store-and-forward pipeline
// exactly (picoseconds; sim.TxTime is exact at 100 Gb/s), and goodput must
// reach 99 % of the payload share of the line rate.
func TestSingleFlowExactFCT(t *testing.T) {
	const (
		bps   = int64(100e9)
		d     = sim.Microsecond
		start = 2 * sim.Second
	)
	T := sim.TxTime(1048, bps) // 83.84 ns
	A := sim.TxTime(60, bps)   // 4.8 ns
	if T != 83_840 || A != 4_800 {
		t.Fatalf("TxTime: 1048 B = %d ps, 60 B = %d ps; want 83840, 4800", T, A)
	}
	cases := []struct {
		size int64
		want sim.Time // closed form where one exists, else 0 (use analyticFCT)
	}{
		// N equal packets: the last one leaves the host at N·T, waits for
		// nothing at the switch (packets arrive exactly T apart), so
		// FCT = (N+1)·T + 2·d (data) + 2·A + 2·d (ACK).
		{1000, 2*T + 4*d + 2*A},
		{20_000_000, 20_001*T + 4*d + 2*A}, // 1,680,893,440 ps
		// a short last packet (548 B) waits at the switch for the previous
		// full packet: FCT = (N+1)·T + T' + 4·d + 2·A
		{1_000_500, 1001*T + sim.TxTime(548, bps) + 4*d + 2*A},
		// a 1-B last packet (49 B, 3.92 ns) reaches the receiver while the
		// previous ACK (4.8 ns) is still being serialized: only the replay
		// model captures the 0.88 ns wait.
		{20_001, 0},
	}
	for _, c := range cases {
		want := analyticFCT(c.size, 1000, bps, d)
		if c.want != 0 && c.want != want {
			t.Fatalf("size %d: closed form %d ps != pipeline model %d ps (test bug)", c.size, c.want, want)
		}
		g := topo.Star(2, bps, d)
		n := buildNet(t, g, DefaultConfig(), []workload.Flow{{Src: 0, Dst: 1, Prio: 3, SizeBytes: c.size, Start: start}}, noCCCtor)
		n.Run()
		q := &n.QPs[0]
		if !q.Done {
			t.Fatalf("size %d: flow not done", c.size)
		}
		fct := q.Finish - q.Start
		if fct != want {
			t.Errorf("size %d: FCT %d ps, want exactly %d ps (diff %+d ps)", c.size, fct, want, fct-want)
		}
		if got := q.Start; got != start {
			t.Errorf("size %d: QP start %v, want %v", c.size, got, start)
		}
		npk := (c.size + 999) / 1000
		if n.Stats.DataTxPackets != npk || n.Stats.DataRxPackets != npk || n.Stats.AckPackets != npk {
			t.Errorf("size %d: tx %d rx %d acks %d packets, want %d each", c.size, n.Stats.DataTxPackets, n.Stats.DataRxPackets, n.Stats.AckPackets, npk)
		}
		if n.Stats.Retransmits != 0 || n.Stats.NackPackets != 0 || n.Stats.PauseFrames != 0 || n.Stats.DataDropPackets != 0 {
			t.Errorf("size %d: unexpected retx %d nacks %d pauses %d drops %d", c.size, n.Stats.Retransmits, n.Stats.NackPackets, n.Stats.PauseFrames, n.Stats.DataDropPackets)
		}
		if c.size == 20_000_000 {
			goodput := float64(c.size*8) / fct.Seconds()
			floor := 0.99 * float64(bps) * 1000 / 1048
			if goodput < floor {
				t.Errorf("goodput %.4g b/s < %.4g b/s (0.99 × 100 G × 1000/1048)", goodput, floor)
			}
		}
	}
}

// ecnRecorder is a switch feature that records, for every data packet
// leaving a switch, the class queue length the ECN decision must use (bytes
// still queued in the class, excluding the departing packet) and whether the
// packet left marked. It keeps its own per-(port, class) byte count from the
// enqueue and dequeue hooks, independent of the switch's counters. On a
// one-switch path a data packet can only have been marked by this dequeue.
type ecnRecorder struct {
	t      *testing.T
	bytes  map[[2]int32]int64
	q      []int64
	marked []bool
}

func newECNRecorder(t *testing.T) *ecnRecorder {
	return &ecnRecorder{t: t, bytes: map[[2]int32]int64{}}
}

// class is the switch queue of p (CNPs travel in class 0).
func class(p *Packet) int32 {
	if p.Kind == KindCNP {
		return 0
	}
	return int32(p.Prio)
}

func (r *ecnRecorder) OnEnqueue(v *SwitchView, inL, outL int, p *Packet, now sim.Time) {
	out := v.global(outL)
	if c := class(p); c != 0 {
		r.bytes[[2]int32{out, c}] += int64(p.Size)
	}
}

func (r *ecnRecorder) OnDequeue(v *SwitchView, outL int, p *Packet, now sim.Time) {
	n, out := v.n, v.global(outL)
	key := [2]int32{out, class(p)}
	r.bytes[key] -= int64(p.Size)
	q := r.bytes[key]
	if got := n.Ports[out].qBytes[key[1]]; got != q {
		r.t.Fatalf("%v: port %d class %d: switch counts %d B queued, packets in the queue sum to %d B", now, out, key[1], got, q)
	}
	if p.Kind != KindData {
		return
	}
	r.q = append(r.q, q)
	r.marked = append(r.marked, p.ECN)
}

func (r *ecnRecorder) OnPeriod(v *SwitchView, now sim.Time) {}

// TestECNStepMarkingExact: with Kmin = Kmax = K and Pmax = 1 (the
// reference's DCQCN step marking) a packet is marked iff the bytes left in
// its class queue after it departs exceed K; no randomness is involved. Two
// line-rate senders into one port grow the queue by one packet per dequeue,
// so every length band of one packet around K is visited. K is a multiple
// of the 1048-B packet, so some dequeue leaves exactly K (not marked).
func TestECNStepMarkingExact(t *testing.T) {
	const k = 96 * 1048
	cfg := DefaultConfig()
	cfg.ECNRule = []ECNRule{{Bps: 100e9, KminBytes: k, KmaxBytes: k, Pmax: 1}}
	n := buildNet(t, topo.Star(3, 100e9, sim.Microsecond), cfg, incastFlows(2, 2, 1_000_000, 0), noCCCtor)
	rec := newECNRecorder(t)
	n.AddFeature(3, rec)
	n.Run()
	var marked, unmarked, atK int
	for i, q := range rec.q {
		if rec.marked[i] != (q > k) {
			t.Fatalf("dequeue %d: %d B left in the queue, marked %v; want marked iff > %d", i, q, rec.marked[i], k)
		}
		if rec.marked[i] {
			marked++
		} else {
			unmarked++
		}
		if q == k {
			atK++
		}
	}
	if marked == 0 || unmarked == 0 || atK == 0 {
		t.Errorf("scenario does not cross K: %d marked, %d unmarked, %d dequeues leaving exactly K", marked, unmarked, atK)
	}
}

// TestREDMarkingFrequency: two fixed-rate senders at 55 Gb/s into one
// 100 Gb/s port build the queue slowly (~10 Gb/s excess), so thousands of
// dequeues see every length between Kmin and Kmax. Below Kmin nothing is
// marked, above Kmax everything is; in between the number of marks must
// match Σ Pmax·(q−Kmin)/(Kmax−Kmin) within 4 binomial standard deviations,
// overall and in each of four bands of q (which checks the linear shape).
func TestREDMarkingFrequency(t *testing.T) {
	const (
		kmin = 50_000
		kmax = 450_000
		pmax = 0.5
	)
	cfg := DefaultConfig()
	cfg.ECNRule = []ECNRule{{Bps: 100e9, KminBytes: kmin, KmaxBytes: kmax, Pmax: pmax}}
	g := topo.Star(3, 100e9, sim.Microsecond)
	flows := incastFlows(2, 2, 6_000_000, 0)
	n := buildNet(t, g, cfg, flows, fixedCtor(55e9))
	rec := newECNRecorder(t)
	n.AddFeature(3, rec)
	n.SetStop(700 * sim.Microsecond)
	n.Run()
	if n.Stats.PauseFrames != 0 {
		t.Fatalf("%d pause frames: the scenario must stay below the PFC threshold", n.Stats.PauseFrames)
	}
	const bands = 4
	var exp, vr, got [bands]float64
	var cnt [bands]int
	var above, aboveMarked, below int
	for i, q := range rec.q {
		m := rec.marked[i]
		switch {
		case q <= kmin:
			below++
			if m {
				t.Fatalf("dequeue %d: queue %d B <= Kmin marked", i, q)
			}
		case q > kmax:
			above++
			if m {
				aboveMarked++
			}
		default:
			p := pmax * float64(q-kmin) / float64(kmax-kmin)
			b := int(float64(q-kmin-1) * bands / float64(kmax-kmin))
			exp[b] += p
			vr[b] += p * (1 - p)
			cnt[b]++
			if m {
				got[b]++
			}
		}
	}
	if aboveMarked != above {
		t.Errorf("above Kmax: %d of %d dequeues marked, want all", aboveMarked, above)
	}
	if above == 0 || below == 0 {
		t.Errorf("scenario did not span the RED range: %d dequeues below Kmin, %d above Kmax", below, above)
	}
	var te, tv, tg float64
	for b := range bands {
		te, tv, tg = te+exp[b], tv+vr[b], tg+got[b]
		if cnt[b] < 500 {
			t.Errorf("band %d: only %d dequeues, scenario too short for statistics", b, cnt[b])
			continue
		}
		if sd := math.Sqrt(vr[b]); math.Abs(got[b]-exp[b]) > 4*sd {
			t.Errorf("band %d (%d dequeues): %v marks, expected %.1f ± %.1f (4σ)", b, cnt[b], got[b], exp[b], 4*sd)
		}
	}
	if sd := math.Sqrt(tv); math.Abs(tg-te) > 4*sd {
		t.Errorf("Kmin < q <= Kmax: %v marks, expected %.1f ± %.1f (4σ)", tg, te, 4*sd)
	}
	t.Logf("RED: %d below Kmin, %d in range (%v marks, expected %.1f, σ %.1f), %d above Kmax", below, cnt[0]+cnt[1]+cnt[2]+cnt[3], tg, te, math.Sqrt(tv), above)
	// the switch's own counter agrees with the marks seen leaving it
	var marks int64
	for _, m := range rec.marked {
		if m {
			marks++
		}
	}
	if pm := n.Ports[n.Nodes[3].FirstPort+2].Stats.Marked; pm != marks {
		t.Errorf("port Marked counter %d, data packets seen marked %d", pm, marks)
	}
}
