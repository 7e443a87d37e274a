package cc_test

import (
	"testing"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/sim"
	"github.com/ccsim/ccsim/workload"
)

// firstSignal records, for every QP, the first congestion signal its
// sender received: a CNP (an ACK's CNP flag or a CNP packet) or a switch
// notice.
type firstSignal struct {
	fabric.Algorithm
	cnp, notice *sim.Time
}

func (w *firstSignal) OnAck(q *fabric.QP, a *fabric.AckInfo, now sim.Time) {
	if a.CNP && *w.cnp == sim.Never {
		*w.cnp = now
	}
	w.Algorithm.OnAck(q, a, now)
}

func (w *firstSignal) OnNotice(q *fabric.QP, n *fabric.Notice, now sim.Time) {
	at := w.cnp
	if n.Kind == fabric.KindNotice {
		at = w.notice
	}
	if *at == sim.Never {
		*at = now
	}
	w.Algorithm.OnNotice(q, n, now)
}

// queueCross records the first time a data packet joining port (local
// index) of its switch found at least k bytes there.
type queueCross struct {
	port int
	k    int64
	at   sim.Time
}

func (c *queueCross) OnEnqueue(sw *fabric.SwitchView, in, out int, p *fabric.Packet, now sim.Time) {
	if p.Kind == fabric.KindData && out == c.port && c.at == sim.Never && sw.QueueBytes(out)-int64(p.Size) >= c.k {
		c.at = now
	}
}
func (c *queueCross) OnDequeue(sw *fabric.SwitchView, out int, p *fabric.Packet, now sim.Time) {}
func (c *queueCross) OnPeriod(sw *fabric.SwitchView, now sim.Time)                             {}

// crossRun is one run of the long-haul scenario.
type crossRun struct {
	n                     *fabric.Network
	feats                 map[int]fabric.SwitchFeature
	firstCNP, firstNotice []sim.Time
	cross                 sim.Time // DCI A's long-haul queue first ≥ K_DCI
	peak                  int64    // DCI A's long-haul queue maximum
}

func runCross(t *testing.T, c crossDC, flows []workload.Flow, name string, p cc.Params) crossRun {
	t.Helper()
	r := crossRun{firstCNP: make([]sim.Time, len(flows)), firstNotice: make([]sim.Time, len(flows))}
	for i := range flows {
		r.firstCNP[i], r.firstNotice[i] = sim.Never, sim.Never
	}
	r.n, r.feats = buildAlg(t, c.g, crossDCConfig(), flows, name, p, func(q *fabric.QP, a fabric.Algorithm) fabric.Algorithm {
		return &firstSignal{Algorithm: a, cnp: &r.firstCNP[q.ID], notice: &r.firstNotice[q.ID]}
	})
	nd := &r.n.Nodes[c.dciA]
	lh := int(nd.NumPorts) - 1
	qc := &queueCross{port: lh, k: sim.BytesIn(32*us, 400e9), at: sim.Never}
	r.n.AddFeature(c.dciA, qc)
	r.n.Run()
	for i := range r.n.QPs {
		if !r.n.QPs[i].Done {
			t.Fatalf("%s: flow %d did not finish", name, i)
		}
	}
	r.cross = qc.at
	r.peak = r.n.Ports[int(nd.FirstPort)+lh].Stats.MaxQueueBytes
	return r
}

// biccOf is the BiCC sender of a QP run with firstSignal.
func biccOf(q *fabric.QP) *cc.BiCC { return q.CC.(*firstSignal).Algorithm.(*cc.BiCC) }

func earliest(ts []sim.Time) sim.Time {
	m := sim.Never
	for _, x := range ts {
		m = min(m, x)
	}
	return m
}

