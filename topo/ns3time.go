package topo

import (
	"math"
	"math/bits"
)

// NS3Seconds converts x seconds to integer nanoseconds exactly as the
// reference's ns-3 Seconds(double) does (docs/reference-simulator.md §0.1): x is turned into 64.64
// fixed point (integer part floor(x), fraction truncated to 64 bits), then
// multiplied by 10^9 and truncated. When x·10^9 is mathematically an integer
// n the result is usually n−1 (1000 B at 100 Gb/s: 79, not 80). Defined for
// 0 <= x < 9.2e9.
func NS3Seconds(x float64) int64 {
	hi := math.Floor(x)
	lo := uint64((x - hi) * 0x1p64)
	h, _ := bits.Mul64(lo, 1e9)
	return int64(hi)*1e9 + int64(h)
}

// NS3TxTimeNs returns the reference's serialization time of bytes at bps in
// ns: NS3Seconds(float64(bytes)*8/float64(bps)) (docs/reference-simulator.md
// §0.1). It returns 0 if
// bytes <= 0 or bps <= 0.
func NS3TxTimeNs(bytes int, bps int64) int64 {
	if bytes <= 0 || bps <= 0 {
		return 0
	}
	return NS3Seconds(float64(bytes) * 8 / float64(bps))
}
