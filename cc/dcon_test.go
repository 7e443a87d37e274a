package cc_test

import (
	"testing"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/sim"
	"github.com/ccsim/ccsim/topo"
	"github.com/ccsim/ccsim/workload"
)

// The paper's worked example (docs/algorithms/dcon.md §7): Q_PFC 320 KB,
// d = 5 µs, C = 40 Gb/s (3dC = 75 KB), Q_ECN 200 KB: M = 1 gives 320 KB,
// every M ≥ 2 collapses to Q_ECN.
func TestDCONQCNMWorkedExample(t *testing.T) {
	d := 5 * sim.Microsecond
	for _, c := range []struct {
		qECN int64
		m    int
		want int64
	}{
		{200_000, 1, 320_000},
		{200_000, 2, 200_000}, // 160 000 − 75 000 = 85 000 < Q_ECN
		{200_000, 3, 200_000},
		{50_000, 2, 85_000}, // the formula above a smaller Q_ECN
		{50_000, 0, 320_000},
	} {
		if got := cc.DCONQCNM(c.qECN, 320_000, c.m, d, 40e9); got != c.want {
			t.Errorf("Q_ECN %d, M %d: Q_CNM %d, want %d", c.qECN, c.m, got, c.want)
		}
	}
}

// The egress state machine of docs/algorithms/dcon.md §2: step marking
// between Q_ECN and Q_CNM, no marking in a burst and until the queue falls
// below Q_ECN again.
func TestDCONPortStateMachine(t *testing.T) {
	var p cc.DCONPort
	for i, c := range []struct {
		q    int64
		st   cc.DCONState
		mark bool
	}{
		{50, cc.DCONNone, false},
		{100, cc.DCONPersistent, true},
		{299, cc.DCONPersistent, true},
		{300, cc.DCONBurst, false},
		{150, cc.DCONPersistent, false}, // marking stays off after the burst
		{250, cc.DCONPersistent, false},
		{99, cc.DCONNone, false}, // below Q_ECN: marking back on
		{150, cc.DCONPersistent, true},
		{1 << 40, cc.DCONBurst, false},
	} {
		st, mark := p.Step(c.q, 100, 300)
		if st != c.st || mark != c.mark {
			t.Errorf("step %d (q %d): state %d mark %v, want %d %v", i, c.q, st, mark, c.st, c.mark)
		}
	}
}

// The sender's CNM branch: R_C = C/N when lower (R_T keeps the rate before,
// the increase stage restarts, α unchanged); never raised by default;
// raised with cnm_may_raise outside the duplicate window.
func TestDCONSenderCNM(t *testing.T) {
	p := cc.DCONDefaults()
	q := &fabric.QP{LineRateBps: 40e9}
	alg := cc.NewDCON(p)(q)
	d := alg.(*cc.DCON)
	alg.Start(q, 0)
	cnm := func(n, c int64, at sim.Time) {
		alg.OnNotice(q, &fabric.Notice{Kind: fabric.KindNotice, Args: fabric.NoticeArgs{n, c, int64(at - 15*sim.Microsecond)}}, at)
	}
	cnm(4, 40e9, 10*sim.Microsecond)
	if d.Rc != 10e9 || d.Rt != 40e9 || q.RateBps != 10e9 || d.Alpha != 1 || d.T != 0 || d.B != 0 || d.CNMCuts != 1 {
		t.Fatalf("after CNM N=4: Rc %d Rt %d rate %d α %v T %d B %d cuts %d", d.Rc, d.Rt, q.RateBps, d.Alpha, d.T, d.B, d.CNMCuts)
	}
	if d.MaxCNMDelay != 15*sim.Microsecond || d.LastN != 4 || d.LastC != 40e9 {
		t.Errorf("CNM record: delay %v N %d C %d", d.MaxCNMDelay, d.LastN, d.LastC)
	}
	cnm(2, 40e9, 20*sim.Microsecond) // 20 Gb/s > 10 Gb/s: ignored
	if d.Rc != 10e9 || d.CNMCuts != 1 || d.CNMs != 2 {
		t.Errorf("a CNM raised the rate: Rc %d cuts %d", d.Rc, d.CNMCuts)
	}
	cnm(8, 40e9, 30*sim.Microsecond) // 5 Gb/s: taken, R_T = 10 Gb/s
	if d.Rc != 5e9 || d.Rt != 10e9 {
		t.Errorf("second cut: Rc %d Rt %d, want 5e9 10e9", d.Rc, d.Rt)
	}
	// the increase timer restarted at the CNM: 55 µs later one fast
	// recovery step, R_C = (R_C + R_T)/2
	alg.OnSend(q, 1048, 30*sim.Microsecond+55*sim.Microsecond)
	if d.Rc != 7_500_000_000 || d.T != 1 {
		t.Errorf("55 µs after the CNM: Rc %d T %d, want 7.5e9 1", d.Rc, d.T)
	}

	p.CNMMayRaise = true
	q2 := &fabric.QP{LineRateBps: 40e9}
	a2 := cc.NewDCON(p)(q2)
	d2 := a2.(*cc.DCON)
	a2.Start(q2, 0)
	send := func(n int64, at sim.Time) {
		a2.OnNotice(q2, &fabric.Notice{Kind: fabric.KindNotice, Args: fabric.NoticeArgs{n, 40e9, int64(at)}}, at)
	}
	send(4, 0)
	send(2, 40*sim.Microsecond) // within 50 µs: may not raise
	if d2.Rc != 10e9 {
		t.Errorf("may_raise within the window: Rc %d, want 10e9", d2.Rc)
	}
	send(2, 60*sim.Microsecond)
	if d2.Rc != 20e9 {
		t.Errorf("may_raise after the window: Rc %d, want 20e9", d2.Rc)
	}
}