// The long haul congested: eight hosts of DC A (two ToRs of four, 400 Gb/s
// uplinks) send 20 MB each to eight hosts of DC B over one 400 Gb/s, 1 ms
// DCI–DCI link, so DCI A's long-haul port receives 800 Gb/s; four 100 KB
// cross-DC flows start at 1.0, 1.1, 1.2 and 1.3 ms.
//
//   - With BiCC the senders hear of the congestion from DCI A about two
//     hops after its queue first reaches K_DCI (1.6 MB = 32 µs at 400
//     Gb/s): every notice takes DCI A → ToR → host, 2 µs plus the
//     serialisations (and at most a data packet ahead of it at each port);
//     DCQCN's first CNP needs the marked packet's way to DC B and the ACK's
//     way back, more than two long-haul delays.
//   - The DCI queue peaks far lower with BiCC than with DCQCN, whose
//     senders keep sending at line rate for a cross-DC round trip, and the
//     short flows do not wait behind it.
//   - Only DCI A notifies (sender side); DCI B's queues into DC B never
//     reach K_DCI; no notice comes from any other switch.
//   - The same run again gives the same result; on the same graph without
//     roles BiCC is DCQCN exactly.
func TestBiCCScenarioLongHaul(t *testing.T) {
	c := newCrossDC(2, 4, 400e9, 400e9, sim.Millisecond, nil)
	var flows []workload.Flow
	for i := range c.hosts {
		flows = append(flows, workload.Flow{Src: i, Dst: c.hosts + i, SizeBytes: 20_000_000, Prio: 3})
	}
	const long = 8
	for i := range 4 {
		flows = append(flows, workload.Flow{Src: i, Dst: c.hosts + 4 + i, SizeBytes: 100_000, Prio: 3, Start: sim.Millisecond + sim.Time(i)*100*us})
	}
	bi := runCross(t, c, flows, "bicc", nil)
	dq := runCross(t, c, flows, "dcqcn", nil)

	a, b := bi.feats[c.dciA].(*cc.BiCCSwitch), bi.feats[c.dciB].(*cc.BiCCSwitch)
	if len(bi.feats) != 2 {
		t.Errorf("BiCC features at %d switches, want the 2 DCI switches", len(bi.feats))
	}
	biFirst, dqFirst := earliest(bi.firstNotice), earliest(dq.firstCNP)
	biReact, dqReact := biFirst-bi.cross, dqFirst-dq.cross
	t.Logf("DCI A long-haul queue ≥ K_DCI at %v (BiCC) / %v (DCQCN)", bi.cross, dq.cross)
	t.Logf("first signal at a sender: BiCC DCI notice %v (reaction %v), DCQCN CNP %v (reaction %v); first CNP under BiCC %v",
		biFirst, biReact, dqFirst, dqReact, earliest(bi.firstCNP))
	t.Logf("DCI A long-haul queue peak: BiCC %.3f MB, DCQCN %.3f MB", float64(bi.peak)/1e6, float64(dq.peak)/1e6)
	t.Logf("notices: DCI A %d (sender side %d), DCI B %d; network %d", a.Notices, a.SenderSide, b.Notices, bi.n.Stats.Notices)
	var biLong, dqLong, biShort, dqShort sim.Time
	for i, f := range flows {
		b, d := bi.n.QPs[i].Finish-f.Start, dq.n.QPs[i].Finish-f.Start
		if i < long {
			biLong, dqLong = biLong+b/long, dqLong+d/long
		} else {
			biShort, dqShort = biShort+b/4, dqShort+d/4
		}
	}
	t.Logf("mean FCT of the 20 MB flows: BiCC %v, DCQCN %v; of the 100 KB flows started at 1.0–1.3 ms: BiCC %v, DCQCN %v",
		biLong, dqLong, biShort, dqShort)

	// notice path DCI A → ToR → host: two 1 µs hops, a 60-byte notice at
	// 400 and 100 Gb/s, at most one data packet ahead at each port and
	// the other flows' notices (class 0) ahead at DCI A's port
	lo := 2*us + sim.TxTime(60, 400e9) + sim.TxTime(60, 100e9)
	hi := lo + sim.TxTime(1048, 400e9) + sim.TxTime(1048, 100e9) + 8*sim.TxTime(60, 400e9) + 4*sim.TxTime(60, 100e9)
	for i := range long {
		s := biccOf(&bi.n.QPs[i])
		if s.DCINotices == 0 {
			t.Errorf("flow %d got no DCI notice", i)
			continue
		}
		if s.MaxNoticeDelay < lo || s.MaxNoticeDelay > hi || s.LastNoticeFrom != int32(c.dciA) {
			t.Errorf("flow %d: notice delay up to %v (want within [%v, %v]), last from %d (want DCI A %d)", i, s.MaxNoticeDelay, lo, hi, s.LastNoticeFrom, c.dciA)
		}
	}
	if bi.cross == sim.Never || biReact < lo || biReact > hi+sim.Microsecond {
		t.Errorf("BiCC reaction %v after the queue reached K_DCI, want within [%v, %v]", biReact, lo, hi+sim.Microsecond)
	}
	if dq.cross == sim.Never || dqReact < 2*sim.Millisecond || dqReact < 100*biReact {
		t.Errorf("DCQCN reaction %v, want over 2 ms (two long-haul delays) and over 100 × BiCC's %v", dqReact, biReact)
	}
	if bi.peak > 4_000_000 || bi.peak*10 > dq.peak {
		t.Errorf("DCI queue peak BiCC %d B, DCQCN %d B; want BiCC ≤ 4 MB and ≤ 1/10 of DCQCN's", bi.peak, dq.peak)
	}
	// the short flows wait behind DCQCN's long DCI queue (83 MB ≈ 1.7 ms at
	// 400 Gb/s); with BiCC they take about the cross-DC base RTT
	// (2.008 ms) plus the short queue
	if biShort > 2100*us || dqShort < biShort+500*us {
		t.Errorf("100 KB flows' mean FCT: BiCC %v (want ≤ 2.1 ms), DCQCN %v (want ≥ 0.5 ms more)", biShort, dqShort)
	}
	if a.Notices == 0 || a.SenderSide != a.Notices || b.Notices != 0 || bi.n.Stats.Notices != a.Notices {
		t.Errorf("notices DCI A %d (sender side %d), DCI B %d, network %d; want all from DCI A's sender side", a.Notices, a.SenderSide, b.Notices, bi.n.Stats.Notices)
	}

	// determinism
	again := runCross(t, c, flows, "bicc", nil)
	for i := range flows {
		x, y := &bi.n.QPs[i], &again.n.QPs[i]
		if x.Finish != y.Finish || x.CNPs != y.CNPs || biccOf(x).DCINotices != biccOf(y).DCINotices {
			t.Errorf("flow %d differs between two identical runs: finish %v / %v", i, x.Finish, y.Finish)
		}
	}
	if again.peak != bi.peak || again.n.Stats.Events != bi.n.Stats.Events {
		t.Errorf("rerun: peak %d / %d, events %d / %d", again.peak, bi.peak, again.n.Stats.Events, bi.n.Stats.Events)
	}

	// without roles there is no DCI switch: BiCC is DCQCN
	noRoles := c
	g := *c.g
	g.Roles = nil
	noRoles.g = &g
	plain := runCross(t, noRoles, flows, "bicc", nil)
	if len(plain.feats) != 0 || plain.n.Stats.Notices != 0 || plain.peak != dq.peak || plain.n.Stats.Events != dq.n.Stats.Events {
		t.Errorf("bicc without roles: %d features, %d notices, peak %d (DCQCN %d), events %d (DCQCN %d)",
			len(plain.feats), plain.n.Stats.Notices, plain.peak, dq.peak, plain.n.Stats.Events, dq.n.Stats.Events)
	}
	for i := range flows {
		if plain.n.QPs[i].Finish != dq.n.QPs[i].Finish || plain.n.QPs[i].CNPs != dq.n.QPs[i].CNPs {
			t.Errorf("flow %d: bicc without roles finishes %v with %d CNPs, dcqcn %v with %d", i,
				plain.n.QPs[i].Finish, plain.n.QPs[i].CNPs, dq.n.QPs[i].Finish, dq.n.QPs[i].CNPs)
		}
	}
}

