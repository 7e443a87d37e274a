package compress

import (
	"flag"
	"fmt"
	"testing"

	"github.com/ccsim/ccsim/ml/nn"
)

var (
	reportFlag   = flag.Bool("compress.report", false, "run the DECC-size compression report (about a minute; figures for docs/compress.md)")
	reportEpochs = flag.Int("compress.epochs", 20, "fine-tuning epochs of the report (decc.md §1.8: N_e = 20)")
)

// seqTask is teacherTask for sequences: n inputs of steps×in values, out
// targets y_j = sin(a_j·x + c_j) over the flattened sequence.
func seqTask(seed uint64, n, steps, in, out int) nn.Dataset {
	d := teacherTask(seed, n, steps*in, out)
	d.Steps = steps
	return d
}

// stage reports one model's figures against the teacher.
func stage(t *testing.T, name string, teacher, m *nn.Sequential, test [][]float64, steps int) {
	t.Helper()
	d := must[float64](t)(Discrepancy(teacher, m, test, steps))
	c := must[Cost](t)(ModelCost(m, steps))
	t.Logf("  %-28s discrepancy %6.2f %%  MACs %6d nonzero %6d  FLOPs %6d nonzero %6d", name, 100*d, c.MACs, c.NonzeroMACs, c.FLOPs, c.NonzeroFLOPs)
}

// compressReport trains a teacher on a synthetic task, compresses it
// (p* 0.65, 4 bits, the given scope), fine-tunes it by distillation (20
// epochs, batch 192) and logs every figure.
func compressReport(t *testing.T, name string, m *nn.Sequential, steps int, scope Scope) {
	train := seqTask(1, 4096, steps, m.InSize(), m.OutSize())
	test := seqTask(2, 1024, steps, m.InSize(), m.OutSize()).X
	m.Init(nn.NewRand(1))
	loss := trainTeacher(t, m, train, 40)
	cfg := DefaultConfig()
	cfg.Scope = scope
	c, rep, err := Compress(m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s, %v scope: teacher training MSE %.4g", name, scope, loss)
	logReport(t, rep)
	stage(t, "teacher (float)", m, m, test, steps)
	stage(t, "pruned only (float)", m, c.Shadow, test, steps)
	stage(t, "pruned + 4-bit", m, c.Quant, test, steps)
	ft := DefaultFineTune()
	ft.Epochs = *reportEpochs
	losses, err := FineTune(c, m, train.X, steps, ft)
	if err != nil {
		t.Fatal(err)
	}
	stage(t, fmt.Sprintf("after %d epochs STE", ft.Epochs), m, c.Quant, test, steps)
	pm := must[*PackedModel](t)(Pack(c))
	b := must[[]byte](t)(EncodePacked(pm))
	t.Logf("  fine-tune loss %.4g → %.4g; sizes: float32 %d B, int4 packed file %d B (%.2f×)",
		losses[0], losses[len(losses)-1], Float32Bytes(m), len(b), float64(Float32Bytes(m))/float64(len(b)))
}

// TestReportDECC prints the figures of docs/compress.md: run with
//
//	go test ./ml/compress -run TestReportDECC -v -compress.report
func TestReportDECC(t *testing.T) {
	if !*reportFlag {
		t.Skip("run with -compress.report")
	}
	compressReport(t, "DECC-size MLP 5→128→64→32→32→16→11", deccMLP(t), 1, Global)
	compressReport(t, "DECC-size MLP 5→128→64→32→32→16→11", deccMLP(t), 1, PerLayer)
	compressReport(t, "DECC actor (LSTM), 5 steps", deccActor(t), 5, Global)
	// real trained weights: paper 001's shipped LSTM predictor
	m, _, err := nn.LoadFile("../../cc/pidnnmodel/predictor.bin")
	if err != nil {
		t.Fatal(err)
	}
	for _, scope := range []Scope{Global, PerLayer} {
		cfg := DefaultConfig()
		cfg.Scope = scope
		_, rep, err := Compress(m, cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("pidnn predictor (shipped, trained), %v scope:", scope)
		logReport(t, rep)
	}
}
