package deccpost

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/cc/deccmodel"
	"github.com/ccsim/ccsim/ml/compress"
	"github.com/ccsim/ccsim/ml/gbdt"
	"github.com/ccsim/ccsim/ml/nn"
)

// Students is the stage's output: the three files of a model directory
// (deccmodel.BinaryFile, TreesFile, ReportFile) and the report.
type Students struct {
	Binary, Trees, ReportJSON []byte
	Report                    *Report
}

// split holds the recorded windows cut in three by a seeded shuffle.
type split struct {
	train, valid, test [][]float64
}

func splitWindows(ws [][]float64, cfg *Config) split {
	n := len(ws)
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	r := rand.New(rand.NewPCG(cfg.Seed, 0x5eed))
	r.Shuffle(n, func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
	if n > cfg.Windows { // an even random subset
		idx = idx[:cfg.Windows]
		n = cfg.Windows
	}
	nt := max(1, int(math.Round(cfg.TestFrac*float64(n))))
	nv := max(1, int(math.Round(cfg.ValidFrac*float64(n-nt))))
	var s split
	for i, k := range idx {
		switch {
		case i < nt:
			s.test = append(s.test, ws[k])
		case i < nt+nv:
			s.valid = append(s.valid, ws[k])
		default:
			s.train = append(s.train, ws[k])
		}
	}
	return s
}

// Build runs the stage in memory: record, compress, distil. The same
// teacher and cfg give the same bytes.
func Build(teacher *nn.Sequential, cfg Config) (*Students, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if teacher == nil {
		return nil, fmt.Errorf("teacher is nil")
	}
	enc, err := nn.Encode(teacher, "")
	if err != nil {
		return nil, err
	}
	if _, _, err := deccmodel.DecodeActor(enc); err != nil {
		return nil, fmt.Errorf("teacher: %w", err)
	}
	sum := sha256.Sum256(enc)
	rec, err := Record(teacher, &cfg)
	if err != nil {
		return nil, err
	}
	sp := splitWindows(rec.Windows, &cfg)
	if len(sp.train) < 2 {
		return nil, fmt.Errorf("windows: %d recorded, too few to train on", len(rec.Windows))
	}
	rep := &Report{Config: cfg, TeacherSHA256: hex.EncodeToString(sum[:]), Episodes: rec.Episodes, Flows: rec.Flows,
		Recorded: len(rec.Windows), Train: len(sp.train), Valid: len(sp.valid), Test: len(sp.test)}
	if deccmodel.IsContinuous(teacher) {
		rep.Actor = "continuous"
	}
	for _, a := range rec.Actions {
		rep.TeacherActions[cc.DECCNearest(a)]++
	}
	c, bin, err := compressStage(teacher, &cfg, sp, rep)
	if err != nil {
		return nil, err
	}
	trees, err := treeStage(teacher, c.Quant, &cfg, sp, rep)
	if err != nil {
		return nil, err
	}
	var ind, tj bytes.Buffer
	if err := trees.WriteCatBoostJSON(&ind); err != nil {
		return nil, err
	}
	if err := json.Compact(&tj, ind.Bytes()); err != nil { // a third of the indented size
		return nil, err
	}
	rj, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return nil, err
	}
	return &Students{Binary: bin, Trees: tj.Bytes(), ReportJSON: append(rj, '\n'), Report: rep}, nil
}

// Run runs the stage and writes the three files into outDir (created if
// needed).
func Run(teacher *nn.Sequential, cfg Config, outDir string) (*Report, error) {
	s, err := Build(teacher, cfg)
	if err != nil {
		return nil, err
	}
	if err := s.WriteDir(outDir); err != nil {
		return nil, err
	}
	return s.Report, nil
}

