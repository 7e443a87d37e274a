package cc

import (
	"math"

	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/sim"
)

// Bolt's switch part (docs/algorithms/bolt.md): SRC notices, PRU and SM
// tokens per egress port.

// boltSwitch is Bolt's switch logic at one switch: SRC generation, PRU and
// SM tokens per egress port.
type boltSwitch struct {
	p        *BoltParams
	wire     int64   // wire bytes of a full data packet
	ccThresh int64   // bytes
	smCap    float64 // bytes
	pru      []int32
	sm       []float64
	smLast   []sim.Time
}

// newBoltSwitch returns Bolt's feature at switch sw.
func newBoltSwitch(p *BoltParams, sw *fabric.SwitchView) *boltSwitch {
	np := sw.NumPorts()
	wire := int64(sw.PayloadBytes()) + fabric.DataHeaderBytes
	s := &boltSwitch{p: p, wire: wire,
		ccThresh: int64(p.CCThresh * float64(wire)), smCap: p.SMCap * float64(wire),
		pru: make([]int32, np), sm: make([]float64, np), smLast: make([]sim.Time, np)}
	for i := range s.sm {
		s.sm[i] = s.smCap
	}
	return s
}

// OnEnqueue runs the switch algorithm for a packet that has just joined
// egress port i's queue.
func (s *boltSwitch) OnEnqueue(sw *fabric.SwitchView, in, i int, p *fabric.Packet, now sim.Time) {
	if s.p.SM {
		// supply: what the link could carry since the last arrival, less
		// what arrived
		s.sm[i] += float64(sw.LineRate(i))*float64(now-s.smLast[i])/float64(8*sim.Second) - float64(p.Size)
		s.sm[i] = math.Min(s.sm[i], s.smCap)
		s.smLast[i] = now
	}
	if p.Kind != fabric.KindData {
		return
	}
	if q := sw.QueueBytes(i) - int64(p.Size); q >= s.ccThresh {
		// flags first: sending the notice may move the packet pool, after
		// which p points at a stale copy (docs/fabric.md §3; the authors'
		// switch also flags the packet before it notifies the sender)
		send := p.Mark&BoltDec == 0
		qp, arg := p.QP, BoltSRC{QueueBytes: q, LinkBps: sw.LineRate(i), TxTime: p.TS}.Arg()
		p.Mark = p.Mark&^BoltInc | BoltDec
		if send {
			sw.SendNotice(qp, arg, BoltSRCBytes)
		}
		return
	}
	if s.p.PRU && p.Mark&BoltLast != 0 {
		// this packet's ACK will not clock out a new one: capacity frees up
		if p.Mark&BoltFirst == 0 && s.pru[i] < int32(s.p.MaxPRUTokens) {
			s.pru[i]++
		}
		return
	}
	if p.Mark&BoltInc != 0 {
		switch {
		case s.p.PRU && s.pru[i] > 0:
			s.pru[i]--
		case s.p.SM && s.sm[i] >= float64(s.wire):
			s.sm[i] -= float64(s.wire)
		default:
			p.Mark &^= BoltInc
		}
	}
}

// OnDequeue is unused: Bolt decides at enqueue.
func (s *boltSwitch) OnDequeue(sw *fabric.SwitchView, out int, p *fabric.Packet, now sim.Time) {}

// OnPeriod is unused.
func (s *boltSwitch) OnPeriod(sw *fabric.SwitchView, now sim.Time) {}
