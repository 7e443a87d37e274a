package fabric

import "math/bits"

// Position bitsets of a host's active QPs (docs/reference-simulator.md §2.3,
// the NIC's round-robin over its QPs in creation order). Node.qps lists the
// host's active QPs; bit j of Node.openBits is set when QPs[qps[j]] is open
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

// removeBit deletes position k of a bitset holding m positions: the bits
// above k move down by one, position m−1 becomes clear.
func removeBit(b []uint64, k, m int) {
	w := k >> 6
	last := (m - 1) >> 6
	mask := uint64(1)<<(uint(k)&63) - 1
	b[w] = b[w]&mask | (b[w]>>1)&^mask
	for ; w < last; w++ {
		b[w] |= (b[w+1] & 1) << 63
		b[w+1] >>= 1
	}
}

// growBits makes b hold at least m positions.
func growBits(b []uint64, m int) []uint64 {
	for len(b)<<6 < m {
		b = append(b, 0)
	}
	return b
}
