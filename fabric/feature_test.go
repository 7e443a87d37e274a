package fabric

import (
	"testing"

	"github.com/ccsim/ccsim/sim"
	"github.com/ccsim/ccsim/topo"
)

// viewProbe is a switch feature that checks the view's per-port readings
// against the network at every hook, marks every data packet CE at
// enqueue and sends one notice of each kind for the first data packet.
type viewProbe struct {
	t                 *testing.T
	n                 *Network
	enq, deq, periods int
	noticed           bool
}

func (v *viewProbe) check(sw *SwitchView, e int) {
	n := v.n
	nd := &n.Nodes[sw.ID()]
	if e < 0 || e >= sw.NumPorts() || sw.NumPorts() != int(nd.NumPorts) {
		v.t.Fatalf("local port %d of %d (node has %d)", e, sw.NumPorts(), nd.NumPorts)
	}
	pt := nd.FirstPort + int32(e)
	p := &n.Ports[pt]
	if sw.QueueBytes(e) != p.QueueBytes() || sw.LineRate(e) != p.Bps || sw.LinkDelay(e) != p.Delay ||
		sw.PFCThreshold(e) != n.PFCThreshold(pt) || sw.PauseSent(e) != p.Stats.PauseSent || sw.PauseRx(e) != p.Stats.PauseRx {
		v.t.Fatalf("view of port %d disagrees with the network", pt)
	}
}

func (v *viewProbe) OnEnqueue(sw *SwitchView, in, out int, p *Packet, now sim.Time) {
	v.check(sw, in)
	v.check(sw, out)
	if p.Kind != KindData {
		return
	}
	v.enq++
	sw.MarkCE(out, p)
	if !v.noticed {
		v.noticed = true
		sw.SendNotice(p.QP, 42, 64)
		sw.SendNoticeArgs(p.QP, NoticeArgs{1, 2, 3, 4}, 64)
	}
}

func (v *viewProbe) OnDequeue(sw *SwitchView, out int, p *Packet, now sim.Time) {
	v.check(sw, out)
	v.deq++
}

func (v *viewProbe) OnPeriod(sw *SwitchView, now sim.Time) {
	for e := range sw.NumPorts() {
		v.check(sw, e)
	}
	v.periods++
}

// noticeRec records the notices and CE echoes a sender gets.
type noticeRec struct {
	noCC
	notices []Notice
	ce      int
}

func (r *noticeRec) OnNotice(q *QP, nt *Notice, now sim.Time) { r.notices = append(r.notices, *nt) }
func (r *noticeRec) OnAck(q *QP, a *AckInfo, now sim.Time) {
	if a.CNP {
		r.ce++
	}
}

