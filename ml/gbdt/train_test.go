package gbdt

import (
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// tinyData is n rows of nf features with few distinct values (so there are
// few borders) and random targets.
func tinyData(seed uint64, n, nf int) Data {
	r := rand.New(rand.NewPCG(seed, 5))
	d := Data{X: make([][]float64, n), Y: make([]float64, n)}
	for i := range n {
		d.X[i] = make([]float64, nf)
		for j := range nf {
			d.X[i][j] = float64(r.IntN(6))
		}
		d.Y[i] = r.NormFloat64()
	}
	return d
}

// bruteObjective is the regularised second-order loss of fitting Newton
// leaves to the gradients g with rows in leaves leaf:
// Σ_i (g_i v + v²/2) + λ/2 Σ_leaves v², v = -G/(N+λ) per leaf, evaluated
// row by row (not through the G²/(N+λ) shortcut the trainer uses).
func bruteObjective(g []float64, leaf []int, nleaves int, l2 float64) float64 {
	G := make([]float64, nleaves)
	N := make([]float64, nleaves)
	for i, l := range leaf {
		G[l] += g[i]
		N[l]++
	}
	v := make([]float64, nleaves)
	obj := 0.0
	for l := range v {
		if N[l] > 0 {
			v[l] = -G[l] / (N[l] + l2)
		}
		obj += l2 / 2 * v[l] * v[l]
	}
	for i, l := range leaf {
		obj += g[i]*v[l] + v[l]*v[l]/2
	}
	return obj
}

// TestSplitSearchBruteForce grows trees level by level and checks every
// split the histogram search picks against a brute-force search over all
// unused (feature, border) pairs that evaluates the loss row by row.
func TestSplitSearchBruteForce(t *testing.T) {
	for _, l2 := range []float64{0, 3} {
		for seed := range uint64(5) {
			d := tinyData(seed, 60, 3)
			p := DefaultParams()
			p.Depth, p.L2LeafReg, p.LearningRate = 4, l2, 0.5
			tr := newTrainer(p, d)
			for range 3 { // three trees: later ones see non-constant gradients
				tr.checkTree(t)
			}
		}
	}
}

// checkTree grows one tree like growTree, checking each level's choice.
func (tr *trainer) checkTree(t *testing.T) {
	t.Helper()
	g := make([]float64, tr.n)
	for i := range g {
		g[i] = tr.pred[i] - tr.y[i]
	}
	leaf := make([]int, tr.n)
	var used []int
	for d := range tr.p.Depth {
		best, bestObj := -1, math.Inf(1)
		cand := make([]int, tr.n)
		for c := range tr.candidates {
			if contains(used, c) {
				continue
			}
			f := tr.featureOf(c)
			k := c - tr.off[f]
			for i := range cand {
				cand[i] = leaf[i]
				if int(tr.bins[f*tr.n+i]) > k {
					cand[i] |= 1 << d
				}
			}
			if o := bruteObjective(g, cand, 2<<d, tr.p.L2LeafReg); o < bestObj-1e-12 {
				best, bestObj = c, o
			}
		}
		used = append(used, best)
		f := tr.featureOf(best)
		for i := range leaf {
			if int(tr.bins[f*tr.n+i]) > best-tr.off[f] {
				leaf[i] |= 1 << d
			}
		}
	}
	tree := tr.growTree()
	for d, sp := range tree.Splits {
		c := tr.off[sp.Feature] + sp.Border
		if c != used[d] {
			t.Fatalf("level %d: trainer split (feature %d, border %d) = candidate %d, brute force %d", d, sp.Feature, sp.Border, c, used[d])
		}
	}
	if len(tree.Splits) != tr.p.Depth {
		t.Fatalf("depth %d, want %d", len(tree.Splits), tr.p.Depth)
	}
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// TestDepthOneExact: one feature, one tree of depth 1: the split is the
// brute-force best border and the leaves are -rate·G/(N+λ) exactly.
func TestDepthOneExact(t *testing.T) {
	d := Data{Y: []float64{1, 1.5, 0.5, 1, 5, 5.5, 4.5, 5}}
	for i := range d.Y {
		d.X = append(d.X, []float64{float64(i + 1)})
	}
	p := DefaultParams()
	p.Iterations, p.Depth, p.LearningRate = 1, 1, 0.5
	m, _, err := Train(p, d, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := m.Spec()
	if s.Bias != 3 || s.Scale != 1 {
		t.Fatalf("scale, bias = %v, %v; want 1, 3 (the target mean)", s.Scale, s.Bias)
	}
	tree := s.Trees[0]
	if b := s.Borders[0][tree.Splits[0].Border]; b != 4.5 {
		t.Fatalf("split border %v, want 4.5", b)
	}
	// Brute force over every border of the feature: the regularised loss of
	// the depth-1 tree with Newton leaves, row by row.
	g := make([]float64, len(d.Y))
	for i, y := range d.Y {
		g[i] = 3 - y
	}
	best, bestObj := -1, math.Inf(1)
	for k, b := range s.Borders[0] {
		leaf := make([]int, len(d.X))
		for i, x := range d.X {
			if float32(x[0]) > b {
				leaf[i] = 1
			}
		}
		if o := bruteObjective(g, leaf, 2, p.L2LeafReg); o < bestObj {
			best, bestObj = k, o
		}
	}
	if best != tree.Splits[0].Border {
		t.Fatalf("split at border %d, brute force %d", tree.Splits[0].Border, best)
	}
	// left rows: g = 3 - y = 2, 1.5, 2.5, 2 → G = 8, N = 4; right G = -8.
	want := []float64{-0.5 * 8 / (4 + 3), -0.5 * -8 / (4 + 3)}
	if !reflect.DeepEqual(tree.Leaves, want) {
		t.Fatalf("leaves %v, want %v", tree.Leaves, want)
	}
	if got, w := m.Predict([]float64{2}), float64(1*want[0])+3; got != w {
		t.Fatalf("Predict(2) = %v, want %v", got, w)
	}
}

// TestEarlyStopping: on noisy targets with a high rate the validation RMSE
// turns up; training stops EarlyStoppingRounds trees after the best and the
// model keeps exactly the best prefix.
func TestEarlyStopping(t *testing.T) {
	tr, _ := synth(11, 300)
	va, _ := synth(12, 300)
	p := DefaultParams()
	p.Iterations, p.LearningRate, p.L2LeafReg, p.EarlyStoppingRounds = 500, 0.5, 0, 10
	m, res, err := Train(p, tr, &va)
	if err != nil {
		t.Fatal(err)
	}
	best := 0
	for i, r := range res.ValidRMSE {
		if r < res.ValidRMSE[best] {
			best = i
		}
	}
	if res.BestIteration != best+1 || m.NumTrees() != best+1 {
		t.Fatalf("BestIteration %d, model %d trees; first minimum of ValidRMSE at %d trees", res.BestIteration, m.NumTrees(), best+1)
	}
	if res.Trees != res.BestIteration+p.EarlyStoppingRounds || res.Trees >= p.Iterations {
		t.Fatalf("stopped after %d trees, want best %d + %d", res.Trees, res.BestIteration, p.EarlyStoppingRounds)
	}
	if got := rmseOf(m, va); got != res.ValidRMSE[best] {
		t.Fatalf("model's validation RMSE %v, recorded %v", got, res.ValidRMSE[best])
	}
	if res.TrainRMSE[len(res.TrainRMSE)-1] >= res.TrainRMSE[0] {
		t.Fatal("training RMSE did not fall")
	}
}

// TestDeterministic: the same data and parameters give the same model.
func TestDeterministic(t *testing.T) {
	d, _ := synth(5, 2000)
	p := DefaultParams()
	p.Iterations = 30
	a, _, err := Train(p, d, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _, _ := Train(p, d, nil)
	if !reflect.DeepEqual(a.Spec(), b.Spec()) {
		t.Fatal("two runs gave different models")
	}
}

// TestSyntheticAccuracy is check (1) of docs/gbdt.md §5: with the default
// parameters and early stopping the test RMSE is within 10 % of the noise
// floor, the RMSE of the true regression function on the same test rows.
func TestSyntheticAccuracy(t *testing.T) {
	tr, _ := synth(1, 10000)
	va, _ := synth(2, 2000)
	te, f := synth(3, 2000)
	floor := 0.0
	for i := range f {
		floor += (f[i] - te.Y[i]) * (f[i] - te.Y[i])
	}
	floor = math.Sqrt(floor / float64(len(f)))
	p := DefaultParams()
	p.Iterations, p.EarlyStoppingRounds = 3000, 100
	m, res, err := Train(p, tr, &va)
	if err != nil {
		t.Fatal(err)
	}
	got := rmseOf(m, te)
	t.Logf("test RMSE %.4f, noise floor %.4f (ratio %.4f), %d trees kept of %d", got, floor, got/floor, res.BestIteration, res.Trees)
	if got > 1.1*floor {
		t.Fatalf("test RMSE %.4f > 1.1 × noise floor %.4f", got, floor)
	}
}

func TestBadInput(t *testing.T) {
	good, _ := synth(1, 20)
	p := DefaultParams()
	with := func(f func(*Params)) Params { q := p; f(&q); return q }
	nan := math.NaN()
	cases := []struct {
		name  string
		p     Params
		train Data
		valid *Data
		want  string
	}{
		{"depth 0", with(func(q *Params) { q.Depth = 0 }), good, nil, "Depth = 0 out of range [1, 16]"},
		{"depth 17", with(func(q *Params) { q.Depth = 17 }), good, nil, "Depth = 17 out of range [1, 16]"},
		{"borders 0", with(func(q *Params) { q.BorderCount = 0 }), good, nil, "BorderCount = 0 out of range [1, 254]"},
		{"borders 255", with(func(q *Params) { q.BorderCount = 255 }), good, nil, "BorderCount = 255 out of range [1, 254]"},
		{"rate 0", with(func(q *Params) { q.LearningRate = 0 }), good, nil, "LearningRate = 0 out of range (0, 1]"},
		{"rate NaN", with(func(q *Params) { q.LearningRate = nan }), good, nil, "LearningRate = NaN out of range (0, 1]"},
		{"rate 2", with(func(q *Params) { q.LearningRate = 2 }), good, nil, "LearningRate = 2 out of range (0, 1]"},
		{"l2 -1", with(func(q *Params) { q.L2LeafReg = -1 }), good, nil, "L2LeafReg = -1 out of range [0, "},
		{"iterations 0", with(func(q *Params) { q.Iterations = 0 }), good, nil, "Iterations = 0 out of range [1, 1000000]"},
		{"esr -1", with(func(q *Params) { q.EarlyStoppingRounds = -1 }), good, nil, "EarlyStoppingRounds = -1 out of range [0, Iterations = 1000]"},
		{"esr no valid", with(func(q *Params) { q.EarlyStoppingRounds = 5 }), good, nil, "EarlyStoppingRounds = 5 needs a validation set"},
		{"empty", p, Data{}, nil, "train.X is empty"},
		{"y length", p, Data{X: good.X, Y: good.Y[:3]}, nil, "train.Y has 3 values for 20 rows"},
		{"ragged", p, Data{X: append([][]float64{{1}}, good.X[1:]...), Y: good.Y}, nil, "train.X[1] has 4 features, train.X[0] has 1"},
		{"nan x", p, Data{X: [][]float64{{1, nan}}, Y: []float64{1}}, nil, "train.X[0][1] = NaN: features must be finite"},
		{"inf x", p, Data{X: [][]float64{{math.Inf(1)}}, Y: []float64{1}}, nil, "train.X[0][0] = +Inf: features must be finite"},
		{"big x", p, Data{X: [][]float64{{1e39}}, Y: []float64{1}}, nil, "within ±3.4028234663852886e+38 (float32)"},
		{"nan y", p, Data{X: [][]float64{{1}}, Y: []float64{nan}}, nil, "train.Y[0] = NaN: targets must be finite"},
		{"no features", p, Data{X: [][]float64{{}}, Y: []float64{1}}, nil, "train.X[0] has 0 features, want [1, 65536]"},
		{"constant", p, Data{X: [][]float64{{1}, {1}}, Y: []float64{1, 2}}, nil, "every feature is constant"},
		{"valid width", p, good, &Data{X: [][]float64{{1}}, Y: []float64{1}}, "valid.X[0] has 1 features, want 4"},
		{"valid nan", p, good, &Data{X: [][]float64{{1, 2, 3, nan}}, Y: []float64{1}}, "valid.X[0][3] = NaN"},
	}
	for _, c := range cases {
		_, _, err := Train(c.p, c.train, c.valid)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to contain %q", c.name, err, c.want)
		}
	}
}

// TestExtremeParams: the ends of every range train without trouble; with
// fewer (feature, border) pairs than Depth the trees stop at the pairs
// available.
func TestExtremeParams(t *testing.T) {
	d := tinyData(3, 50, 2) // 2 features × at most 5 borders
	p := DefaultParams()
	p.Iterations, p.Depth, p.LearningRate, p.L2LeafReg, p.BorderCount = 3, MaxDepth, 1, 0, 1
	m, _, err := Train(p, d, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, tr := range m.Spec().Trees {
		if len(tr.Splits) != 2 {
			t.Errorf("tree %d: depth %d, want 2 (one border per feature)", i, len(tr.Splits))
		}
	}
	p.BorderCount = MaxBorders
	m, _, err = Train(p, d, nil)
	if err != nil {
		t.Fatal(err)
	}
	cands := len(m.Spec().Borders[0]) + len(m.Spec().Borders[1])
	if got := len(m.Spec().Trees[0].Splits); got != min(cands, MaxDepth) {
		t.Errorf("depth %d, want %d (all pairs)", got, cands)
	}
	for _, x := range d.X {
		if v := m.Predict(x); math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("Predict = %v", v)
		}
	}
	// λ = 0 with depth 1 and one row per leaf: the leaf is the residual.
	one := Data{X: [][]float64{{0}, {1}}, Y: []float64{0, 2}}
	p = DefaultParams()
	p.Iterations, p.Depth, p.LearningRate, p.L2LeafReg = 1, 1, 1, 0
	m, _, err = Train(p, one, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := m.Predict([]float64{0}), m.Predict([]float64{1}); a != 0 || b != 2 {
		t.Errorf("predictions %v, %v; want 0, 2 exactly", a, b)
	}
}
