package gbdt

import (
	"container/heap"
	"math"
	"slices"
)

// Borders returns at most maxBorders ascending float32 borders for a feature
// whose training values are values (docs/gbdt.md §1). A value x falls in bin
// k, the number of borders b with x > b, so borders cut between distinct
// values and never separate equal ones.
//
// With at most maxBorders+1 distinct values every gap between neighbours
// gets a border. Otherwise the borders follow CatBoost's default rule,
// GreedyLogSum: starting from one bin holding every value, repeatedly split
// the bin whose best cut most increases Σ log(bin size), cutting each bin as
// near its middle (by count) as ties allow, until maxBorders cuts are made.
// That spreads the rows evenly over the bins where it can (like quantiles)
// while keeping a heavily repeated value in a bin of its own. The border
// between neighbouring distinct values a < b is their midpoint rounded to
// float32, or a when the midpoint rounds up to b. values must hold no NaN.
func Borders(values []float32, maxBorders int) []float32 {
	if maxBorders < 1 || len(values) == 0 {
		return nil
	}
	v := slices.Clone(values)
	slices.Sort(v)
	uniq := v[:0:0]
	prefix := []int{0} // prefix[k]: number of values below uniq[k]
	for i, x := range v {
		if i == 0 || x != v[i-1] {
			uniq = append(uniq, x)
			prefix = append(prefix, 0)
		}
		prefix[len(prefix)-1] = i + 1
	}
	m := len(uniq)
	if m <= 1 {
		return nil
	}
	var cuts []int // cut s separates uniq[s-1] from uniq[s]
	if m-1 <= maxBorders {
		for s := 1; s < m; s++ {
			cuts = append(cuts, s)
		}
	} else {
		cuts = greedyLogSum(prefix, maxBorders)
		slices.Sort(cuts)
	}
	out := make([]float32, len(cuts))
	for i, s := range cuts {
		out[i] = midBorder(uniq[s-1], uniq[s])
	}
	return out
}

// midBorder is the border between neighbouring distinct values a < b: their
// midpoint when it rounds (to float32) strictly below b, else a, so that
// a > border is false and b > border is true.
func midBorder(a, b float32) float32 {
	mid := float32((float64(a) + float64(b)) / 2)
	if mid >= a && mid < b {
		return mid
	}
	return a
}

// logBin is a bin [lo, hi) of distinct values with its best cut.
type logBin struct {
	lo, hi int
	cut    int
	gain   float64
}

// binHeap orders bins by gain, the larger first, then by lo, the smaller
// first, so the greedy order is deterministic.
type binHeap []logBin

func (h binHeap) Len() int { return len(h) }
func (h binHeap) Less(i, j int) bool {
	if h[i].gain != h[j].gain {
		return h[i].gain > h[j].gain
	}
	return h[i].lo < h[j].lo
}
func (h binHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *binHeap) Push(x any)   { *h = append(*h, x.(logBin)) }
func (h *binHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// greedyLogSum makes at most n cuts over the distinct values whose counts
// have the prefix sums prefix (len = distinct values + 1).
func greedyLogSum(prefix []int, n int) []int {
	h := &binHeap{}
	push := func(lo, hi int) {
		if hi-lo >= 2 {
			cut, gain := bestLogCut(prefix, lo, hi)
			heap.Push(h, logBin{lo: lo, hi: hi, cut: cut, gain: gain})
		}
	}
	push(0, len(prefix)-1)
	cuts := make([]int, 0, n)
	for len(cuts) < n && h.Len() > 0 {
		b := heap.Pop(h).(logBin)
		cuts = append(cuts, b.cut)
		push(b.lo, b.cut)
		push(b.cut, b.hi)
	}
	return cuts
}

// bestLogCut returns the cut s in (lo, hi) maximising
// log(wL) + log(wR) - log(wL + wR), wL and wR the counts either side. The
// expression is concave in wL, so the best cut is one of the two around the
// bin's middle count; ties go to the smaller s.
func bestLogCut(prefix []int, lo, hi int) (int, float64) {
	base := prefix[lo]
	w := prefix[hi] - base
	half := base + (w+1)/2
	// s: the first cut in (lo, hi) with prefix[s] >= half.
	s, _ := slices.BinarySearch(prefix[lo+1:hi], half)
	s += lo + 1
	gain := func(c int) float64 {
		wl := float64(prefix[c] - base)
		return math.Log(wl) + math.Log(float64(w)-wl) - math.Log(float64(w))
	}
	best, bestGain := -1, math.Inf(-1)
	for _, c := range [2]int{s - 1, s} {
		if c > lo && c < hi {
			if g := gain(c); g > bestGain {
				best, bestGain = c, g
			}
		}
	}
	return best, bestGain
}

// binOf returns the bin of x among ascending borders: the number of borders
// b with x > b. A NaN x compares false with every border and lands in bin 0.
// The search runs a fixed number of halvings for a given length and picks
// each half with a conditional move, not a branch (a branch on the data is
// mispredicted about half the time).
func binOf(x float32, borders []float32) uint8 {
	n := len(borders)
	if n == 0 {
		return 0
	}
	lo := 0
	for n > 1 {
		half := n >> 1
		step := 0
		if borders[lo+half-1] < x {
			step = half
		}
		lo += step
		n -= half
	}
	if borders[lo] < x {
		lo++
	}
	return uint8(lo)
}

// orderKey maps a non-NaN float32 to a uint32 with the same order: x < y
// exactly when orderKey(x) < orderKey(y), and -0 and +0 share a key (the
// sign bit flipped for positives, every bit for negatives).
func orderKey(x float32) uint32 {
	b := math.Float32bits(x + 0) // x + 0 turns -0 into +0
	if b>>31 != 0 {
		return ^b
	}
	return b | 1<<31
}

// keyTable holds a feature's border keys padded to 256 with the largest
// key, which no non-NaN value's key exceeds, so the padding is never
// counted and every search takes the same 8 halvings.
type keyTable [256]uint32

// newKeyTable returns the padded order keys of borders (at most 254).
func newKeyTable(borders []float32) *keyTable {
	var k keyTable
	for i := range k {
		k[i] = math.MaxUint32
	}
	for i, b := range borders {
		k[i] = orderKey(b)
	}
	return &k
}

// bin returns the number of keys below x: binOf for the key x of a non-NaN
// value. Eight fixed halvings without branches (a branch on the data is
// mispredicted half the time): below(i) is 1 when k[i] < x, read off the
// borrow of a 64-bit subtraction. The masks keep every index provably
// inside the table, so nothing is bounds checked.
func (k *keyTable) bin(x uint32) uint8 {
	x64 := uint64(x)
	below := func(i uint32) uint32 { return uint32((uint64(k[i&255]) - x64) >> 63) }
	lo := below(127) << 7
	lo += below(lo+63) << 6
	lo += below(lo+31) << 5
	lo += below(lo+15) << 4
	lo += below(lo+7) << 3
	lo += below(lo+3) << 2
	lo += below(lo+1) << 1
	lo += below(lo)
	lo += below(lo)
	return uint8(lo)
}
