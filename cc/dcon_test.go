package cc_test

import (
	"testing"

	"go.yaml.in/yaml/v3"

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
// the increase stage restarts, α unchanged); never raised with
// cnm_may_raise false; raised with cnm_may_raise (the default) outside the
// 50 µs duplicate window.
func TestDCONSenderCNM(t *testing.T) {
	p := cc.DCONDefaults()
	p.CNMMayRaise = false // I2's stricter reading first
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
	return buildDCONWrapped(t, g, cfg, flows, p, nil)
}

// buildDCONWrapped is buildDCON with wrap (if not nil) applied to the
// feature of each switch (node id, feature) before it is attached.
func buildDCONWrapped(t *testing.T, g *topo.Graph, cfg fabric.Config, flows []workload.Flow, p *cc.DCONParams,
	wrap func(node int, f fabric.SwitchFeature) fabric.SwitchFeature) *fabric.Network {
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
			f := mk(n.SwitchView(i))
			if wrap != nil {
				f = wrap(i, f)
			}
			n.AddFeature(i, f)
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
	// the switch-gap reading (I4): one CNM per flow per 50 µs, so that the
	// last one (LastN) is sent while both flows are at the port
	p.CNMGapUs, p.CNMMayRaise = 50, false
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

// qcnmReader is what the DCON switch feature exposes for tests: an egress
// port's current Q_CNM (bytes) and its M.
type qcnmReader interface {
	QCNM(e int) int64
	M(e int) int
}

// qcnmProbe wraps switch A's DCON feature: after each data enqueue to
// port e1 that finds (with the packet) at least minQ bytes, it records the
// feature's M and Q_CNM of e1.
type qcnmProbe struct {
	fabric.SwitchFeature
	t       *testing.T
	e1      int
	minQ    int64
	m       []int
	q       []int64
	noReads bool
}

func (p *qcnmProbe) OnEnqueue(sw *fabric.SwitchView, in, out int, pk *fabric.Packet, now sim.Time) {
	data := pk.Kind == fabric.KindData
	p.SwitchFeature.OnEnqueue(sw, in, out, pk, now) // pk may be stale now
	if !data || out != p.e1 || sw.QueueBytes(p.e1) < p.minQ {
		return
	}
	r, ok := p.SwitchFeature.(qcnmReader)
	if !ok {
		p.noReads = true
		return
	}
	p.m = append(p.m, r.M(p.e1))
	p.q = append(p.q, r.QCNM(p.e1))
}

// oneSwitch is switch A (node 5) with s0 (0), s1 (1), r1 (2) on 40 Gb/s,
// r2 (3) and s2 (4) on 100 Gb/s links, all 1 µs: A's port to r1 is local
// port 2, to r2 port 3.
func oneSwitch() *topo.Graph {
	g := &topo.Graph{Kinds: []topo.NodeKind{topo.Host, topo.Host, topo.Host, topo.Host, topo.Host, topo.Switch}}
	for h, bps := range []int64{40e9, 40e9, 40e9, 100e9, 100e9} {
		g.Links = append(g.Links, topo.Link{A: h, B: 5, Bps: bps, Delay: sim.Microsecond})
	}
	return g
}

// runProbe runs flows on oneSwitch with DCON p and a PFC threshold of
// 320 KB, probing A's port to r1 from minQ bytes; held: M is the held
// count (checked to return to 1 once the queues drained).
func runProbe(t *testing.T, p *cc.DCONParams, flows []workload.Flow, minQ int64, held bool) *qcnmProbe {
	t.Helper()
	cfg := fabric.DefaultConfig()
	cfg.PFC = fabric.PFCStatic
	cfg.PFCStaticBytes = 320_000
	cfg.BufferBytes = 22_000_000
	var probe *qcnmProbe
	n := buildDCONWrapped(t, oneSwitch(), cfg, flows, p, func(node int, f fabric.SwitchFeature) fabric.SwitchFeature {
		probe = &qcnmProbe{SwitchFeature: f, t: t, e1: 2, minQ: minQ}
		return probe
	})
	n.Run()
	for i := range n.QPs {
		if !n.QPs[i].Done {
			t.Fatalf("flow %d did not finish", i)
		}
	}
	if probe.noReads {
		t.Fatal("the DCON switch feature exposes no QCNM(e) and M(e)")
	}
	if len(probe.m) == 0 {
		t.Fatal("A's port to r1 never reached the probe's queue")
	}
	// every queue drained: no ingress holds bytes anywhere (the held
	// counts are released at dequeue)
	r := probe.SwitchFeature.(qcnmReader)
	for e := range 5 {
		if held && r.M(e) != 1 {
			t.Fatalf("after the run, M(%d) = %d: held bytes leaked", e, r.M(e))
		}
	}
	return probe
}

// Issue 16, Q_CNM: M counts the egress queues that hold bytes which
// entered on the ingress (the paper's §4.4 derivation: the ingress queue
// PFC watches is the sum of its bytes in each egress queue), not every
// egress the ingress fed within T. s0 → r1 and s1 → r1 congest A's port
// to r1 (e1); s0 → r2 shares s0's ingress, but r2's 100 Gb/s port never
// backs up, so it holds none of s0's bytes: M(e1) = 1 and Q_CNM(e1) =
// Q_PFC = 320,000 B at every congested arrival (today's rule: M = 2,
// 320,000/2 − 3 · 1 µs · 40 Gb/s = 145,000 B). With s2 → r2 at 100 Gb/s
// too, r2's port backs up and holds s0's packets: M(e1) = 2 (145,000 B) at
// times, never more.
func TestDCONMCountsOnlyQueuesHoldingTheIngress(t *testing.T) {
	p := cc.DCONDefaults()
	p.QECNKB = 50 // the band exists: Q_CNM(M = 2) = 145 KB > Q_ECN
	flows := []workload.Flow{
		{Src: 0, Dst: 2, SizeBytes: 4_000_000, Prio: 3},
		{Src: 1, Dst: 2, SizeBytes: 4_000_000, Prio: 3},
		{Src: 0, Dst: 3, SizeBytes: 4_000_000, Prio: 3},
	}
	pr := runProbe(t, p, flows, 50_000, true)
	for k := range pr.m {
		if pr.m[k] != 1 || pr.q[k] != 320_000 {
			t.Fatalf("sample %d of %d: M(e1) = %d, Q_CNM(e1) = %d; want 1, 320000 (r2's port holds none of s0's bytes)", k, len(pr.m), pr.m[k], pr.q[k])
		}
	}
	pr = runProbe(t, p, append(flows, workload.Flow{Src: 4, Dst: 3, SizeBytes: 4_000_000, Prio: 3}), 50_000, true)
	two := 0
	for k := range pr.m {
		switch {
		case pr.m[k] > 2 || pr.m[k] < 1:
			t.Fatalf("sample %d: M(e1) = %d, want 1 or 2", k, pr.m[k])
		case pr.m[k] == 2:
			two++
			if pr.q[k] != 145_000 {
				t.Fatalf("sample %d: M = 2, Q_CNM %d, want 145000", k, pr.q[k])
			}
		}
	}
	if two == 0 {
		t.Errorf("r2's port backed up with s0's packets but M(e1) was never 2 (%d samples)", len(pr.m))
	}
	// the superseded rule (q_cnm_m: fed) counts r2's idle port
	if err := yaml.Unmarshal([]byte("q_cnm_m: fed"), p); err != nil {
		t.Fatal(err)
	}
	pr = runProbe(t, p, flows, 50_000, false)
	if pr.m[len(pr.m)-1] != 2 || pr.q[len(pr.q)-1] != 145_000 {
		t.Errorf("q_cnm_m fed: M(e1) = %d, Q_CNM %d; want 2, 145000", pr.m[len(pr.m)-1], pr.q[len(pr.q)-1])
	}
}

// Issue 16, E4's "40 %/60 % of a fixed buffer size": pfc_fraction mode
// takes q_cnm_fraction_of_kb as the buffer size B when set (0.6 of
// 687.5 KB = 412,500 B), else the PFC threshold (0.6 of 320 KB = 192,000 B),
// never below Q_ECN.
func TestDCONFractionOfB(t *testing.T) {
	flows := []workload.Flow{{Src: 0, Dst: 2, SizeBytes: 2_000_000, Prio: 3}, {Src: 1, Dst: 2, SizeBytes: 2_000_000, Prio: 3}}
	for _, c := range []struct {
		yaml string
		want int64
	}{
		{"{q_cnm_mode: pfc_fraction, q_cnm_pfc_fraction: 0.6, q_cnm_fraction_of_kb: 687.5}", 412_500},
		{"{q_cnm_mode: pfc_fraction, q_cnm_pfc_fraction: 0.6, q_ecn_kb: 50}", 192_000},
		{"{q_cnm_mode: pfc_fraction, q_cnm_pfc_fraction: 0.4, q_ecn_kb: 200}", 200_000},
	} {
		p := cc.DCONDefaults()
		if err := yaml.Unmarshal([]byte(c.yaml), p); err != nil {
			t.Fatal(err)
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("%s: %v", c.yaml, err)
		}
		pr := runProbe(t, p, flows, 1, true)
		for k := range pr.q {
			if pr.q[k] != c.want {
				t.Fatalf("%s: Q_CNM(e1) = %d at sample %d, want %d", c.yaml, pr.q[k], k, c.want)
			}
		}
	}
}

// cnmTimes records when a DCON sender receives CNMs.
type cnmTimes struct {
	*cc.DCON
	at []sim.Time
}

func (c *cnmTimes) OnNotice(q *fabric.QP, nt *fabric.Notice, now sim.Time) {
	if nt.Kind == fabric.KindNotice {
		c.at = append(c.at, now)
	}
	c.DCON.OnNotice(q, nt, now)
}

// Issue 16: the paper's rule for repeated CNMs is the sender's (§4.3:
// "when the sender receives several CNMs of one flow within 50 µs, it
// updates the rate only for a target below the current rate"), which
// presumes that a switch sends them closer than 50 µs apart; outside the
// window Algorithm 1 line 2 sets C/N even when higher. So by default the
// switch sends a CNM for every packet in a burst (no gap) and the sender
// applies its 50 µs window; the switch-side gap is a reading.
func TestDCONSenderWindowIsTheDefault(t *testing.T) {
	p := cc.DCONDefaults()
	if p.CNMGapUs != 0 || !p.CNMMayRaise || p.CNMDupUs != 50 {
		t.Fatalf("defaults: cnm_gap_us %v, cnm_may_raise %v, cnm_dup_window_us %v; want 0, true, 50", p.CNMGapUs, p.CNMMayRaise, p.CNMDupUs)
	}
	q := &fabric.QP{LineRateBps: 40e9}
	alg := cc.NewDCON(p)(q)
	d := alg.(*cc.DCON)
	alg.Start(q, 0)
	cnm := func(n int64, at sim.Time) {
		alg.OnNotice(q, &fabric.Notice{Kind: fabric.KindNotice, Args: fabric.NoticeArgs{n, 40e9, int64(at)}}, at)
	}
	cnm(4, 0)
	cnm(2, 40*sim.Microsecond) // a higher target within 50 µs: ignored
	if d.Rc != 10e9 {
		t.Errorf("N = 2 40 µs after N = 4: Rc %d, want 10e9", d.Rc)
	}
	cnm(2, 60*sim.Microsecond) // outside the window: C/N, although higher
	if d.Rc != 20e9 {
		t.Errorf("N = 2 60 µs after N = 4: Rc %d, want 20e9", d.Rc)
	}

	// two switches (TestDCONCNMOnlyWhereIngressIsShared's network): s1's
	// flow now gets CNMs less than 50 µs apart
	g := &topo.Graph{Kinds: []topo.NodeKind{topo.Host, topo.Host, topo.Host, topo.Host, topo.Host, topo.Switch, topo.Switch}}
	for _, l := range [][3]int64{{0, 5, 40e9}, {1, 5, 40e9}, {2, 6, 40e9}, {3, 6, 40e9}, {4, 6, 40e9}, {5, 6, 100e9}} {
		g.Links = append(g.Links, topo.Link{A: int(l[0]), B: int(l[1]), Bps: l[2], Delay: sim.Microsecond})
	}
	cfg := fabric.DefaultConfig()
	cfg.PFC = fabric.PFCStatic
	cfg.PFCStaticBytes = 2_000_000
	p.QECNKB, p.QCNMMode, p.QCNMKB = 100, "static", 100
	flows := []workload.Flow{{Src: 0, Dst: 3, SizeBytes: 4_000_000, Prio: 3}, {Src: 1, Dst: 4, SizeBytes: 4_000_000, Prio: 3}, {Src: 2, Dst: 3, SizeBytes: 4_000_000, Prio: 3}}
	n := buildDCON(t, g, cfg, flows, p)
	var s1 *cnmTimes
	ctor, _ := cc.Lookup("dcon")
	mk, _ := ctor.New(p)
	n.SetAlgorithm(func(q *fabric.QP) fabric.Algorithm {
		a := mk(q)
		if q.Src == 0 {
			s1 = &cnmTimes{DCON: a.(*cc.DCON)}
			return s1
		}
		return a
	})
	n.Run()
	if s1 == nil || len(s1.at) < 2 {
		t.Fatalf("s1's flow got fewer than two CNMs")
	}
	gap := s1.at[1] - s1.at[0]
	for k := 2; k < len(s1.at); k++ {
		gap = min(gap, s1.at[k]-s1.at[k-1])
	}
	if gap >= 50*sim.Microsecond {
		t.Errorf("shortest interval between s1's CNMs %v: the switch still spaces them 50 µs apart", gap)
	}
}
