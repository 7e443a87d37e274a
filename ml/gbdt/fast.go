package gbdt

// The fast scoring path (docs/gbdt.md §4), for models over at most 256
// features whose trees all have one depth D ≤ 7, which is every model Train
// makes at the default depth. It computes a tree's leaf index with a few
// word operations instead of D compare-and-shift steps:
//
//  1. gather the bins of the tree's D split features into 9-bit lanes of a
//     uint64 (lane j = split j);
//  2. add 256 - threshold to every lane at once (one add of a per-tree
//     constant): lane j reaches 256, setting its bit 8, exactly when
//     bin >= threshold, i.e. when the row goes right; a lane stays below
//     512, so no carry crosses lanes;
//  3. keep the bits 8+9j and move bit 8+9j to bit T+j with one
//     multiplication by Σ_j 2^(8(D-1-j)), T = 8D; every other product term
//     lands on a distinct position outside [T, T+D), so nothing carries into
//     the index bits, and 9D-1 ≤ 63 keeps them inside the word.
//
// Bins live in a [256]uint8 indexed by a byte, so no load is bounds
// checked.

// fastPath holds the packed trees when the fast path applies.
type fastPath struct {
	ok    bool
	depth int
	feat  []uint8  // D split features per tree
	add   []uint64 // per tree: Σ_j (256 - threshold_j) << 9j
	keep  uint64   // Σ_j 1 << (8+9j)
	mul   uint64   // Σ_j 1 << 8(D-1-j)
	shift uint     // T = 8D
	// When D = 6 the trees again, laid out with array types so that no
	// index is bounds checked: pairs for sumPairs (at most maxPairFeatures
	// features), else six and leaves for sum6.
	pairs  []pairTree
	six    []tree6
	leaves [][64]float64
}

// tree6 is the split features and lane constant of a depth-6 tree.
type tree6 struct {
	feat [6]uint8
	add  uint64
}

// maxPairFeatures bounds the features of the pair path: its table holds
// every ordered pair of features, 32·32 entries.
const maxPairFeatures = 32

// pairTree is a depth-6 tree for sumPairs: the lane constant, its split
// features as three pairs (lanes 0-1, 2-3, 4-5), each a<<5|b in 10 bits at
// bits 0, 11 and 22 (the last at the top, so it needs no mask), and its
// leaves, all in one place.
type pairTree struct {
	add    uint64
	pairs  uint32
	leaves [64]float64
}

// maxFastDepth is the deepest tree the lane trick handles (9D-1 ≤ 63).
const maxFastDepth = 7

// newFastPath packs trees if they qualify.
func newFastPath(nf int, trees []Tree) fastPath {
	if nf > 256 || len(trees) == 0 {
		return fastPath{}
	}
	d := len(trees[0].Splits)
	if d < 1 || d > maxFastDepth {
		return fastPath{}
	}
	fp := fastPath{ok: true, depth: d, shift: uint(8 * d)}
	for j := range d {
		fp.keep |= 1 << (8 + 9*j)
		fp.mul |= 1 << (8 * (d - 1 - j))
	}
	for _, t := range trees {
		if len(t.Splits) != d {
			return fastPath{}
		}
		var add uint64
		for j, s := range t.Splits {
			fp.feat = append(fp.feat, uint8(s.Feature))
			add |= uint64(256-(s.Border+1)) << (9 * j)
		}
		fp.add = append(fp.add, add)
		switch {
		case d == 6 && nf <= maxPairFeatures:
			pt := pairTree{add: add, leaves: [64]float64(t.Leaves)}
			for k := range 3 {
				a, b := t.Splits[2*k].Feature, t.Splits[2*k+1].Feature
				pt.pairs |= uint32(a<<5|b) << (11 * k)
			}
			fp.pairs = append(fp.pairs, pt)
		case d == 6:
			t6 := tree6{add: add}
			for j, s := range t.Splits {
				t6.feat[j] = uint8(s.Feature)
			}
			fp.six = append(fp.six, t6)
			fp.leaves = append(fp.leaves, [64]float64(t.Leaves))
		}
	}
	return fp
}

// sumFast returns the sum of the selected leaves, trees in order; nf is the
// number of features.
func (fp *fastPath) sumFast(bins *[256]uint8, leaves []float64, nf int) float64 {
	switch {
	case fp.pairs != nil:
		return fp.sumPairs(bins, nf)
	case fp.depth == 6:
		return fp.sum6(bins)
	}
	d := fp.depth
	nl := 1 << d
	mask := uint64(nl - 1)
	feat := fp.feat
	sum := 0.0
	for _, add := range fp.add {
		if len(feat) < d || len(leaves) < nl {
			break
		}
		var v uint64
		for j, f := range feat[:d] {
			v |= uint64(bins[f]) << (9 * j)
		}
		idx := ((v + add) & fp.keep * fp.mul >> fp.shift) & mask
		sum += leaves[idx]
		feat, leaves = feat[d:], leaves[nl:]
	}
	return sum
}

