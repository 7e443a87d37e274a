package gbdt

import "math"

// histCell accumulates one bin of one leaf: the gradient sum and the row
// count (the Hessian sum of the squared error).
type histCell struct {
	g float64
	n int
}

// trainer holds the binarised training set and the scratch of tree growing
// (docs/gbdt.md §2). Everything is sized once; growing a tree allocates only
// the tree itself.
type trainer struct {
	p       Params
	n       int
	borders [][]float32
	bins    []uint8 // column-major: bins[f*n+i]
	y       []float64
	bias    float64
	pred    []float64 // bias + Σ leaves so far, per row
	g       []float64 // gradient pred - y, per row
	gs      []float64 // g in the order of order
	order   []int32   // row numbers grouped by leaf, rows ascending within a leaf
	tmp     []int32
	right   []int32 // partition scratch: the rows going right
	rstart  []int   // partition scratch: each leaf's first row in right
	start   []int   // leaf l's rows are order[start[l]:start[l+1]]
	next    []int
	hist    []histCell
	score   []float64 // score[off[f]+k]: split at feature f, border k
	off     []int
	used    []bool // candidate already split on in the current tree
	// candidates is the number of (feature, border) pairs.
	candidates int
}

// newTrainer quantises and binarises d (already checked) and starts the
// prediction at the target mean.
func newTrainer(p Params, d Data) *trainer {
	n, nf := len(d.X), len(d.X[0])
	t := &trainer{p: p, n: n, y: d.Y, bins: make([]uint8, n*nf), borders: make([][]float32, nf), off: make([]int, nf+1)}
	col := make([]float32, n)
	for f := range nf {
		for i, x := range d.X {
			col[i] = float32(x[f])
		}
		b := Borders(col, p.BorderCount)
		t.borders[f] = b
		for i, v := range col {
			t.bins[f*n+i] = binOf(v, b)
		}
		t.off[f+1] = t.off[f] + len(b)
	}
	t.candidates = t.off[nf]
	sum := 0.0
	for _, y := range d.Y {
		sum += y
	}
	t.bias = sum / float64(n)
	t.pred = make([]float64, n)
	for i := range t.pred {
		t.pred[i] = t.bias
	}
	t.g = make([]float64, n)
	t.gs = make([]float64, n)
	t.order = make([]int32, n)
	t.tmp = make([]int32, n)
	t.right = make([]int32, n)
	leaves := 1 << p.Depth
	t.start = make([]int, 0, leaves+1)
	t.next = make([]int, 0, leaves+1)
	t.hist = make([]histCell, MaxBorders+1)
	t.score = make([]float64, t.candidates)
	t.used = make([]bool, t.candidates)
	return t
}

// growTree grows one tree on the current gradients, adds it to the
// prediction and returns it.
func (t *trainer) growTree() Tree {
	for i := range t.g {
		t.g[i] = t.pred[i] - t.y[i]
		t.order[i] = int32(i)
	}
	t.start = append(t.start[:0], 0, t.n)
	clear(t.used)
	var splits []Split
	for d := range t.p.Depth {
		c := t.bestSplit(1 << d)
		if c < 0 {
			break
		}
		t.used[c] = true
		f := t.featureOf(c)
		k := c - t.off[f]
		t.partition(f, k, 1<<d)
		splits = append(splits, Split{Feature: f, Border: k})
	}
	leaves := make([]float64, 1<<len(splits))
	for l := range leaves {
		seg := t.order[t.start[l]:t.start[l+1]]
		if len(seg) == 0 {
			continue // an empty leaf keeps 0 (never reached by training rows)
		}
		g := 0.0
		for _, r := range seg {
			g += t.g[r]
		}
		v := -t.p.LearningRate * g / (float64(len(seg)) + t.p.L2LeafReg)
		leaves[l] = v
		for _, r := range seg {
			t.pred[r] += v
		}
	}
	return Tree{Splits: splits, Leaves: leaves}
}

// featureOf returns the feature of candidate c.
func (t *trainer) featureOf(c int) int {
	f := 0
	for t.off[f+1] <= c {
		f++
	}
	return f
}

// term is a leaf's share of the split score: G²/(N+λ), the drop in the
// regularised second-order loss a Newton leaf value achieves (0 for an
// empty leaf).
func term(g float64, n int, l2 float64) float64 {
	if n == 0 {
		return 0
	}
	return g * g / (float64(n) + l2)
}

// bestSplit scores every unused (feature, border) over the current leaves
// at once and returns the best candidate, or -1 when none is left. Per leaf
// and feature it builds the gradient histogram over bins and sweeps its
// prefix sums: the rows at or below border k go left. Ties keep the first
// candidate (lowest feature, then lowest border), so the choice is
// deterministic.
func (t *trainer) bestSplit(leaves int) int {
	clear(t.score)
	for j, r := range t.order {
		t.gs[j] = t.g[r]
	}
	l2 := t.p.L2LeafReg
	for l := range leaves {
		lo, hi := t.start[l], t.start[l+1]
		if lo == hi {
			continue
		}
		rows, gs := t.order[lo:hi], t.gs[lo:hi]
		gTot, nTot := 0.0, hi-lo
		for _, g := range gs {
			gTot += g
		}
		for f, b := range t.borders {
			nb := len(b)
			if nb == 0 {
				continue
			}
			h := t.hist[:nb+1]
			clear(h)
			col := t.bins[f*t.n : (f+1)*t.n]
			for j, r := range rows {
				c := &h[col[r]]
				c.g += gs[j]
				c.n++
			}
			sc := t.score[t.off[f] : t.off[f]+nb]
			cg, cn := 0.0, 0
			for k := range sc {
				cg += h[k].g
				cn += h[k].n
				sc[k] += term(cg, cn, l2) + term(gTot-cg, nTot-cn, l2)
			}
		}
	}
	best, bestScore := -1, math.Inf(-1)
	for c, s := range t.score {
		if !t.used[c] && s > bestScore {
			best, bestScore = c, s
		}
	}
	return best
}

// partition splits every leaf's rows on (feature f, border k): rows with
// bin <= k keep leaf l, rows above get leaf l + leaves (bit d of the index,
// leaves = 2^d). Rows stay ascending within each new leaf. Each row is
// written to both the left and the right buffer and only the matching
// cursor advances, so there is no branch on the data.
func (t *trainer) partition(f, k, leaves int) {
	col := t.bins[f*t.n : (f+1)*t.n]
	left, right := t.tmp, t.right
	t.next = t.next[:0]
	nl, nr := 0, 0
	t.rstart = t.rstart[:0]
	for l := range leaves {
		t.next = append(t.next, nl)
		t.rstart = append(t.rstart, nr)
		for _, r := range t.order[t.start[l]:t.start[l+1]] {
			goesRight := int(uint(k-int(col[r])) >> 63) // 1 when bin > k
			left[nl] = r
			right[nr] = r
			nl += 1 - goesRight
			nr += goesRight
		}
	}
	copy(left[nl:], right[:nr])
	for _, rs := range t.rstart {
		t.next = append(t.next, nl+rs)
	}
	t.next = append(t.next, nl+nr)
	t.order, t.tmp = t.tmp, t.order
	t.start, t.next = t.next, t.start
}

// rmse is the RMSE of the running training prediction.
func (t *trainer) rmse() float64 {
	sse := 0.0
	for i, p := range t.pred {
		e := p - t.y[i]
		sse += e * e
	}
	return math.Sqrt(sse / float64(t.n))
}
