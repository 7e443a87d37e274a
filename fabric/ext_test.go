package fabric

import (
	"strings"
	"testing"

	"github.com/ccsim/ccsim/sim"
	"github.com/ccsim/ccsim/topo"
	"github.com/ccsim/ccsim/workload"
)

func TestExtSpecValidate(t *testing.T) {
	ok := []ExtSpec{{}, {Words: 4, DataBytes: 12, AckBytes: 12, Echo: 15, RecvDomain: 1, SwitchWrites: 4}, {DataBytes: 8}}
	for _, s := range ok {
		if err := s.Validate(); err != nil {
			t.Errorf("%+v: %v", s, err)
		}
	}
	for _, c := range []struct {
		s    ExtSpec
		want string
	}{
		{ExtSpec{Words: 5}, "words out of range"},
		{ExtSpec{Words: -1}, "words out of range"},
		{ExtSpec{Words: 1, DataBytes: -1}, "bytes out of range"},
		{ExtSpec{Words: 1, AckBytes: 9001}, "bytes out of range"},
		{ExtSpec{Words: 2, Echo: 4}, "beyond its 2 words"},
		{ExtSpec{Words: 2, RecvDomain: 8}, "beyond its 2 words"},
		{ExtSpec{SwitchWrites: 1}, "beyond its 0 words"},
	} {
		if err := c.s.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.s, err, c.want)
		}
	}
}

// SetRequirements refuses an invalid declaration (a programming error).
func TestSetRequirementsPanicsOnBadExt(t *testing.T) {
	n := buildNet(t, extLine(), DefaultConfig(), []workload.Flow{{Src: 0, Dst: 1, Prio: 3, SizeBytes: 1000}}, noCCCtor)
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "header extension") {
			t.Fatalf("recovered %v, want a header extension panic", r)
		}
	}()
	n.SetRequirements(Requirements{Ext: ExtSpec{Words: 1, Echo: 2}})
}

// extLine is host 0 (domain 1) – switch 2 (domain 1) – host 1 (domain 2),
// 100 Gb/s, 1 µs links.
func extLine() *topo.Graph {
	return &topo.Graph{
		Kinds:   []topo.NodeKind{topo.Host, topo.Host, topo.Switch},
		Links:   []topo.Link{{A: 0, B: 2, Bps: 100e9, Delay: sim.Microsecond}, {A: 2, B: 1, Bps: 100e9, Delay: sim.Microsecond}},
		Domains: []uint16{1, 2, 1},
		Roles:   []string{"host", "host", "tor"},
	}
}

// extSender stamps fixed extension values and records the ACKs'.
type extSender struct {
	noCC
	stamp Ext
	acks  []Ext
}

func (s *extSender) Start(q *QP, now sim.Time) {
	if q.Ext != (Ext{}) {
		panic("QP.Ext not zero at the algorithm's start")
	}
	q.Ext = s.stamp
}
func (s *extSender) OnAck(q *QP, a *AckInfo, now sim.Time) { s.acks = append(s.acks, a.Ext) }

// extRewriter lowers value k of data packets to at most cap at dequeue and
// records what it read.
type extRewriter struct {
	k    int
	cap  uint32
	seen []Ext
}

func (r *extRewriter) OnEnqueue(sw *SwitchView, in, out int, p *Packet, now sim.Time) {}
func (r *extRewriter) OnDequeue(sw *SwitchView, out int, p *Packet, now sim.Time) {
	if p.Kind != KindData {
		return
	}
	x := sw.Ext(p)
	r.seen = append(r.seen, x)
	if x[r.k] > r.cap {
		sw.SetExt(p, r.k, r.cap)
	}
}
func (r *extRewriter) OnPeriod(sw *SwitchView, now sim.Time) {}

