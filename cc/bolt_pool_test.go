package cc_test

import (
	"testing"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/sim"
	"github.com/ccsim/ccsim/topo"
	"github.com/ccsim/ccsim/workload"
)

// boltMarkWatch records the flags the receiver echoed on each ACK.
type boltMarkWatch struct {
	fabric.Algorithm
	marks *[]uint8
}

func (w *boltMarkWatch) OnAck(q *fabric.QP, a *fabric.AckInfo, now sim.Time) {
	if !a.Nack {
		*w.marks = append(*w.marks, a.Mark)
	}
	w.Algorithm.OnAck(q, a, now)
}

// The switch must flag a packet DEC (and clear INC) before it sends the
// SRC, not after (docs/algorithms/bolt.md §5, docs/fabric.md §3): sending
// the notice allocates a packet, which moves the packet pool when it is
// full, and a write through the old pointer is lost. A single one-packet
// flow makes the pool full when the packet reaches the switch (one slot,
// one packet); with cc_thresh_pkts 0 the switch sends an SRC for it, so
// the receiver must see, and echo, the DEC flag.
func TestBoltDecFlagSurvivesSRC(t *testing.T) {
	spec, err := cc.Lookup("bolt")
	if err != nil {
		t.Fatal(err)
	}
	p := cc.BoltDefaults()
	p.CCThresh = 0
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	n, err := fabric.New(topo.Star(3, 100e9, boUs), fabric.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	ctor, req := spec.New(p)
	n.SetRequirements(req)
	if err := n.AddFlows([]workload.Flow{{Src: 0, Dst: 1, Prio: 3, SizeBytes: 1000}}, nil); err != nil {
		t.Fatal(err)
	}
	mk, _ := spec.Switch(p)
	n.AddFeature(3, mk(n.SwitchView(3)))
	var marks []uint8
	var alg *cc.Bolt
	n.SetAlgorithm(func(q *fabric.QP) fabric.Algorithm {
		a := ctor(q)
		alg = a.(*cc.Bolt)
		return &boltMarkWatch{Algorithm: a, marks: &marks}
	})
	n.SetStop(sim.Millisecond)
	n.Run()
	if alg == nil || n.Stats.Notices != 1 || alg.SRCs != 1 {
		t.Fatalf("notices %d (want 1), sender %v; want one SRC for the one packet", n.Stats.Notices, alg)
	}
	if len(marks) != 1 || marks[0] != cc.BoltFirst|cc.BoltLast|cc.BoltDec {
		t.Errorf("echoed flags %#x, want FIRST|LAST|DEC (%#x): the DEC flag was lost", marks, cc.BoltFirst|cc.BoltLast|cc.BoltDec)
	}
}
