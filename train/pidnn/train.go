// Package pidnn is the training pipeline of paper 001's PIDNN controller
// (`ccsim train pidnn`; docs/algorithms/pidnn.md §9): it simulates the
// 20:1 incast with TIMELY (RTT collection) and with the untrained PID alone
// training its gains online, every flow its own controller (paper §3.5.3);
// builds the LSTM predictor's dataset from the samples of both runs with
// the four-range balanced sampling (§3.4.2); trains the predictor (19
// epochs of 800 training and 200 test pairs, Adam at 0.001 with one step
// per pair, MAE) reporting MAPE per epoch beside the paper's Table 1; and
// returns the model files, with the long flow's gains. Everything is
// deterministic: the same configuration and seed give the same bytes.
//
// It lives outside cc (beside experiment/papers/pidnn, which imports it as
// pidnntrain) because it builds its runs through scenario and
// scenario/assemble, which sit above the algorithms.
package pidnn

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/ccsim/ccsim/cc/pidnnmodel"
	"github.com/ccsim/ccsim/ml/nn"
	"github.com/ccsim/ccsim/scenario"
)

// Result is the outcome of a training run.
type Result struct {
	Log       Log
	Predictor *nn.Sequential
	// Files are the model directory's files by name (pidnnmodel.PredictorFile,
	// GainsFile, LogFile).
	Files map[string][]byte
}

// WriteDir writes the files into dir (created if needed), each atomically.
func (r *Result) WriteDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, name := range []string{pidnnmodel.PredictorFile, pidnnmodel.GainsFile, pidnnmodel.LogFile} {
		path := filepath.Join(dir, name)
		tmp := path + ".tmp"
		if err := os.WriteFile(tmp, r.Files[name], 0o644); err != nil {
			return err
		}
		if err := os.Rename(tmp, path); err != nil {
			os.Remove(tmp)
			return err
		}
	}
	return nil
}

// Run executes the pipeline; progress (may be nil) receives the report:
// dataset, MAPE per epoch beside the paper's, gains per run, wall times.
func Run(cfg Config, progress io.Writer) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("pidnn training: %w", err)
	}
	if progress == nil {
		progress = io.Discard
	}
	yml := cfg.ScenarioYAML
	if yml == nil {
		yml = scenario.DefaultYAML()
	}
	t0 := time.Now()
	lg := Log{
		Paper: "001 (PIDNN)", Seed: cfg.Seed,
		Config: configLog{
			Epochs: cfg.Epochs, TrainPairs: cfg.TrainPairs, TestPairs: cfg.TestPairs, BatchSize: cfg.BatchSize,
			LR: cfg.LR, MaxPairs: cfg.MaxPairs, Sigma: cfg.Sigma, GainRuns: cfg.GainRuns, GainTol: cfg.GainTol,
			Mu0: cfg.Training.Mu0, Clip: cfg.Training.Clip, Beta: cfg.Training.Beta,
			InitialGains: cfg.InitialGains, RTTTargetUs: cfg.RTTTargetUs,
		},
	}

	// 1. RTT collection (E1a) with TIMELY and 2. the online gain training
	// with PID alone, per flow (§3.5.3), in parallel with 2 workers
	var tseq [][]float64
	var name string
	var cerr error
	done := make(chan struct{})
	collectTimely := func() { tseq, name, cerr = collect(cfg, yml); close(done) }
	if cfg.Workers == 1 {
		collectTimely()
	} else {
		go collectTimely()
	}
	gt, err := trainGains(cfg, yml, progress)
	<-done
	if err != nil {
		return nil, err
	}
	if cerr != nil {
		return nil, cerr
	}
	lg.Scenario = name
	lg.GainRuns, lg.Converged = gt.runs, gt.converged
	lg.LongFlow, lg.Gains, lg.LongFlowTrace = gt.long.Flow, gt.long.Gains, gt.trace
	lg.KpGrad = GradSignLog{Positive: gt.kpPos, Updates: gt.updates}
	state := "converged"
	if !gt.converged {
		state = fmt.Sprintf("not converged after %d runs", len(gt.runs))
	}
	gains := gt.long.Gains
	fmt.Fprintf(progress, "gains of the long flow %d (%d updates) [K_p, K_i, K_d] = [%.4f, %.4f, %.4f] (%s; paper: [−0.358, −0.060, 0.040]); ∂J/∂K_p > 0 in %d of %d updates (%.1f s)\n",
		gt.long.Flow, gt.long.Updates, gains.Kp, gains.Ki, gains.Kd, state, gt.kpPos, gt.updates, time.Since(t0).Seconds())

	// 3. dataset with the balanced sampling (I16, I17): TIMELY's samples
	// and those of the gain-training runs (§3.4.2)
	fmt.Fprintf(progress, "dataset from the runs on %s: ", name)
	r := nn.NewRand(cfg.Seed)
	data, dl, err := buildDataset(cfg, map[string][][]float64{"timely": tseq, "pid": gt.seqs}, r)
	if err != nil {
		return nil, err
	}
	lg.Dataset = dl
	for _, src := range sources {
		fmt.Fprintf(progress, "%s %d samples, %d pairs %v; ", src, dl.Samples[src], dl.Pairs[src], dl.PairsPerBin[src])
	}
	fmt.Fprintf(progress, "balanced: %d per |K| range, %d pairs\n", dl.PerBin, dl.Total)
	fmt.Fprintf(progress, "MAPE on the balanced dataset without learning: RTT_pred = S_t %.4f, RTT_pred = R_t %.4f\n", dl.MAPEHoldS, dl.MAPEHoldR)

	// 4. predictor training (E1b, Table 1)
	t1 := time.Now()
	m, epochs, err := trainPredictor(cfg, data, r)
	if err != nil {
		return nil, err
	}
	lg.Epochs = epochs
	fmt.Fprintf(progress, "LSTM predictor: %d epochs × %d/%d pairs, Adam lr %v, batch %d, MAE (%.1f s)\n",
		cfg.Epochs, cfg.TrainPairs, cfg.TestPairs, cfg.LR, cfg.BatchSize, time.Since(t1).Seconds())
	fmt.Fprintln(progress, "epoch  train MAPE (paper)   test MAPE (paper)   train MAE   test MAE")
	for i, e := range epochs {
		pt, ps := "  -  ", "  -  "
		if i < 19 {
			pt, ps = fmt.Sprintf("%.3f", PaperTable1[0][i]), fmt.Sprintf("%.3f", PaperTable1[1][i])
		}
		fmt.Fprintf(progress, "%5d  %10.4f (%s)   %9.4f (%s)   %9.5f  %9.5f\n", e.Epoch, e.TrainMAPE, pt, e.TestMAPE, ps, e.TrainMAE, e.TestMAE)
	}

	// 5. files
	last := epochs[len(epochs)-1]
	meta := fmt.Sprintf("paper 001 LSTM RTT predictor: input [K_{t-2}, K_{t-1}, K_t], output L_t; "+
		"ccsim train pidnn, seed %d, scenario %s; dataset %d pairs (%d per |K| range) from the TIMELY run and the PID-only gain-training runs; "+
		"%d epochs x %d/%d pairs, Adam lr %v batch %d, MAE; last epoch test MAPE %.4f",
		cfg.Seed, name, dl.Total, dl.PerBin, cfg.Epochs, cfg.TrainPairs, cfg.TestPairs, cfg.LR, cfg.BatchSize, last.TestMAPE)
	pb, err := nn.Encode(m, meta)
	if err != nil {
		return nil, err
	}
	gmeta := fmt.Sprintf("paper 001 PID gains [K_p, K_i, K_d] as one neuron's weights (bias 0); ccsim train pidnn, seed %d, scenario %s; "+
		"online training of PID alone, one controller per flow, from [%v, %v, %v], %d runs (%s); the long flow %d's gains after its %d updates; mu0 %v, clip %v, beta %v",
		cfg.Seed, name, cfg.InitialGains.Kp, cfg.InitialGains.Ki, cfg.InitialGains.Kd, len(gt.runs), state,
		gt.long.Flow, gt.long.Updates, cfg.Training.Mu0, cfg.Training.Clip, cfg.Training.Beta)
	gb, err := pidnnmodel.EncodeGains(gains, gmeta)
	if err != nil {
		return nil, err
	}
	var js bytes.Buffer
	enc := json.NewEncoder(&js)
	enc.SetIndent("", "  ")
	if err := enc.Encode(&lg); err != nil {
		return nil, err
	}
	fmt.Fprintf(progress, "total %.1f s\n", time.Since(t0).Seconds())
	return &Result{Log: lg, Predictor: m, Files: map[string][]byte{
		pidnnmodel.PredictorFile: pb, pidnnmodel.GainsFile: gb, pidnnmodel.LogFile: js.Bytes(),
	}}, nil
}

