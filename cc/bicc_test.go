package cc_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/sim"
	"github.com/ccsim/ccsim/topo"
	"github.com/ccsim/ccsim/workload"
)

// The defaults: DCQCN's own (the dcqcn preset) and the DCI values of
// docs/algorithms/bicc.md §5.
func TestBiCCDefaults(t *testing.T) {
	p := cc.BiCCDefaults()
	if !reflect.DeepEqual(p.DCQCNParams, *cc.DCQCNDefaults()) {
		t.Errorf("host parameters %+v, want DCQCN's defaults %+v", p.DCQCNParams, *cc.DCQCNDefaults())
	}
	if p.VOQs != 128 || p.VOQKey != "dst" || p.KDCIUs != 32 || p.DCICNPIntervalUs != 1 || p.NoticeBytes != 60 ||
		!p.SenderSide || !p.ReceiverSide || p.DCIRole != "dci" {
		t.Errorf("DCI defaults %+v", p)
	}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	spec, err := cc.Lookup("bicc")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(spec.Defaults(), p) {
		t.Error("registry defaults differ from BiCCDefaults")
	}
	_, req := spec.New(p)
	if !reflect.DeepEqual(req, fabric.Requirements{AckPrio: 1}) {
		t.Errorf("requirements %+v, want DCQCN's (ACK priority only)", req)
	}
	if _, period := spec.Switch(p); period != 0 {
		t.Errorf("switch period %v, want none", period)
	}
}

func TestBiCCValidate(t *testing.T) {
	for _, tc := range []struct {
		set  func(p *cc.BiCCParams)
		want string
	}{
		{func(p *cc.BiCCParams) { p.VOQs = 0 }, "voqs = 0 out of range [1, 65536]"},
		{func(p *cc.BiCCParams) { p.VOQs = 65537 }, "voqs = 65537"},
		{func(p *cc.BiCCParams) { p.VOQKey = "port" }, `voq_key = "port": allowed values dst, flow`},
		{func(p *cc.BiCCParams) { p.KDCIUs = -1 }, "k_dci_us = -1 out of range [0, 1e6]"},
		{func(p *cc.BiCCParams) { p.DCICNPIntervalUs = 2e6 }, "dci_cnp_interval_us = 2e+06 out of range [0, 1e6]"},
		{func(p *cc.BiCCParams) { p.NoticeBytes = 0 }, "notice_bytes = 0 out of range [1, 9000]"},
		{func(p *cc.BiCCParams) { p.DCIRole = "" }, "dci_role is empty"},
		{func(p *cc.BiCCParams) { p.G = 0 }, "g = 0 out of range"}, // the inline DCQCN parameters
	} {
		p := cc.BiCCDefaults()
		tc.set(p)
		err := p.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("want error containing %q, got %v", tc.want, err)
		}
	}
}

// VOQ mapping (I5): destination host id mod voqs, or flow id mod voqs.
func TestBiCCVOQMapping(t *testing.T) {
	for _, tc := range []struct {
		byFlow     bool
		dst, qp    int32
		voqs, want int
	}{
		{false, 5, 77, 128, 5},
		{false, 133, 77, 128, 5},
		{false, 128, 3, 128, 0},
		{false, 127, 3, 128, 127},
		{true, 5, 77, 128, 77},
		{true, 5, 300, 128, 44},
		{false, 9, 1, 1, 0},
		{true, 9, 1, 1, 0},
	} {
		if got := cc.BiCCVOQ(tc.byFlow, tc.dst, tc.qp, tc.voqs); got != tc.want {
			t.Errorf("BiCCVOQ(byFlow %v, dst %d, qp %d, %d) = %d, want %d", tc.byFlow, tc.dst, tc.qp, tc.voqs, got, tc.want)
		}
	}
}