// Algorithm 1 literally: a CNP with mark 1 cuts (R_T = R_C, α ← (1−g)α + g,
// R_C·(1 − α/2)); with mark 0, α ← (1−g)α and R_C ← (R_T + R_C)/2.
func TestDCONLiteralCNP(t *testing.T) {
	p := cc.DCONDefaults()
	p.LiteralCNP = true
	q := &fabric.QP{LineRateBps: 40e9}
	alg := cc.NewDCON(p)(q)
	alg.Start(q, 0)
	if q.WantSendHook {
		t.Error("the literal mode runs no timers: no send hook")
	}
	rx, ok := alg.(fabric.ReceiverAlgorithm)
	if !ok {
		t.Fatal("the literal mode has a receiver side")
	}
	// receiver: no CNP before a period of data, then one per 50 µs with
	// the mark of the interval
	for i, c := range []struct {
		at     sim.Time
		ecn    bool
		notify bool
		mark   int64
	}{{0, false, false, 0}, {10, true, false, 0}, {50, false, true, 1}, {60, false, false, 0}, {100, false, true, 0}, {120, true, false, 0}, {160, false, true, 1}} {
		n, m := rx.OnDataReceived(q, c.ecn, 1000, 0, c.at*sim.Microsecond)
		if n != c.notify || m != c.mark {
			t.Errorf("packet %d at %d µs: notify %v mark %d, want %v %d", i, c.at, n, m, c.notify, c.mark)
		}
	}
	d := alg.(interface{ Unwrap() *cc.DCON }).Unwrap()
	alg.OnNotice(q, &fabric.Notice{Kind: fabric.KindCNP, Arg: 1}, 0)
	// α = (255/256)·1 + 1/256 = 1, R_C = 40e9·(1 − 1/2)
	if d.Rc != 20e9 || d.Rt != 40e9 || d.Alpha != 1 {
		t.Fatalf("mark 1: Rc %d Rt %d α %v", d.Rc, d.Rt, d.Alpha)
	}
	alg.OnNotice(q, &fabric.Notice{Kind: fabric.KindCNP, Arg: 0}, 0)
	if d.Rc != 30e9 || d.Alpha != 255.0/256 {
		t.Fatalf("mark 0: Rc %d α %v, want 30e9, 255/256", d.Rc, d.Alpha)
	}
	// an ACK's CNP flag is ignored in the literal mode
	alg.OnAck(q, &fabric.AckInfo{CNP: true, Seq: 1000}, sim.Millisecond)
	if d.Rc != 30e9 {
		t.Errorf("an ACK's CNP flag acted in the literal mode: Rc %d", d.Rc)
	}
}

