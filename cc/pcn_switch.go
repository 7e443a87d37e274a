package cc

import (
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/sim"
)

// PCN's switch part (docs/algorithms/pcn.md): NP-ECN marking at dequeue.

// pcnSwitch is NP-ECN at one switch.
type pcnSwitch struct {
	threshold int64
	npECN     bool
	lastPause []int64 // per egress port: PauseRx seen at the last dequeue
	skip      []int64 // per egress port: pause backlog still to leave unmarked
}

// newPCNSwitch returns PCN's feature at switch sw.
func newPCNSwitch(p *PCNParams, sw *fabric.SwitchView) *pcnSwitch {
	np := sw.NumPorts()
	return &pcnSwitch{threshold: p.ECNThreshold, npECN: p.NPECN, lastPause: make([]int64, np), skip: make([]int64, np)}
}

// OnEnqueue is unused: NP-ECN marks at dequeue.
func (s *pcnSwitch) OnEnqueue(sw *fabric.SwitchView, in, out int, p *fabric.Packet, now sim.Time) {}

// OnDequeue marks a departing data packet when the port's queue exceeds the
// threshold, except while the backlog found at the end of a pause leaves.
// Hooks run only for packets of the paused-able classes (not class 0), so
// a class's dequeue after a PAUSE frame happens after its resume; the
// first such dequeue fixes the backlog.
func (s *pcnSwitch) OnDequeue(sw *fabric.SwitchView, i int, p *fabric.Packet, now sim.Time) {
	if rx := sw.PauseRx(i); rx != s.lastPause[i] && s.npECN {
		s.lastPause[i] = rx
		s.skip[i] = sw.QueueBytes(i) + int64(p.Size)
	}
	if s.skip[i] > 0 {
		s.skip[i] -= int64(p.Size)
		return
	}
	if p.Kind == fabric.KindData && sw.QueueBytes(i) > s.threshold {
		p.Mark |= PCNMark
	}
}

// OnPeriod is unused.
func (s *pcnSwitch) OnPeriod(sw *fabric.SwitchView, now sim.Time) {}