// Lane constants of depth 6: the bits 8+9j, and the multiplier moving bit
// 8+9j to bit 48+j (mul6) or to bit 58+j (top6: the index is then the top
// six bits, and the product terms that would land above them fall off the
// word, so no mask is needed after the shift).
const (
	keep6 = 1<<8 | 1<<17 | 1<<26 | 1<<35 | 1<<44 | 1<<53
	mul6  = 1<<40 | 1<<32 | 1<<24 | 1<<16 | 1<<8 | 1
	top6  = 1<<50 | 1<<42 | 1<<34 | 1<<26 | 1<<18 | 1<<10
)

// sum6 is sumFast unrolled for depth 6.
func (fp *fastPath) sum6(bins *[256]uint8) float64 {
	sum := 0.0
	leaves := fp.leaves[:len(fp.six)]
	for i := range fp.six {
		t := &fp.six[i]
		v := uint64(bins[t.feat[0]]) | uint64(bins[t.feat[1]])<<9 | uint64(bins[t.feat[2]])<<18 |
			uint64(bins[t.feat[3]])<<27 | uint64(bins[t.feat[4]])<<36 | uint64(bins[t.feat[5]])<<45
		sum += leaves[i][((v+t.add)&keep6*mul6>>48)&63]
	}
	return sum
}

// sumPairs is sum6 for at most 32 features. Scoring is bound by the
// instructions per tree (docs/gbdt.md §4), so it first tabulates the two
// lanes of every ordered pair of features, P[a<<5|b] = bin_a | bin_b<<9
// (nf² entries, about 0.3 µs for 25 features), and then gathers a tree's
// six lanes with three loads instead of six loads and shifts.
func (fp *fastPath) sumPairs(bins *[256]uint8, nf int) float64 {
	var P [maxPairFeatures * maxPairFeatures]uint32 // 18 bits used; uint32 halves the zeroing
	var hi [maxPairFeatures]uint32                  // bin_b << 9
	nf = min(nf, maxPairFeatures)
	for b := range nf {
		hi[b] = uint32(bins[b]) << 9
	}
	for a := range nf {
		ba := uint32(bins[a])
		row := P[a<<5 : a<<5+maxPairFeatures]
		for b, h := range hi[:nf] {
			row[b] = ba | h
		}
	}
	sum := 0.0
	pairs := fp.pairs
	for len(pairs) >= 8 {
		q := pairs[:8:8]
		v0 := uint64(P[q[0].pairs&1023]) | uint64(P[q[0].pairs>>11&1023])<<18 | uint64(P[q[0].pairs>>22])<<36
		v1 := uint64(P[q[1].pairs&1023]) | uint64(P[q[1].pairs>>11&1023])<<18 | uint64(P[q[1].pairs>>22])<<36
		v2 := uint64(P[q[2].pairs&1023]) | uint64(P[q[2].pairs>>11&1023])<<18 | uint64(P[q[2].pairs>>22])<<36
		v3 := uint64(P[q[3].pairs&1023]) | uint64(P[q[3].pairs>>11&1023])<<18 | uint64(P[q[3].pairs>>22])<<36
		v4 := uint64(P[q[4].pairs&1023]) | uint64(P[q[4].pairs>>11&1023])<<18 | uint64(P[q[4].pairs>>22])<<36
		v5 := uint64(P[q[5].pairs&1023]) | uint64(P[q[5].pairs>>11&1023])<<18 | uint64(P[q[5].pairs>>22])<<36
		v6 := uint64(P[q[6].pairs&1023]) | uint64(P[q[6].pairs>>11&1023])<<18 | uint64(P[q[6].pairs>>22])<<36
		v7 := uint64(P[q[7].pairs&1023]) | uint64(P[q[7].pairs>>11&1023])<<18 | uint64(P[q[7].pairs>>22])<<36
		sum += q[0].leaves[(v0+q[0].add)&keep6*top6>>58]
		sum += q[1].leaves[(v1+q[1].add)&keep6*top6>>58]
		sum += q[2].leaves[(v2+q[2].add)&keep6*top6>>58]
		sum += q[3].leaves[(v3+q[3].add)&keep6*top6>>58]
		sum += q[4].leaves[(v4+q[4].add)&keep6*top6>>58]
		sum += q[5].leaves[(v5+q[5].add)&keep6*top6>>58]
		sum += q[6].leaves[(v6+q[6].add)&keep6*top6>>58]
		sum += q[7].leaves[(v7+q[7].add)&keep6*top6>>58]
		pairs = pairs[8:]
	}
	for i := range pairs {
		t := &pairs[i]
		p := t.pairs
		v := uint64(P[p&1023]) | uint64(P[p>>11&1023])<<18 | uint64(P[p>>22])<<36
		sum += t.leaves[(v+t.add)&keep6*top6>>58]
	}
	return sum
}