// buildDCON builds a network on g with DCON's QPs and switch features.
func buildDCON(t *testing.T, g *topo.Graph, cfg fabric.Config, flows []workload.Flow, p *cc.DCONParams) *fabric.Network {
	t.Helper()
	spec, err := cc.Lookup("dcon")
	if err != nil {
		t.Fatal(err)
	}
	n, err := fabric.New(g, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctor, req := spec.New(p)
	n.SetRequirements(req)
	if err := n.AddFlows(flows, nil); err != nil {
		t.Fatal(err)
	}
	mk, _ := spec.Switch(p)
	for i := range n.Nodes {
		if n.Nodes[i].Switch {
			n.AddFeature(i, mk(n.SwitchView(i)))
		}
	}
	n.SetAlgorithm(ctor)
	return n
}

// Two switches A (id 5) and B (id 6), 40 Gb/s host links, a 100 Gb/s A–B
// link: s1 (0) and s2 (1) on A, s3 (2), rc (3) and rn (4) on B. s1 → rc
// and s3 → rc congest B's port to rc; s2 → rn is not congested but
// enters B on the same ingress as s1 → rc. So s1's flow gets CNMs (its
// ingress carries an innocent flow), s3's does not (its ingress carries
// only itself), s2's never (not congested).
func TestDCONCNMOnlyWhereIngressIsShared(t *testing.T) {
	g := &topo.Graph{Kinds: []topo.NodeKind{topo.Host, topo.Host, topo.Host, topo.Host, topo.Host, topo.Switch, topo.Switch}}
	link := func(a, b int, bps int64) {
		g.Links = append(g.Links, topo.Link{A: a, B: b, Bps: bps, Delay: sim.Microsecond})
	}
	link(0, 5, 40e9)
	link(1, 5, 40e9)
	link(2, 6, 40e9)
	link(3, 6, 40e9)
	link(4, 6, 40e9)
	link(5, 6, 100e9)
	cfg := fabric.DefaultConfig()
	cfg.PFC = fabric.PFCStatic
	cfg.PFCStaticBytes = 2_000_000
	p := cc.DCONDefaults()
	p.QECNKB, p.QCNMMode, p.QCNMKB = 100, "static", 100 // no ECN band: the burst comes first
	flows := []workload.Flow{
		{Src: 0, Dst: 3, SizeBytes: 4_000_000, Prio: 3},
		{Src: 1, Dst: 4, SizeBytes: 4_000_000, Prio: 3},
		{Src: 2, Dst: 3, SizeBytes: 4_000_000, Prio: 3},
	}
	n := buildDCON(t, g, cfg, flows, p)
	n.Run()
	for i := range n.QPs {
		if !n.QPs[i].Done {
			t.Fatalf("flow %d did not finish", i)
		}
	}
	d := func(i int) *cc.DCON { return n.QPs[i].CC.(*cc.DCON) }
	if d(0).CNMs == 0 {
		t.Error("s1 → rc (congested, shares its ingress with s2 → rn) got no CNM")
	}
	if d(2).CNMs != 0 || d(1).CNMs != 0 {
		t.Errorf("CNMs to s3 → rc (ingress only congested) %d, to s2 → rn (not congested) %d; want 0, 0", d(2).CNMs, d(1).CNMs)
	}
	// N counts the two flows at B's port to rc; C is that port's 40 Gb/s
	if d(0).LastN != 2 || d(0).LastC != 40e9 {
		t.Errorf("CNM carried N %d, C %d; want 2, 40e9", d(0).LastN, d(0).LastC)
	}
	// the CNM went B → A → s1: two hops of 1 µs plus two 64-byte
	// serialisations (100 and 40 Gb/s), plus at most a data packet ahead
	// of it at each port
	lo := 2*sim.Microsecond + sim.TxTime(64, 100e9) + sim.TxTime(64, 40e9)
	hi := lo + sim.TxTime(1048, 100e9) + sim.TxTime(1048, 40e9)
	if md := d(0).MaxCNMDelay; md < lo || md > hi {
		t.Errorf("CNM delay %v, want within [%v, %v] (two hops)", md, lo, hi)
	}
}

// In a leaf-spine, a CNM from the receiver's leaf reaches a sender on
// another leaf in three hops (leaf → spine → leaf → host), where an
// end-to-end CNP would need five or more.
func TestDCONCNMWithinThreeHops(t *testing.T) {
	d := 5 * sim.Microsecond
	g, err := topo.LeafSpine(topo.LeafSpineParams{Spines: 2, Leaves: 3, HostsPerLeaf: 4, HostBps: 40e9, FabricBps: 40e9, HostDelay: d, FabricDelay: d})
	if err != nil {
		t.Fatal(err)
	}
	// hosts 0–3 on leaf 0, 4–7 on leaf 1, 8–11 on leaf 2. Burst: hosts
	// 0–7 → 8; an innocent long flow 1 → 9 shares leaf 2's ingress ports.
	var flows []workload.Flow
	for s := range 8 {
		flows = append(flows, workload.Flow{Src: s, Dst: 8, SizeBytes: 600_000, Prio: 3})
	}
	for s := range 4 {
		flows = append(flows, workload.Flow{Src: 4 + s, Dst: 9 + s%3, SizeBytes: 2_000_000, Prio: 3})
	}
	cfg := fabric.DefaultConfig()
	cfg.PFC = fabric.PFCStatic
	cfg.PFCStaticBytes = 320_000
	cfg.BufferBytes = 22_000_000
	p := cc.DCONDefaults()
	n := buildDCON(t, g, cfg, flows, p)
	n.Run()
	got := 0
	hop := d + sim.TxTime(64, 40e9)
	for i := range 8 {
		dc := n.QPs[i].CC.(*cc.DCON)
		if dc.CNMs == 0 {
			continue
		}
		got++
		if dc.MaxCNMDelay < 3*hop || dc.MaxCNMDelay > 3*hop+3*sim.TxTime(1048, 40e9) {
			t.Errorf("flow %d: CNM delay %v, want three hops (%v plus at most a packet per port)", i, dc.MaxCNMDelay, 3*hop)
		}
	}
	if got == 0 {
		t.Fatal("no burst flow got a CNM")
	}
}