// WriteDir writes the three files into dir (created if needed).
func (s *Students) WriteDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, b := range map[string][]byte{deccmodel.BinaryFile: s.Binary, deccmodel.TreesFile: s.Trees, deccmodel.ReportFile: s.ReportJSON} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// compressStage prunes, quantises and fine-tunes the teacher
// (docs/compress.md; decc.md §1.8) and fills the report's Table 2 figures
// (held-out windows). It returns the compressed model and its packed file.
func compressStage(teacher *nn.Sequential, cfg *Config, sp split, rep *Report) (*compress.Model, []byte, error) {
	cc0 := compress.DefaultConfig()
	cc0.Sparsity, cc0.Bits = cfg.Sparsity, cfg.Bits
	c, _, err := compress.Compress(teacher, cc0)
	if err != nil {
		return nil, nil, fmt.Errorf("compress: %w", err)
	}
	steps := deccmodel.History
	r := &rep.Compression
	if r.DiscrepancyBefore, err = compress.Discrepancy(teacher, c.Quant, sp.test, steps); err != nil {
		return nil, nil, err
	}
	ft := compress.DefaultFineTune()
	ft.Epochs, ft.Batch, ft.Adam.LR, ft.Seed = cfg.Epochs, cfg.Batch, cfg.LR, cfg.Seed
	if cfg.Progress != nil {
		cfg.Progress("fine-tune", 0, 1)
	}
	if r.FineTuneLoss, err = compress.FineTune(c, teacher, sp.train, steps, ft); err != nil {
		return nil, nil, fmt.Errorf("fine-tune: %w", err)
	}
	if cfg.Progress != nil {
		cfg.Progress("fine-tune", 1, 1)
	}
	pm, err := compress.Pack(c)
	if err != nil {
		return nil, nil, err
	}
	bin, err := compress.EncodePacked(pm)
	if err != nil {
		return nil, nil, err
	}
	if r.Discrepancy, err = compress.Discrepancy(teacher, c.Quant, sp.test, steps); err != nil {
		return nil, nil, err
	}
	tc, err1 := compress.ModelCost(teacher, steps)
	qc, err2 := compress.ModelCost(c.Quant, steps)
	t1, err3 := compress.ModelCost(teacher, 1)
	q1, err4 := compress.ModelCost(c.Quant, 1)
	for _, e := range []error{err1, err2, err3, err4} {
		if e != nil {
			return nil, nil, e
		}
	}
	r.Params, r.Weights = teacher.NumParams(), weightCount(teacher)
	r.NonzeroWeights = nonzeroWeights(c.Quant)
	r.Sparsity = 1 - float64(r.NonzeroWeights)/float64(r.Weights)
	r.Bits = cfg.Bits
	r.Float32Bytes, r.PackedBytes = compress.Float32Bytes(teacher), len(bin)
	r.FLOPs, r.NonzeroFLOPs = tc.FLOPs, qc.NonzeroFLOPs
	r.FLOPsOneStep, r.NonzeroFLOPsOneStep = t1.FLOPs, q1.NonzeroFLOPs
	r.Agreement, r.WithinOne, r.BinaryActions = agreement(teacher, c.Quant, sp.test)
	return c, bin, nil
}

// weightCount is the number of weight-matrix entries (biases excluded).
func weightCount(m *nn.Sequential) int {
	c, _ := compress.ModelCost(m, 1)
	return c.MACs
}

// nonzeroWeights counts the nonzero weight-matrix entries.
func nonzeroWeights(m *nn.Sequential) int {
	c, _ := compress.ModelCost(m, 1)
	return c.NonzeroMACs
}

// agreement returns the fraction of the windows on which the deployed
// actions of a and b agree at the 11 levels (levelsAll), the fraction
// within one level, and b's histogram.
func agreement(a, b *nn.Sequential, xs [][]float64) (agree, within1 float64, hist [deccmodel.Actions]int) {
	ka, kb := levelsAll(a, xs), levelsAll(b, xs)
	n1, n2 := 0, 0
	for i := range ka {
		if ka[i] == kb[i] {
			n1++
		}
		if abs(ka[i]-kb[i]) <= 1 {
			n2++
		}
		hist[kb[i]]++
	}
	return float64(n1) / float64(len(xs)), float64(n2) / float64(len(xs)), hist
}

func abs(x int) int { return max(x, -x) }

// levelsAll returns the level index of m's deployed action on every
// window: the greedy index of a categorical actor, the nearest level of a
// continuous one's action (cc.DECCNearest of cc.DECCNetAction, which for
// the categorical actor is its greedy index again).
func levelsAll(m *nn.Sequential, xs [][]float64) []int {
	ws := m.NewWorkspace(deccmodel.History)
	out := make([]int, len(xs))
	for i, x := range xs {
		z, err := m.Forward(ws, x, deccmodel.History)
		out[i] = deccmodel.Actions / 2
		if err == nil {
			out[i] = cc.DECCNearest(cc.DECCNetAction(z))
		}
	}
	return out
}