// VOQ byte accounting and the culprit rule (I6): a VOQ is a culprit when it
// holds at least the mean backlog of the port's non-empty VOQs.
func TestBiCCVOQAccounting(t *testing.T) {
	v := cc.BiCCVOQs{Bytes: make([]int64, 4)}
	check := func(label string, total int64, active int, culprits [4]bool) {
		t.Helper()
		if v.Total != total || v.Active != active {
			t.Errorf("%s: total %d active %d, want %d %d", label, v.Total, v.Active, total, active)
		}
		for k := range 4 {
			if v.Culprit(k) != culprits[k] {
				t.Errorf("%s: Culprit(%d) = %v, want %v (bytes %v)", label, k, v.Culprit(k), culprits[k], v.Bytes)
			}
		}
	}
	check("empty", 0, 0, [4]bool{})
	v.Add(1, 1048)
	check("one VOQ", 1048, 1, [4]bool{false, true, false, false})
	v.Add(1, 1048)
	v.Add(2, 1048)
	// 2096 and 1048 of 3144: mean 1572
	check("two VOQs", 3144, 2, [4]bool{false, true, false, false})
	v.Add(3, 2096)
	// 2096, 1048, 2096 of 5240: mean 1746.67; 2096·3 = 6288 ≥ 5240
	check("three VOQs", 5240, 3, [4]bool{false, true, false, true})
	v.Add(2, 1048)
	// all equal (2096): every one is a culprit (ties count)
	check("equal VOQs", 6288, 3, [4]bool{false, true, true, true})
	v.Remove(1, 1048)
	v.Remove(1, 1048)
	check("VOQ 1 drained", 4192, 2, [4]bool{false, false, true, true})
	v.Remove(2, 2096)
	v.Remove(3, 2096)
	check("all drained", 0, 0, [4]bool{})
}

// The decision (I7, I8): queue at or above K, a culprit VOQ, and the flow's
// last notice from this switch at least the interval ago.
func TestBiCCNotifyDecision(t *testing.T) {
	v := cc.BiCCVOQs{Bytes: make([]int64, 2)}
	v.Add(0, 3000)
	v.Add(1, 1000) // VOQ 0 is the culprit, VOQ 1 is not
	const K = 1_600_000
	now := 100 * us
	never := -sim.Never / 2
	for _, tc := range []struct {
		q         int64
		voq       int
		last, gap sim.Time
		want      bool
	}{
		{K - 1, 0, never, us, false},     // below K
		{K, 0, never, us, true},          // at K
		{K + 5e6, 1, never, us, false},   // not a culprit
		{K, 0, now - us + ps, us, false}, // within the interval
		{K, 0, now - us, us, true},       // exactly the interval
		{K, 0, now, 0, true},             // no interval: every packet
		{K, 0, now - 40*us, 50 * us, false},
	} {
		if got := cc.BiCCNotify(tc.q, K, &v, tc.voq, tc.last, now, tc.gap); got != tc.want {
			t.Errorf("q %d voq %d last %v gap %v: notify %v, want %v", tc.q, tc.voq, tc.last, tc.gap, got, tc.want)
		}
	}
}

// A DCI notice is a CNP to the DCQCN reaction point (I1): the same notices
// and CNPs at the same times leave the same state; the first one does not
// cut (reference mode), α = 1; the notice's record is kept.
func TestBiCCSenderNoticeIsCNP(t *testing.T) {
	p := cc.BiCCDefaults()
	q := &fabric.QP{LineRateBps: line, RateBps: line}
	alg := cc.NewBiCC(p)(q)
	b := alg.(*cc.BiCC)
	alg.Start(q, 0)
	qd, d := newDCQCN(t, cc.DCQCNDefaults())
	notice := func(at sim.Time) {
		alg.OnNotice(q, &fabric.Notice{Kind: fabric.KindNotice, From: 20, Arg: int64(at - 3*us)}, at)
		cnp(qd, d, at)
	}
	notice(10 * us)
	if b.Rc != line || b.Alpha != 1 || b.DCINotices != 1 || b.FirstDCINoticeAt != 10*us || b.MaxNoticeDelay != 3*us || b.LastNoticeFrom != 20 {
		t.Errorf("first notice: Rc %d α %v notices %d first %v delay %v from %d", b.Rc, b.Alpha, b.DCINotices, b.FirstDCINoticeAt, b.MaxNoticeDelay, b.LastNoticeFrom)
	}
	for _, at := range []sim.Time{12 * us, 13 * us, 19 * us, 27 * us} {
		notice(at)
		alg.OnSend(q, 1048, at+500*ns)
		send(qd, d, at+500*ns)
		if b.Rc != d.Rc || b.Rt != d.Rt || b.Alpha != d.Alpha || q.RateBps != qd.RateBps {
			t.Errorf("after the notice at %v: BiCC Rc %d Rt %d α %v; DCQCN with CNPs Rc %d Rt %d α %v", at, b.Rc, b.Rt, b.Alpha, d.Rc, d.Rt, d.Alpha)
		}
	}
	if b.Rc >= line || b.DCINotices != 5 || b.FirstDCINoticeAt != 10*us {
		t.Errorf("after five notices: Rc %d (want a cut), notices %d, first %v", b.Rc, b.DCINotices, b.FirstDCINoticeAt)
	}
	// a CNP still works as in DCQCN
	alg.OnNotice(q, &fabric.Notice{Kind: fabric.KindCNP}, 30*us)
	if b.DCINotices != 5 {
		t.Error("a CNP was counted as a DCI notice")
	}
}