// The receiver side: four hosts of DC A send across the long haul to four
// hosts on DC B's ToR 0 (400 Gb/s in all) while four hosts on DC B's ToR 1
// send to four other hosts on ToR 0 through DCI B from 1 ms on, when the
// cross-DC packets arrive, so DCI B's port to ToR 0 receives 800 Gb/s. DCI B notifies the cross-DC senders (receiver side),
// one long-haul delay away, before their first end-to-end CNP; the
// intra-DC flows through DCI B get no notice (they have DCQCN's short
// loop); DCI A sends none.
func TestBiCCScenarioReceiverSide(t *testing.T) {
	c := newCrossDC(2, 8, 400e9, 400e9, sim.Millisecond, nil)
	var flows []workload.Flow
	for i := range 4 {
		flows = append(flows, workload.Flow{Src: i, Dst: c.hosts + i, SizeBytes: 4_000_000, Prio: 3})
	}
	for i := range 4 {
		flows = append(flows, workload.Flow{Src: c.hosts + 8 + i, Dst: c.hosts + 4 + i, SizeBytes: 4_000_000, Prio: 3, Start: sim.Millisecond})
	}
	r := runCross(t, c, flows, "bicc", nil)
	a, b := r.feats[c.dciA].(*cc.BiCCSwitch), r.feats[c.dciB].(*cc.BiCCSwitch)
	t.Logf("notices: DCI A %d, DCI B %d (receiver side %d)", a.Notices, b.Notices, b.ReceiverSide)
	// DCI B → long haul → DCI A → ToR → host; ahead of the notice at
	// each port at most an ACK and the other cross flows' notices
	lo := sim.Millisecond + 2*us + 2*sim.TxTime(60, 400e9) + sim.TxTime(60, 100e9)
	hi := lo + 4*(2*sim.TxTime(60, 400e9)+sim.TxTime(60, 100e9))
	for i := range 4 {
		s := biccOf(&r.n.QPs[i])
		t.Logf("cross flow %d: %d notices, first %v, max delay %v; first CNP %v", i, s.DCINotices, r.firstNotice[i], s.MaxNoticeDelay, r.firstCNP[i])
		if s.DCINotices == 0 || s.LastNoticeFrom != int32(c.dciB) || s.MaxNoticeDelay < lo || s.MaxNoticeDelay > hi {
			t.Errorf("cross flow %d: %d notices, last from %d (want DCI B %d), delay up to %v (want within [%v, %v])",
				i, s.DCINotices, s.LastNoticeFrom, c.dciB, s.MaxNoticeDelay, lo, hi)
		}
		if r.firstNotice[i] >= r.firstCNP[i] {
			t.Errorf("cross flow %d: first notice %v not before its first CNP %v", i, r.firstNotice[i], r.firstCNP[i])
		}
	}
	for i := 4; i < 8; i++ {
		if n := biccOf(&r.n.QPs[i]).DCINotices; n != 0 || r.firstCNP[i] == sim.Never {
			t.Errorf("intra-DC flow %d through DCI B: %d notices (want 0), first CNP %v (want one)", i, n, r.firstCNP[i])
		}
	}
	if a.Notices != 0 || b.Notices == 0 || b.ReceiverSide != b.Notices {
		t.Errorf("DCI A %d notices (want 0), DCI B %d (receiver side %d)", a.Notices, b.Notices, b.ReceiverSide)
	}
}