// A declared extension travels as declared: the sender's values on every
// data packet, a switch's rewrite of a writable value, the receiver's echo
// (echoed values kept, its own domain in the domain value, the rest zero),
// and the declared wire bytes on data and ACKs.
func TestExtEndToEnd(t *testing.T) {
	spec := ExtSpec{Words: 3, DataBytes: 12, AckBytes: 20, Echo: 0b011, RecvDomain: 0b100, SwitchWrites: 0b010}
	snd := &extSender{stamp: Ext{7, 1000, 5, 99}}
	n := buildNet(t, extLine(), DefaultConfig(), []workload.Flow{{Src: 0, Dst: 1, Prio: 3, SizeBytes: 10_000}},
		func(*QP) Algorithm { return snd })
	n.SetRequirements(Requirements{Ext: spec})
	rw := &extRewriter{k: 1, cap: 400}
	n.AddFeature(2, rw)
	n.Run()
	q := &n.QPs[0]
	if !q.Done || len(snd.acks) != 10 || len(rw.seen) != 10 {
		t.Fatalf("done %v, %d ACKs, %d data packets seen at the switch; want 10 each", q.Done, len(snd.acks), len(rw.seen))
	}
	for i, x := range rw.seen {
		if x != snd.stamp {
			t.Fatalf("data packet %d carries %v at the switch, want the sender's %v", i, x, snd.stamp)
		}
	}
	// value 0 echoed, value 1 echoed as rewritten, value 2 = the receiver's
	// domain (2), value 3 not declared: zero
	for i, a := range snd.acks {
		if a != (Ext{7, 400, 2, 0}) {
			t.Fatalf("ACK %d carries %v, want [7 400 2 0]", i, a)
		}
	}
	if q.dataHdr != DataHeaderBytes+12 || q.ackSize != AckHeaderBytes+20 {
		t.Errorf("data header %d B, ACK %d B; want %d and %d", q.dataHdr, q.ackSize, DataHeaderBytes+12, AckHeaderBytes+20)
	}
	// 10 data packets of 1060 B and 10 ACKs of 66 B crossed the switch
	sw := n.Nodes[2]
	toRcv, toSnd := n.Ports[sw.FirstPort+1].Stats.TxBytes, n.Ports[sw.FirstPort].Stats.TxBytes
	if toRcv != 10*1060 || toSnd != 10*66 {
		t.Errorf("switch sent %d B to the receiver and %d B to the sender, want %d and %d", toRcv, toSnd, 10*1060, 10*66)
	}
}

// Without a declared extension nothing is carried: the sender's QP.Ext is
// ignored, switches read zeros, ACKs carry zeros and sizes are unchanged.
func TestExtOff(t *testing.T) {
	snd := &extSender{stamp: Ext{7, 1000, 5, 99}}
	n := buildNet(t, extLine(), DefaultConfig(), []workload.Flow{{Src: 0, Dst: 1, Prio: 3, SizeBytes: 3000}},
		func(*QP) Algorithm { return snd })
	rw := &extRewriter{k: 1, cap: 1 << 31}
	n.AddFeature(2, rw)
	n.Run()
	if n.ext != nil || len(snd.acks) != 3 || len(rw.seen) != 3 {
		t.Fatalf("side array %v, %d ACKs, %d packets seen", n.ext != nil, len(snd.acks), len(rw.seen))
	}
	for i := range 3 {
		if rw.seen[i] != (Ext{}) || snd.acks[i] != (Ext{}) {
			t.Fatalf("packet %d: switch read %v, ACK carried %v; want zeros", i, rw.seen[i], snd.acks[i])
		}
	}
	if q := &n.QPs[0]; q.dataHdr != DataHeaderBytes || q.ackSize != AckBytes {
		t.Errorf("data header %d B, ACK %d B", q.dataHdr, q.ackSize)
	}
}

// An extension declared after packets were allocated covers them too
// (the side array grows to the pool).
func TestExtDeclaredLate(t *testing.T) {
	n := buildNet(t, extLine(), DefaultConfig(), nil, noCCCtor)
	for range 5 {
		n.alloc()
	}
	n.SetRequirements(Requirements{Ext: ExtSpec{Words: 1, Echo: 1}})
	if len(n.ext) != len(n.pkts) {
		t.Fatalf("side array of %d for %d packets", len(n.ext), len(n.pkts))
	}
	n.alloc()
	if len(n.ext) != len(n.pkts) || len(n.pkts) != 6 {
		t.Fatalf("side array of %d for %d packets", len(n.ext), len(n.pkts))
	}
}