// labels returns the distillation targets of m on xs (I20): the greedy
// action's value, or the expected action Σ p_k a_k under the softmax of the
// logits; for a continuous actor its action (either label).
func labels(m *nn.Sequential, xs [][]float64, label string) []float64 {
	ws := m.NewWorkspace(deccmodel.History)
	y := make([]float64, len(xs))
	for i, x := range xs {
		z, err := m.Forward(ws, x, deccmodel.History)
		if err != nil {
			continue // 0: the no-op (cannot happen for windows of the actor's width)
		}
		if label == "greedy" || len(z) == 1 {
			y[i] = cc.DECCNetAction(z)
			continue
		}
		zmax := z[cc.DECCGreedy(z)]
		den, num := 0.0, 0.0
		for k, v := range z {
			e := nn.DetExp(v - zmax) // the same bits on every machine (docs/ml.md)
			den += e
			num += e * deccmodel.ActionValue(k)
		}
		y[i] = num / den
	}
	return y
}

// treeStage distils the compressed network quant into oblivious trees
// (decc.md §1.9; docs/gbdt.md) and fills the report's fidelity figures.
func treeStage(teacher, quant *nn.Sequential, cfg *Config, sp split, rep *Report) (*gbdt.Model, error) {
	p := gbdt.DefaultParams()
	p.Iterations, p.Depth, p.LearningRate, p.L2LeafReg = cfg.Trees, cfg.Depth, cfg.TreeRate, cfg.L2
	p.BorderCount, p.EarlyStoppingRounds = cfg.Borders, cfg.EarlyStop
	train := gbdt.Data{X: sp.train, Y: labels(quant, sp.train, cfg.Label)}
	valid := gbdt.Data{X: sp.valid, Y: labels(quant, sp.valid, cfg.Label)}
	if cfg.Progress != nil {
		cfg.Progress("trees", 0, 1)
	}
	m, res, err := gbdt.Train(p, train, &valid)
	if err != nil {
		return nil, fmt.Errorf("trees: %w", err)
	}
	if cfg.Progress != nil {
		cfg.Progress("trees", 1, 1)
	}
	r := &rep.Trees
	r.Label, r.Grown, r.Trees, r.Depth = cfg.Label, res.Trees, res.BestIteration, cfg.Depth
	r.TrainRMSE, r.ValidRMSE = res.TrainRMSE[res.BestIteration-1], res.ValidRMSE[res.BestIteration-1]
	yt := labels(quant, sp.test, cfg.Label)
	kq, kt := levelsAll(quant, sp.test), levelsAll(teacher, sp.test)
	se, n1, n2, n3 := 0.0, 0, 0, 0
	for i, x := range sp.test {
		a := m.Predict(x)
		se += (a - yt[i]) * (a - yt[i])
		k := cc.DECCNearest(a)
		r.Actions[k]++
		if k == kq[i] {
			n1++
		}
		if abs(k-kq[i]) <= 1 {
			n2++
		}
		if k == kt[i] {
			n3++
		}
	}
	nt := float64(len(sp.test))
	r.TestRMSE = math.Sqrt(se / nt)
	r.Agreement, r.WithinOne, r.AgreementTeacher = float64(n1)/nt, float64(n2)/nt, float64(n3)/nt
	r.Curve, err = treeCurve(m, res, sp.test, kq)
	return m, err
}

// curveAt are the tree counts at which the report gives the fidelity.
var curveAt = []int{50, 100, 200, 500, 1000, 2000, 4000, 8000, 16000}

// treeCurve returns the fidelity of m's first n trees for n in curveAt
// (up to the trees kept): the validation RMSE and the held-out agreement
// with the compressed network's greedy actions kq (I22).
func treeCurve(m *gbdt.Model, res gbdt.Result, test [][]float64, kq []int) ([]TreePoint, error) {
	spec := m.Spec()
	var out []TreePoint
	for _, n := range curveAt {
		if n > len(spec.Trees) {
			break
		}
		sub := spec
		sub.Trees = spec.Trees[:n]
		mm, err := gbdt.NewModel(sub)
		if err != nil {
			return nil, err
		}
		agree := 0
		for i, x := range test {
			if cc.DECCNearest(mm.Predict(x)) == kq[i] {
				agree++
			}
		}
		out = append(out, TreePoint{Trees: n, ValidRMSE: res.ValidRMSE[n-1], Agreement: float64(agree) / float64(len(test))})
	}
	return out, nil
}