// trainPredictor trains the LSTM: per epoch TrainPairs + TestPairs pairs
// drawn afresh (the first TrainPairs train, the rest test), one pass of Adam
// mini-batches over the training pairs, then MAE and MAPE on both (I18).
func trainPredictor(cfg Config, data nn.Dataset, r *rand.Rand) (*nn.Sequential, []EpochLog, error) {
	m := pidnnmodel.NewPredictor()
	m.Init(r)
	ac := nn.DefaultAdam()
	ac.LR = cfg.LR
	opt, err := nn.NewAdam(m.Params(), ac)
	if err != nil {
		return nil, nil, err
	}
	tr, err := nn.NewTrainer(m, opt, nn.MAE, cfg.BatchSize, r)
	if err != nil {
		return nil, nil, err
	}
	ws := m.NewWorkspace(pidnnmodel.Steps)
	n := cfg.TrainPairs + cfg.TestPairs
	var log []EpochLog
	for e := 1; e <= cfg.Epochs; e++ {
		d, err := data.Sample(r, n)
		if err != nil {
			return nil, nil, err
		}
		train := nn.Dataset{X: d.X[:cfg.TrainPairs], Y: d.Y[:cfg.TrainPairs], Steps: d.Steps}
		test := nn.Dataset{X: d.X[cfg.TrainPairs:], Y: d.Y[cfg.TrainPairs:], Steps: d.Steps}
		loss, err := tr.Epoch(train)
		if err != nil {
			return nil, nil, fmt.Errorf("pidnn training: epoch %d: %w", e, err)
		}
		el := EpochLog{Epoch: e, TrainLoss: loss}
		if el.TrainMAE, err = nn.Evaluate(m, ws, nn.MAE, train); err != nil {
			return nil, nil, err
		}
		if el.TestMAE, err = nn.Evaluate(m, ws, nn.MAE, test); err != nil {
			return nil, nil, err
		}
		if el.TrainMAPE, err = MAPE(m, ws, train); err != nil {
			return nil, nil, err
		}
		if el.TestMAPE, err = MAPE(m, ws, test); err != nil {
			return nil, nil, err
		}
		log = append(log, el)
	}
	return m, log, nil
}