// The switch view reads what the network holds, by local port; its
// actions mark (and count) CE, and send notices that reach the sender.
func TestSwitchView(t *testing.T) {
	g := topo.Star(3, 100e9, sim.Microsecond)
	g.Domains = []uint16{1, 1, 2, 1}
	g.Roles = []string{"", "", "", "tor"}
	cfg := DefaultConfig()
	cfg.Seed = 7
	cfg.BufferBytes = 1 << 20 // a small buffer: PFC pauses to read
	rec := &noticeRec{}
	// two senders into one port: a queue, PFC state and pauses to read
	n := buildNet(t, g, cfg, incastFlows(2, 2, 2_000_000, 0), func(*QP) Algorithm { return rec })
	n.SetRequirements(Requirements{OwnECN: true}) // only the probe marks
	const sw = 3
	v := n.SwitchView(sw)
	rtt, _ := g.MaxRTT(cfg.PayloadBytes)
	if v.ID() != sw || v.NumPorts() != 3 || v.Domain() != 1 || v.NodeDomain(2) != 2 || !v.HasDomains() || v.Role() != "tor" ||
		v.NumFlows() != 2 || v.PayloadBytes() != 1000 || v.MaxBaseRTT() != rtt || v.Seed() != 7 {
		t.Fatalf("view of switch %d: id %d ports %d domain %d/%d roles %q flows %d payload %d rtt %v seed %d", sw,
			v.ID(), v.NumPorts(), v.Domain(), v.NodeDomain(2), v.Role(), v.NumFlows(), v.PayloadBytes(), v.MaxBaseRTT(), v.Seed())
	}
	probe := &viewProbe{t: t, n: n}
	n.AddFeature(sw, probe)
	n.SetFeaturePeriod(10 * sim.Microsecond)
	n.Run()
	checkAllDone(t, n)
	out := n.Ports[n.Nodes[sw].FirstPort+2]
	if probe.enq != 4000 || probe.deq < probe.enq || probe.periods == 0 {
		t.Fatalf("hooks: %d data enqueues, %d dequeues, %d periods", probe.enq, probe.deq, probe.periods)
	}
	if out.Stats.Marked != 4000 || rec.ce != 4000 {
		t.Errorf("marked %d, CE echoed %d; want every data packet (4000)", out.Stats.Marked, rec.ce)
	}
	if n.Stats.Notices != 2 || len(rec.notices) != 2 {
		t.Fatalf("%d notices sent, %d received; want 2", n.Stats.Notices, len(rec.notices))
	}
	a, b := rec.notices[0], rec.notices[1]
	if a.Kind != KindNotice || a.From != sw || a.Arg != 42 || b.Args != (NoticeArgs{1, 2, 3, 4}) || b.Arg != 1 {
		t.Errorf("notices %+v, %+v", a, b)
	}
	if n.Stats.PauseFrames == 0 {
		t.Error("no pause frames: the pause counters were only compared at zero")
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("SwitchView of a host did not panic")
			}
		}()
		n.SwitchView(0)
	}()
}

// inPortProbe checks SwitchView.InPort: at enqueue it is the hook's in; at
// dequeue it is still the port the packet entered on (per packet, the
// enqueue's in).
type inPortProbe struct {
	t        *testing.T
	in       map[[2]int64]int
	deq, bad int
}

func (v *inPortProbe) OnEnqueue(sw *SwitchView, in, out int, p *Packet, now sim.Time) {
	if sw.InPort(p) != in {
		v.t.Fatalf("enqueue: InPort %d, hook's in %d", sw.InPort(p), in)
	}
	v.in[[2]int64{int64(p.Kind)<<32 | int64(p.QP), p.Seq}] = in
}

func (v *inPortProbe) OnDequeue(sw *SwitchView, out int, p *Packet, now sim.Time) {
	v.deq++
	want, ok := v.in[[2]int64{int64(p.Kind)<<32 | int64(p.QP), p.Seq}]
	if !ok || sw.InPort(p) != want {
		v.bad++
	}
	// data enters from its sender's port (hosts 0 and 1 on ports 0 and
	// 1), ACKs from the receiver's (port 2)
	if p.Kind == KindData && sw.InPort(p) != int(p.Src) || p.Kind == KindAck && sw.InPort(p) != 2 {
		v.t.Fatalf("dequeue of %v from %d: InPort %d", p.Kind, p.Src, sw.InPort(p))
	}
}

func (v *inPortProbe) OnPeriod(sw *SwitchView, now sim.Time) {}

// InPort names a packet's ingress at enqueue and again at dequeue.
func TestSwitchViewInPort(t *testing.T) {
	g := topo.Star(3, 100e9, sim.Microsecond)
	cfg := DefaultConfig()
	n := buildNet(t, g, cfg, incastFlows(2, 2, 200_000, 0), func(*QP) Algorithm { return &noticeRec{} })
	probe := &inPortProbe{t: t, in: map[[2]int64]int{}}
	n.AddFeature(3, probe)
	n.Run()
	checkAllDone(t, n)
	if probe.deq < 400 || probe.bad != 0 {
		t.Errorf("%d dequeues, %d with an InPort other than at enqueue", probe.deq, probe.bad)
	}
}