// The VOQs choose the flows (I6): six hosts of DC A send to one host of DC
// B (one VOQ by destination) and a seventh, on a 10 Gb/s link, to another
// host; DCI A's long-haul port receives 610 Gb/s. The light flow's VOQ never
// holds the mean backlog, so it gets no notice while the six do; with a
// single VOQ (voqs: 1) every flow is a culprit and the light flow is
// notified too.
func TestBiCCScenarioVOQIsolation(t *testing.T) {
	c := newCrossDC(2, 4, 400e9, 400e9, sim.Millisecond, map[int]int64{7: 10e9})
	var flows []workload.Flow
	for i := range 6 {
		flows = append(flows, workload.Flow{Src: i, Dst: c.hosts, SizeBytes: 4_000_000, Prio: 3})
	}
	flows = append(flows, workload.Flow{Src: 7, Dst: c.hosts + 4, SizeBytes: 1_000_000, Prio: 3})
	for _, voqs := range []int{128, 1} {
		p := cc.BiCCDefaults()
		p.VOQs = voqs
		r := runCross(t, c, flows, "bicc", p)
		var heavy int64
		for i := range 6 {
			n := biccOf(&r.n.QPs[i]).DCINotices
			if n == 0 {
				t.Errorf("voqs %d: heavy flow %d got no notice", voqs, i)
			}
			heavy += n
		}
		light := biccOf(&r.n.QPs[6]).DCINotices
		t.Logf("voqs %d: heavy flows %d notices, light flow %d; DCI queue peak %.3f MB", voqs, heavy, light, float64(r.peak)/1e6)
		if (voqs == 128) != (light == 0) {
			t.Errorf("voqs %d: the light flow got %d notices", voqs, light)
		}
	}
}

