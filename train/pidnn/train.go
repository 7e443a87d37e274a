// Package pidnn is the training pipeline of paper 001's PIDNN controller
// (`ccsim train pidnn`; docs/algorithms/pidnn.md §9): it simulates the RTT
// collection runs of the 20:1 incast (TIMELY and the untrained PID
// controller), builds the LSTM predictor's dataset with the four-range
// balanced sampling, trains the predictor (19 epochs of 800 training and
// 200 test pairs, Adam at 0.001 with one step per pair, MAE) reporting MAPE
// per epoch beside the paper's Table 1, then trains the PID gains online in
// repeated incast runs with the predictor in the loop, and returns the
// model files. Everything is deterministic: the same configuration and seed
// give the same bytes.
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
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/cc/pidnnmodel"
	"github.com/ccsim/ccsim/ml/nn"
	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/scenario/assemble"
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

	// 1. RTT collection (E1a): TIMELY and the untrained PID on the incast
	seqs, name, err := collect(cfg, yml)
	if err != nil {
		return nil, err
	}
	lg.Scenario = name
	fmt.Fprintf(progress, "RTT collection on %s (%.1f s): ", name, time.Since(t0).Seconds())

	// 2. dataset with the balanced sampling (I16, I17)
	r := nn.NewRand(cfg.Seed)
	data, dl, err := buildDataset(cfg, seqs, r)
	if err != nil {
		return nil, err
	}
	lg.Dataset = dl
	for _, src := range sources {
		fmt.Fprintf(progress, "%s %d samples, %d pairs %v; ", src, dl.Samples[src], dl.Pairs[src], dl.PairsPerBin[src])
	}
	fmt.Fprintf(progress, "balanced: %d per |K| range, %d pairs\n", dl.PerBin, dl.Total)
	fmt.Fprintf(progress, "MAPE on the balanced dataset without learning: RTT_pred = S_t %.4f, RTT_pred = R_t %.4f\n", dl.MAPEHoldS, dl.MAPEHoldR)

	// 3. predictor training (E1b, Table 1)
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

	// 4. online gain training with the predictor in the loop (§3.5)
	t2 := time.Now()
	gains, runs, converged, err := trainGains(cfg, yml, m, progress)
	if err != nil {
		return nil, err
	}
	lg.GainRuns, lg.Gains, lg.Converged = runs, gains, converged
	state := "converged"
	if !converged {
		state = fmt.Sprintf("not converged after %d runs", len(runs))
	}
	fmt.Fprintf(progress, "gains [K_p, K_i, K_d] = [%.4f, %.4f, %.4f] (%s; paper: [−0.358, −0.060, 0.040]) (%.1f s)\n",
		gains.Kp, gains.Ki, gains.Kd, state, time.Since(t2).Seconds())

	// 5. files
	last := epochs[len(epochs)-1]
	meta := fmt.Sprintf("paper 001 LSTM RTT predictor: input [K_{t-2}, K_{t-1}, K_t], output L_t; "+
		"ccsim train pidnn, seed %d, scenario %s; dataset %d pairs (%d per |K| range) from TIMELY and untrained-PID runs; "+
		"%d epochs x %d/%d pairs, Adam lr %v batch %d, MAE; last epoch test MAPE %.4f",
		cfg.Seed, name, dl.Total, dl.PerBin, cfg.Epochs, cfg.TrainPairs, cfg.TestPairs, cfg.LR, cfg.BatchSize, last.TestMAPE)
	pb, err := nn.Encode(m, meta)
	if err != nil {
		return nil, err
	}
	gmeta := fmt.Sprintf("paper 001 PID gains [K_p, K_i, K_d] as one neuron's weights (bias 0); ccsim train pidnn, seed %d, scenario %s; "+
		"online training from [%v, %v, %v], %d runs (%s), %d updates, mu0 %v, clip %v, beta %v",
		cfg.Seed, name, cfg.InitialGains.Kp, cfg.InitialGains.Ki, cfg.InitialGains.Kd, len(runs), state,
		runsUpdates(runs, cfg.Training.Updates), cfg.Training.Mu0, cfg.Training.Clip, cfg.Training.Beta)
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

func runsUpdates(runs []GainRunLog, start int64) int64 {
	if len(runs) == 0 {
		return start
	}
	return runs[len(runs)-1].Updates
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

// trainGains runs the incast with PIDNN (the trained predictor in the loop)
// and online gain training, again and again, each run starting from the
// previous run's gains and update count, until no gain moves by more than
// GainTol over a run or GainRuns runs are done (I12, I13).
func trainGains(cfg Config, yml []byte, m *nn.Sequential, progress io.Writer) (pidnnmodel.Gains, []GainRunLog, bool, error) {
	g := cfg.InitialGains
	tr := cfg.Training
	var runs []GainRunLog
	s, err := withCC(yml, "pid", "{gains: initial}")
	if err != nil {
		return g, nil, false, err
	}
	for k := 1; k <= cfg.GainRuns; k++ {
		t0 := time.Now()
		b, err := assemble.Build(s, "pid", assemble.Options{Seed: cfg.Seed, SeedSet: true})
		if err != nil {
			return g, nil, false, err
		}
		run, err := cc.NewPIDNNRun(pidParams(cfg, "lstm"), m, g)
		if err != nil {
			return g, nil, false, err
		}
		run.Train(tr)
		b.Net.SetAlgorithm(run.New)
		res := b.Run()
		if err := unfinished(res, "gain training"); err != nil {
			return g, nil, false, err
		}
		ng := run.Gains()
		if err := ng.Check(); err != nil {
			return g, nil, false, fmt.Errorf("pidnn training: gains diverged in run %d: %v", k, err)
		}
		change := max(math.Abs(ng.Kp-g.Kp), math.Abs(ng.Ki-g.Ki), math.Abs(ng.Kd-g.Kd))
		g = ng
		tr.Updates = run.Updates()
		runs = append(runs, GainRunLog{Run: k, MeanJ: run.MeanJ(), Gains: g, MaxChange: change, Updates: tr.Updates,
			FCTMeanUs: res.Summary.All.FCTUs.Mean, FinishUs: res.Summary.FinishTimeUs})
		fmt.Fprintf(progress, "gain run %2d: [K_p, K_i, K_d] = [%.5f, %.5f, %.5f], largest change %.2e, %d updates, mean J %.3f µs², mean FCT %.1f µs, finish %.1f µs (%.1f s)\n",
			k, g.Kp, g.Ki, g.Kd, change, tr.Updates, run.MeanJ(), res.Summary.All.FCTUs.Mean, res.Summary.FinishTimeUs, time.Since(t0).Seconds())
		if change <= cfg.GainTol {
			return g, runs, true, nil
		}
	}
	return g, runs, false, nil
}
