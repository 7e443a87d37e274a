//go:build ccsimdebug

package fabric

import (
	"fmt"
	"unsafe"
)

const debugChecks = true

// checkOpen panics if the cached QP.open differs from its definition.
func (n *Network) checkOpen(q *QP) {
	if o := q.active && q.SndNxt < q.SizeBytes && !q.winBound(); o != q.open {
		panic(fmt.Sprintf("QP %d at %v: open %v, recomputed %v (SndNxt %d SndUna %d size %d window %d)", q.ID, n.now, q.open, o, q.SndNxt, q.SndUna, q.SizeBytes, q.Window()))
	}
}

// checkBits panics if host h's QP list, positions and bitsets disagree
// with the QPs' state.
func (n *Network) checkBits(h int32) {
	nd := &n.Nodes[h]
	dead, first := 0, -1
	for j, qi := range nd.qps {
		if qi < 0 {
			dead++
			if nd.openBits[j>>6]>>(uint(j)&63)&1 == 1 || nd.dataBits[j>>6]>>(uint(j)&63)&1 == 1 {
				panic(fmt.Sprintf("host %d: dead slot %d has a bit set", h, j))
			}
			continue
		}
		if first < 0 {
			first = j
		}
		q := &n.QPs[qi]
		n.checkOpen(q)
		if int(q.hpos) != j {
			panic(fmt.Sprintf("host %d: QP %d at position %d has hpos %d", h, qi, j, q.hpos))
		}
		o := nd.openBits[j>>6]>>(uint(j)&63)&1 == 1
		d := nd.dataBits[j>>6]>>(uint(j)&63)&1 == 1
		if o != q.open || d != (q.active && q.SndNxt < q.SizeBytes) || d != q.hasData {
			panic(fmt.Sprintf("host %d: QP %d at %d: bits open %v data %v, QP open %v hasData %v SndNxt %d size %d", h, qi, j, o, d, q.open, q.hasData, q.SndNxt, q.SizeBytes))
		}
	}
	if dead != nd.dead || (first >= 0 && first != nd.firstLive) || (len(nd.qps) > 0 && nd.rrLast >= len(nd.qps)) {
		panic(fmt.Sprintf("host %d: %d dead slots (counted %d), first live %d (kept %d), rrLast %d of %d slots", h, dead, nd.dead, first, nd.firstLive, nd.rrLast, len(nd.qps)))
	}
	for j := len(nd.qps); j < len(nd.openBits)<<6; j++ {
		if nd.openBits[j>>6]>>(uint(j)&63)&1 == 1 || nd.dataBits[j>>6]>>(uint(j)&63)&1 == 1 {
			panic(fmt.Sprintf("host %d: bit %d set beyond its %d QPs", h, j, len(nd.qps)))
		}
	}
}

// checkPoolPacket panics if p does not point at a packet of the pool (a
// switch feature reading the extension of a packet it made up).
func (n *Network) checkPoolPacket(p *Packet) {
	size := unsafe.Sizeof(Packet{})
	if len(n.pkts) == 0 {
		panic("fabric: extension of a packet outside the pool (empty pool)")
	}
	off := uintptr(unsafe.Pointer(p)) - uintptr(unsafe.Pointer(&n.pkts[0]))
	if off%size != 0 || off/size >= uintptr(len(n.pkts)) {
		panic(fmt.Sprintf("fabric: extension of a packet outside the pool (offset %d, %d packets)", off, len(n.pkts)))
	}
}

// checkExtWrite panics unless the algorithm declared extension value k
// writable by switches (ExtSpec.SwitchWrites).
func (n *Network) checkExtWrite(k int) {
	s := &n.req.Ext
	if k < 0 || k >= s.Words || s.SwitchWrites&(1<<k) == 0 {
		panic(fmt.Sprintf("fabric: a switch feature writes extension value %d; the algorithm declares %d words, switch-writable mask %#x", k, s.Words, s.SwitchWrites))
	}
}
