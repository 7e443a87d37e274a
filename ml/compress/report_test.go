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
	reportShort  = flag.Bool("compress.mlponly", false, "leave the actor (LSTM) out of the report")
)

// seqTask is teacherTaskFreq for sequences: n inputs of steps×in values,
// out targets y_j = sin(a_j·x + c_j) over the flattened sequence.
func seqTask(seed uint64, n, steps, in, out int, freq float64) nn.Dataset {
	d := teacherTaskFreq(seed, n, steps*in, out, freq)
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

// compressReport trains a teacher on a synthetic task of frequency freq,
// compresses it with cfg, fine-tunes it by distillation (-compress.epochs
// epochs, batch 192) and logs every figure.
func compressReport(t *testing.T, name string, m *nn.Sequential, steps int, freq float64, cfg Config) {
	train := seqTask(1, 4096, steps, m.InSize(), m.OutSize(), freq)
	test := seqTask(2, 1024, steps, m.InSize(), m.OutSize(), freq).X
	m.Init(nn.NewRand(1))
	loss := trainTeacher(t, m, train, 40)
	c, rep, err := Compress(m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s, task frequency %v, p* %v, %d bits, %v scope, %v step: teacher training MSE %.4g", name, freq, cfg.Sparsity, cfg.Bits, cfg.Scope, cfg.Step, loss)
	logReport(t, rep)
	stage(t, "teacher (float)", m, m, test, steps)
	stage(t, "pruned only (float)", m, c.Shadow, test, steps)
	stage(t, "pruned + quantised", m, c.Quant, test, steps)
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
	const mlp = "DECC-size MLP 5→128→64→32→32→16→11"
	with := func(p float64, bits int, scope Scope) Config {
		c := DefaultConfig()
		c.Sparsity, c.Bits, c.Scope = p, bits, scope
		return c
	}
	compressReport(t, mlp, deccMLP(t), 1, 2, DefaultConfig())
	compressReport(t, mlp, deccMLP(t), 1, 2, with(0.65, 4, PerLayer))
	compressReport(t, mlp, deccMLP(t), 1, 2, with(0.65, 8, Global)) // pruning's share
	compressReport(t, mlp, deccMLP(t), 1, 2, with(0, 4, Global))    // quantisation's share
	compressReport(t, mlp, deccMLP(t), 1, 0.5, DefaultConfig())     // a smoother teacher
	cover := DefaultConfig()
	cover.Step = StepCover
	compressReport(t, mlp, deccMLP(t), 1, 2, cover) // the covering step
	if !*reportShort {
		compressReport(t, "DECC actor (LSTM), 5 steps", deccActor(t), 5, 2, DefaultConfig())
	}
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