// Nothing happens at other switches: four hosts of DC A send to one host
// of DC B, so only DC B's ToR port to that host is congested (the DCI
// ports carry 400 Gb/s into 400 Gb/s). BiCC sends no notice and its run is
// DCQCN's exactly.
func TestBiCCScenarioToRCongestionIsDCQCN(t *testing.T) {
	c := newCrossDC(2, 4, 400e9, 400e9, sim.Millisecond, nil)
	var flows []workload.Flow
	for i := range 4 {
		flows = append(flows, workload.Flow{Src: i, Dst: c.hosts, SizeBytes: 5_000_000, Prio: 3})
	}
	bi := runCross(t, c, flows, "bicc", nil)
	dq := runCross(t, c, flows, "dcqcn", nil)
	tor := &bi.n.Nodes[c.torB]
	t.Logf("ToR B0 port to the receiver: peak %.3f MB; DCI A long haul peak %d B; events %d / %d",
		float64(bi.n.Ports[tor.FirstPort].Stats.MaxQueueBytes)/1e6, bi.peak, bi.n.Stats.Events, dq.n.Stats.Events)
	if bi.n.Stats.Notices != 0 || bi.n.Stats.Events != dq.n.Stats.Events || bi.peak != dq.peak {
		t.Errorf("bicc: %d notices, events %d (dcqcn %d), DCI peak %d (dcqcn %d)", bi.n.Stats.Notices, bi.n.Stats.Events, dq.n.Stats.Events, bi.peak, dq.peak)
	}
	for i := range flows {
		if bi.n.QPs[i].Finish != dq.n.QPs[i].Finish || bi.n.QPs[i].CNPs != dq.n.QPs[i].CNPs || bi.n.QPs[i].CNPs == 0 {
			t.Errorf("flow %d: bicc finishes %v with %d CNPs, dcqcn %v with %d", i, bi.n.QPs[i].Finish, bi.n.QPs[i].CNPs, dq.n.QPs[i].Finish, dq.n.QPs[i].CNPs)
		}
	}
}

// The DCI hooks and the notices allocate nothing per packet: the
// long-haul scenario with 10× larger flows (10× the packets, several
// times the notices) allocates no more objects.
func TestBiCCSteadyStateAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	c := newCrossDC(2, 4, 400e9, 400e9, sim.Millisecond, nil)
	var notices []int64
	count := func(size int64) float64 {
		var flows []workload.Flow
		for i := range c.hosts {
			flows = append(flows, workload.Flow{Src: i, Dst: c.hosts + i, SizeBytes: size, Prio: 3})
		}
		return testing.AllocsPerRun(1, func() {
			n, _ := buildAlg(t, c.g, crossDCConfig(), flows, "bicc", nil, nil)
			n.Run()
			notices = append(notices, n.Stats.Notices)
		})
	}
	small, large := count(2_000_000), count(20_000_000)
	t.Logf("allocations: %v (8 × 2 MB), %v (8 × 20 MB); notices per run %v", small, large, notices)
	if large > small*1.1+50 || notices[len(notices)-1] < 2*notices[0] {
		t.Fatalf("allocations grow with packets: %v for 8 × 2 MB, %v for 8 × 20 MB (notices %v)", small, large, notices)
	}
}