// crossDC is a two-datacenter graph: in each datacenter tors ToRs with
// hostsPerToR hosts (100 Gb/s, 1 µs), each ToR linked to the datacenter's
// DCI switch (torBps, 1 µs); the two DCI switches joined by a long-haul
// link (lhBps, lhDelay). Node ids: hosts of DC A, hosts of DC B, ToRs of
// A, ToRs of B, DCI A, DCI B; domains 1 (A) and 2 (B); roles host, tor,
// dci. DCI A's ports: its ToRs in order, then the long haul. hostBps
// overrides the rate of some hosts' links.
type crossDC struct {
	g          *topo.Graph
	hosts      int // per datacenter
	dciA, dciB int
	torA, torB int // first ToR of each datacenter
}

func newCrossDC(tors, hostsPerToR int, torBps, lhBps int64, lhDelay sim.Time, hostBps map[int]int64) crossDC {
	h := tors * hostsPerToR
	c := crossDC{hosts: h, torA: 2 * h, torB: 2*h + tors, dciA: 2*h + 2*tors, dciB: 2*h + 2*tors + 1}
	n := 2*h + 2*tors + 2
	g := &topo.Graph{Kinds: make([]topo.NodeKind, n), Domains: make([]uint16, n), Roles: make([]string, n)}
	for i := range n {
		switch {
		case i < 2*h:
			g.Kinds[i], g.Roles[i] = topo.Host, "host"
			g.Domains[i] = uint16(1 + i/h)
		case i < c.dciA:
			g.Kinds[i], g.Roles[i] = topo.Switch, "tor"
			g.Domains[i] = uint16(1 + (i-2*h)/tors)
		default:
			g.Kinds[i], g.Roles[i] = topo.Switch, "dci"
			g.Domains[i] = uint16(1 + i - c.dciA)
		}
	}
	for i := range 2 * h {
		bps := int64(100e9)
		if b, ok := hostBps[i]; ok {
			bps = b
		}
		tor := c.torA + i/hostsPerToR
		if i >= h {
			tor = c.torB + (i-h)/hostsPerToR
		}
		g.Links = append(g.Links, topo.Link{A: i, B: tor, Bps: bps, Delay: us})
	}
	for t := range tors {
		g.Links = append(g.Links, topo.Link{A: c.torA + t, B: c.dciA, Bps: torBps, Delay: us})
	}
	for t := range tors {
		g.Links = append(g.Links, topo.Link{A: c.torB + t, B: c.dciB, Bps: torBps, Delay: us})
	}
	g.Links = append(g.Links, topo.Link{A: c.dciA, B: c.dciB, Bps: lhBps, Delay: lhDelay})
	c.g = g
	return c
}

// crossDCConfig: large lossless buffers (the DCI's PFC never pauses here).
func crossDCConfig() fabric.Config {
	cfg := fabric.DefaultConfig()
	cfg.BufferBytes = 1 << 30
	cfg.PFC = fabric.PFCStatic
	cfg.PFCStaticBytes = 512 << 20
	return cfg
}

