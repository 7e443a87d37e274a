package fabric

import "math/bits"

// Position bitsets of a host's active QPs (docs/reference-simulator.md §2.3,
// the NIC's round-robin over its QPs in creation order). Node.qps lists the
// host's active QPs, with the dead slots of finished ones until the next
// compaction (below); bit j of Node.openBits is set when QPs[qps[j]] is open
// and bit j of Node.dataBits when it has data left to send (SndNxt <
// SizeBytes; open or window-bound). The NIC's scans visit only set bits, so
// a host with hundreds of active QPs, most of them waiting for ACKs, costs
// a few word operations per packet instead of a pass over every QP; the
// order of the visits, and so every choice, is that of the plain scan.

// setBit sets or clears bit j of b.
func setBit(b []uint64, j int32, on bool) {
	if on {
		b[j>>6] |= 1 << (uint(j) & 63)
	} else {
		b[j>>6] &^= 1 << (uint(j) & 63)
	}
}

// nextSet returns the first set bit of b at a position in [from, to), or
// −1.
func nextSet(b []uint64, from, to int) int {
	if from >= to {
		return -1
	}
	w := from >> 6
	x := b[w] &^ (1<<(uint(from)&63) - 1)
	for {
		if x != 0 {
			if j := w<<6 + bits.TrailingZeros64(x); j < to {
				return j
			}
			return -1
		}
		w++
		if w<<6 >= to {
			return -1
		}
		x = b[w]
	}
}

// A finished QP's slot is not removed at once: closing the gap moved
// every later QP's position (QP.hpos) — a pass over the host's active QPs
// at every finish, a third of the run time of a workload with thousands
// of active QPs per host (paper 002's Google RPC cross-DC runs). The slot
// becomes dead (−1, its bits already clear, so the scans skip it) and the
// list is compacted when dead slots outnumber live ones: amortised O(1)
// per finish, and the order of the live QPs never changes.
//
// The NIC's round robin (hostSend) resumes after the slot rrLast. With
// the plain list it resumed after dense position d; the slot form keeps
// the invariant "rrLast lies in [slot of live QP d, slot of live QP d+1)",
// so that both visit the same QPs in the same order. The plain list's
// removal rule — d−1 when the removed position k ≤ d and d > 0, else d —
// needs no change of rrLast except in one case: k was the first live QP,
// d was 0 and stays 0, now naming the next live QP; rrLast moves to it.

// removeQP retires slot k of host nd's QP list.
func (n *Network) removeQP(nd *Node, k int) {
	nd.qps[k] = -1
	nd.dead++
	live := len(nd.qps) - nd.dead
	if live == 0 { // empty: back to the initial state
		nd.qps, nd.dead, nd.rrLast, nd.firstLive = nd.qps[:0], 0, 0, 0
		return
	}
	if k == nd.firstLive {
		nl := k + 1
		for nd.qps[nl] < 0 {
			nl++
		}
		if k <= nd.rrLast && nd.rrLast < nl {
			nd.rrLast = nl // d = 0 stays 0: the next live QP
		}
		nd.firstLive = nl
	}
	if nd.dead >= 32 && nd.dead > live {
		n.compactQPs(nd)
	}
}

// compactQPs drops host nd's dead slots, keeping the live QPs' order,
// their positions, bits and the round robin's place (rrLast becomes the
// dense position of the last live QP at or before its slot).
func (n *Network) compactQPs(nd *Node) {
	w, rr := 0, 0
	clear(nd.openBits)
	clear(nd.dataBits)
	for j, qi := range nd.qps {
		if qi < 0 {
			continue
		}
		if j <= nd.rrLast {
			rr = w
		}
		q := &n.QPs[qi]
		nd.qps[w], q.hpos = qi, int32(w)
		setBit(nd.openBits, q.hpos, q.open)
		setBit(nd.dataBits, q.hpos, q.hasData)
		w++
	}
	nd.qps, nd.dead, nd.rrLast, nd.firstLive = nd.qps[:w], 0, rr, 0
}

// growBits makes b hold at least m positions.
func growBits(b []uint64, m int) []uint64 {
	for len(b)<<6 < m {
		b = append(b, 0)
	}
	return b
}