// buildAlg builds a network on g running algorithm name with parameters p
// (nil = defaults) and its switch features; wrap, if set, wraps every QP's
// algorithm. It returns the network and the features by switch.
func buildAlg(t *testing.T, g *topo.Graph, cfg fabric.Config, flows []workload.Flow, name string, p cc.Params,
	wrap func(q *fabric.QP, a fabric.Algorithm) fabric.Algorithm) (*fabric.Network, map[int]fabric.SwitchFeature) {
	t.Helper()
	spec, err := cc.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	if p == nil {
		p = spec.Defaults()
	}
	if err := p.Validate(); err != nil {
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
	feats := map[int]fabric.SwitchFeature{}
	if spec.Switch != nil {
		mk, period := spec.Switch(p)
		for i := range n.Nodes {
			if n.Nodes[i].Switch {
				f := mk(n.SwitchView(i))
				if f != nil {
					feats[i] = f
				}
				n.AddFeature(i, f)
			}
		}
		n.SetFeaturePeriod(period)
	}
	if wrap != nil {
		n.SetAlgorithm(func(q *fabric.QP) fabric.Algorithm { return wrap(q, ctor(q)) })
	} else {
		n.SetAlgorithm(ctor)
	}
	return n, feats
}

// The feature exists only at the DCI switches (role dci), and nowhere on a
// graph without roles, or without datacenter domains (I2, I3).
func TestBiCCSwitchOnlyAtDCI(t *testing.T) {
	c := newCrossDC(2, 2, 400e9, 400e9, 10*us, nil)
	flows := []workload.Flow{{Src: 0, Dst: c.hosts, SizeBytes: 1000, Prio: 3}}
	mkOn := func(g *topo.Graph, p *cc.BiCCParams) []int {
		n, err := fabric.New(g, crossDCConfig())
		if err != nil {
			t.Fatal(err)
		}
		if err := n.AddFlows(flows, nil); err != nil {
			t.Fatal(err)
		}
		mk := cc.NewBiCCSwitch(p)
		var at []int
		for i := range n.Nodes {
			if n.Nodes[i].Switch && mk(n.SwitchView(i)) != nil {
				at = append(at, i)
			}
		}
		return at
	}
	if at := mkOn(c.g, cc.BiCCDefaults()); !reflect.DeepEqual(at, []int{c.dciA, c.dciB}) {
		t.Errorf("features at %v, want the DCI switches %v", at, []int{c.dciA, c.dciB})
	}
	p := cc.BiCCDefaults()
	p.DCIRole = "tor"
	if at := mkOn(c.g, p); !reflect.DeepEqual(at, []int{c.torA, c.torA + 1, c.torB, c.torB + 1}) {
		t.Errorf("dci_role tor: features at %v, want the ToRs", at)
	}
	noRoles := *c.g
	noRoles.Roles = nil
	if at := mkOn(&noRoles, cc.BiCCDefaults()); at != nil {
		t.Errorf("graph without roles: features at %v, want none", at)
	}
	noDomains := *c.g
	noDomains.Domains = nil
	if at := mkOn(&noDomains, cc.BiCCDefaults()); at != nil {
		t.Errorf("graph without domains: features at %v, want none", at)
	}
}

// The switch glue, exactly: with K = 0 and no interval every data packet
// of a cross-DC flow makes each DCI on its path notify (the sender's DCI
// as sender side, the receiver's as receiver side), so each side sends as
// many notices as the flow has packets; sender_side / receiver_side switch
// a side off; an intra-datacenter flow through a DCI gets none; the VOQ
// counts return to zero.
func TestBiCCSidesExact(t *testing.T) {
	c := newCrossDC(2, 2, 400e9, 400e9, 10*us, nil)
	const pkts = 50
	flows := []workload.Flow{
		{Src: 0, Dst: c.hosts, SizeBytes: pkts * 1000, Prio: 3},               // A → B
		{Src: c.hosts + 2, Dst: c.hosts + 1, SizeBytes: pkts * 1000, Prio: 3}, // B ToR 1 → B ToR 0 through DCI B
	}
	for _, tc := range []struct {
		snd, rcv   bool
		sent, recv int64
	}{{true, true, pkts, pkts}, {true, false, pkts, 0}, {false, true, 0, pkts}, {false, false, 0, 0}} {
		p := cc.BiCCDefaults()
		p.KDCIUs, p.DCICNPIntervalUs = 0, 0
		p.SenderSide, p.ReceiverSide = tc.snd, tc.rcv
		n, feats := buildAlg(t, c.g, crossDCConfig(), flows, "bicc", p, nil)
		n.Run()
		a, b := feats[c.dciA].(*cc.BiCCSwitch), feats[c.dciB].(*cc.BiCCSwitch)
		if a.SenderSide != tc.sent || a.ReceiverSide != 0 || a.Notices != tc.sent ||
			b.ReceiverSide != tc.recv || b.SenderSide != 0 || b.Notices != tc.recv {
			t.Errorf("sender_side %v receiver_side %v: DCI A notices %d (sender side %d, receiver side %d), DCI B %d (%d, %d); want %d from A, %d from B",
				tc.snd, tc.rcv, a.Notices, a.SenderSide, a.ReceiverSide, b.Notices, b.SenderSide, b.ReceiverSide, tc.sent, tc.recv)
		}
		if got := n.QPs[0].CC.(*cc.BiCC).DCINotices; got != tc.sent+tc.recv || n.Stats.Notices != tc.sent+tc.recv {
			t.Errorf("the cross-DC sender got %d notices (network %d), want %d", got, n.Stats.Notices, tc.sent+tc.recv)
		}
		if got := n.QPs[1].CC.(*cc.BiCC).DCINotices; got != 0 {
			t.Errorf("the intra-DC flow through DCI B got %d notices", got)
		}
		for _, f := range []*cc.BiCCSwitch{a, b} {
			for e, v := range f.Ports {
				if v.Total != 0 || v.Active != 0 {
					t.Errorf("port %d: VOQ total %d active %d after the run", e, v.Total, v.Active)
				}
			}
		}
		if !n.QPs[0].Done || !n.QPs[1].Done {
			t.Error("a flow did not finish")
		}
	}
}
