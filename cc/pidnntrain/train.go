// Package pidnntrain is the training pipeline of paper 001's PIDNN
// controller (`ccsim train pidnn`; docs/algorithms/pidnn.md §9): it
// simulates the RTT collection runs of the 20:1 incast (TIMELY and the
// untrained PID controller), builds the LSTM predictor's dataset with the
// four-range balanced sampling, trains the predictor (19 epochs of 800
// training and 200 test pairs, Adam at 0.001 with one step per pair, MAE) reporting MAPE per epoch
// beside the paper's Table 1, then trains the PID gains online in repeated
// incast runs with the predictor in the loop, and returns the model files.
// Everything is deterministic: the same configuration and seed give the same
// bytes.
package pidnntrain

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/cc/pidnnmodel"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/ml/nn"
	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/sim"
)

// Config is what a training run depends on.
type Config struct {
	Seed       uint64  // LSTM initialisation, dataset draws, shuffles, and the simulations' seed
	Epochs     int     // predictor epochs (19)
	TrainPairs int     // training pairs drawn per epoch (800)
	TestPairs  int     // test pairs drawn per epoch (200)
	BatchSize  int     // Adam mini-batch (1: one step per pair; unspecified by the paper, I18)
	LR         float64 // Adam learning rate (0.001)
	MaxPairs   int     // size of the balanced dataset at most (the paper's 19,058, I17)
	Sigma      float64 // EWMA σ of the features (0.2)
	// GainRuns bounds the online gain training runs; training stops earlier
	// when no gain moves by more than GainTol over a run (I13).
	GainRuns     int
	GainTol      float64
	Training     cc.PIDNNTraining // μ scale, clip, β
	InitialGains pidnnmodel.Gains // [−0.2, −0.05, 0.1]
	RTTTargetUs  float64          // rtt_target of the PID runs (5 µs)
	Workers      int              // parallel collection runs (0 = 2)
	// ScenarioYAML is the incast the runs simulate; nil = the built-in
	// default scenario (the 20:1 incast of paper 001). It must not have cc:
	// or params: sections (the pipeline sets them).
	ScenarioYAML []byte
}

// DefaultConfig returns the paper's training set-up (docs/algorithms/pidnn.md §9).
func DefaultConfig() Config {
	return Config{
		Seed: 1, Epochs: 19, TrainPairs: 800, TestPairs: 200, BatchSize: 1, LR: 0.001,
		MaxPairs: 19058, Sigma: 0.2, GainRuns: 1, GainTol: 1e-4,
		Training: cc.DefaultPIDNNTraining(), InitialGains: pidnnmodel.PaperInitialGains,
		RTTTargetUs: 5,
	}
}

// Validate checks every field's range.
func (c *Config) Validate() error {
	switch {
	case c.Epochs < 1 || c.Epochs > 10000:
		return fmt.Errorf("epochs = %d out of range [1, 10000]", c.Epochs)
	case c.TrainPairs < 1 || c.TrainPairs > 1e7:
		return fmt.Errorf("train pairs = %d out of range [1, 1e7]", c.TrainPairs)
	case c.TestPairs < 1 || c.TestPairs > 1e7:
		return fmt.Errorf("test pairs = %d out of range [1, 1e7]", c.TestPairs)
	case c.BatchSize < 1 || c.BatchSize > c.TrainPairs:
		return fmt.Errorf("batch size = %d out of range [1, train pairs = %d]", c.BatchSize, c.TrainPairs)
	case !(c.LR > 0 && c.LR <= 1):
		return fmt.Errorf("learning rate = %v out of range (0, 1]", c.LR)
	case c.MaxPairs < c.TrainPairs+c.TestPairs || c.MaxPairs > 1e8:
		return fmt.Errorf("max pairs = %d out of range [train + test pairs = %d, 1e8]", c.MaxPairs, c.TrainPairs+c.TestPairs)
	case !(c.Sigma > 0 && c.Sigma <= 1):
		return fmt.Errorf("sigma = %v out of range (0, 1]", c.Sigma)
	case c.GainRuns < 0 || c.GainRuns > 1000:
		return fmt.Errorf("gain runs = %d out of range [0, 1000]", c.GainRuns)
	case !(c.GainTol >= 0 && c.GainTol <= 1):
		return fmt.Errorf("gain tolerance = %v out of range [0, 1]", c.GainTol)
	case !(c.Training.Mu0 > 0 && c.Training.Mu0 <= 1):
		return fmt.Errorf("mu0 = %v out of range (0, 1]", c.Training.Mu0)
	case !(c.Training.Clip > 0 && c.Training.Clip <= 1e6):
		return fmt.Errorf("gradient clip = %v out of range (0, 1e6]", c.Training.Clip)
	case !(c.Training.Beta > 0 && c.Training.Beta <= 1e6):
		return fmt.Errorf("beta = %v out of range (0, 1e6]", c.Training.Beta)
	case c.Training.Updates < 0:
		return fmt.Errorf("training updates = %d, want ≥ 0", c.Training.Updates)
	case !(c.RTTTargetUs > 0 && c.RTTTargetUs <= 1e6):
		return fmt.Errorf("rtt_target_us = %v out of range (0, 1e6]", c.RTTTargetUs)
	case c.Workers < 0 || c.Workers > 1024:
		return fmt.Errorf("workers = %d out of range [0, 1024]", c.Workers)
	}
	if err := c.InitialGains.Check(); err != nil {
		return fmt.Errorf("initial gains: %v", err)
	}
	return nil
}

// KBins are the |K_t| ranges of the balanced sampling (paper 001 §3.3):
// [0, 0.02), [0.02, 0.08), [0.08, 0.15), [0.15, ∞).
var KBins = [4]float64{0, 0.02, 0.08, 0.15}

// kBin returns the range index of |k|.
func kBin(k float64) int {
	a := math.Abs(k)
	for i := len(KBins) - 1; i > 0; i-- {
		if a >= KBins[i] {
			return i
		}
	}
	return 0
}

// PaperTable1 is the paper's MAPE per epoch (Table 1, fractions): training
// and test, epochs 1–19.
var PaperTable1 = [2][19]float64{
	{0.113, 0.089, 0.083, 0.064, 0.061, 0.050, 0.052, 0.055, 0.051, 0.046, 0.044, 0.042, 0.039, 0.040, 0.042, 0.040, 0.040, 0.036, 0.035},
	{0.081, 0.079, 0.059, 0.083, 0.058, 0.067, 0.053, 0.045, 0.044, 0.042, 0.045, 0.039, 0.044, 0.037, 0.043, 0.035, 0.038, 0.042, 0.036},
}

// Log is the training log written as train.json.
type Log struct {
	Paper     string           `json:"paper"`
	Scenario  string           `json:"scenario"`
	Seed      uint64           `json:"seed"`
	Config    configLog        `json:"config"`
	Dataset   DatasetLog       `json:"dataset"`
	Epochs    []EpochLog       `json:"epochs"`
	GainRuns  []GainRunLog     `json:"gain_runs"`
	Gains     pidnnmodel.Gains `json:"gains"`
	Converged bool             `json:"converged"`
}

type configLog struct {
	Epochs       int              `json:"epochs"`
	TrainPairs   int              `json:"train_pairs"`
	TestPairs    int              `json:"test_pairs"`
	BatchSize    int              `json:"batch_size"`
	LR           float64          `json:"lr"`
	MaxPairs     int              `json:"max_pairs"`
	Sigma        float64          `json:"sigma"`
	GainRuns     int              `json:"gain_runs"`
	GainTol      float64          `json:"gain_tol"`
	Mu0          float64          `json:"mu0"`
	Clip         float64          `json:"clip"`
	Beta         float64          `json:"beta"`
	InitialGains pidnnmodel.Gains `json:"initial_gains"`
	RTTTargetUs  float64          `json:"rtt_target_us"`
}

// DatasetLog describes the collected samples and the balanced dataset.
type DatasetLog struct {
	// Samples and Pairs per source run ("timely", "pid"): RTT samples and
	// (input, label) pairs; PairsPerBin per source and |K| range.
	Samples     map[string]int    `json:"samples"`
	Pairs       map[string]int    `json:"pairs"`
	PairsPerBin map[string][4]int `json:"pairs_per_bin"`
	// PerBin is the number drawn from each range; Total = 4·PerBin.
	PerBin int `json:"per_bin"`
	Total  int `json:"total"`
	// MAPE (eq. 13) of two predictors without learning on the balanced
	// dataset, for comparison with the LSTM's: RTT_pred = S_t (out = 0) and
	// RTT_pred = R_t (out = K_t).
	MAPEHoldS float64 `json:"mape_pred_s"`
	MAPEHoldR float64 `json:"mape_pred_r"`
}

// EpochLog is one predictor epoch: the mean training loss (MAE, before each
// batch's step), and after the epoch's updates the MAE and MAPE (eq. 13) on
// the epoch's training and test pairs.
type EpochLog struct {
	Epoch     int     `json:"epoch"`
	TrainLoss float64 `json:"train_loss"`
	TrainMAE  float64 `json:"train_mae"`
	TestMAE   float64 `json:"test_mae"`
	TrainMAPE float64 `json:"train_mape"`
	TestMAPE  float64 `json:"test_mape"`
}

// GainRunLog is one online gain training run: the gains after it, the
// largest change of a gain over it, the updates so far, and the run's mean
// FCT and finish time.
type GainRunLog struct {
	Run       int              `json:"run"`
	MeanJ     float64          `json:"mean_j"` // mean of J = ½(R − rtt_target)² (µs²) over the run's updates
	Gains     pidnnmodel.Gains `json:"gains"`
	MaxChange float64          `json:"max_change"`
	Updates   int64            `json:"updates"`
	FCTMeanUs float64          `json:"fct_mean_us"`
	FinishUs  float64          `json:"finish_us"`
}

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

// sources are the collection runs, in dataset order.
var sources = []string{"timely", "pid"}

// withCC returns the scenario yml running algorithm name with params (a
// YAML flow mapping, may be empty).
func withCC(yml []byte, name, params string) (*scenario.Scenario, error) {
	src := append(append([]byte(nil), yml...), fmt.Sprintf("\ncc: [%q]\n", name)...)
	if params != "" {
		src = append(src, fmt.Sprintf("params: {%q: %s}\n", name, params)...)
	}
	s, err := scenario.Parse(src)
	if err != nil {
		return nil, fmt.Errorf("pidnn training: scenario: %w", err)
	}
	return s, nil
}

// pidParams are the parameters of the PID runs: the defaults with the
// given predictor, gains and target.
func pidParams(cfg Config, predictor string) *cc.PIDNNParams {
	p := cc.PIDNNDefaults()
	p.Predictor = predictor
	p.Gains = cc.PIDNNGainsInitial // no file is read: the run gets its gains directly
	p.RTTTargetUs = cfg.RTTTargetUs
	p.Sigma = cfg.Sigma
	return p
}

// collect runs the RTT collection simulations (in parallel with
// cfg.Workers ≥ 2) and returns each source's per-flow sample sequences (µs,
// flows in id order) and the scenario's name.
func collect(cfg Config, yml []byte) (map[string][][]float64, string, error) {
	out := map[string][][]float64{}
	errs := make([]error, len(sources))
	seqs := make([][][]float64, len(sources))
	name := ""
	workers := cfg.Workers
	if workers == 0 {
		workers = 2
	}
	sem := make(chan struct{}, workers)
	var wg sync.WaitGroup
	for i, src := range sources {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			var s *scenario.Scenario
			var err error
			if src == "timely" {
				s, err = withCC(yml, "timely", "")
			} else {
				s, err = withCC(yml, "pid", "{gains: initial}")
			}
			if err != nil {
				errs[i] = err
				return
			}
			if i == 0 {
				name = s.Name
			}
			seqs[i], errs[i] = collectOne(cfg, s, src)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, "", err
	}
	for i, src := range sources {
		out[src] = seqs[i]
	}
	return out, name, nil
}

// collectOne runs one collection simulation and returns the per-flow RTT
// samples taken with paper 001's one-per-RTT rule.
func collectOne(cfg Config, s *scenario.Scenario, src string) ([][]float64, error) {
	b, err := s.Build(s.CC[0], scenario.RunOptions{Seed: cfg.Seed, SeedSet: true})
	if err != nil {
		return nil, fmt.Errorf("pidnn training: %s run: %w", src, err)
	}
	n := len(b.Flows)
	seqs := make([][]float64, n)
	switch src {
	case "timely":
		spec, err := cc.Lookup("timely")
		if err != nil {
			return nil, err
		}
		p := spec.Defaults()
		if err := p.Validate(); err != nil {
			return nil, err
		}
		inner, _ := spec.New(p)
		recs := make([]*recorder, n)
		b.Net.SetAlgorithm(func(q *fabric.QP) fabric.Algorithm {
			r := &recorder{Algorithm: inner(q)}
			recs[q.ID] = r
			return r
		})
		res := b.Run()
		if err := unfinished(res, src); err != nil {
			return nil, err
		}
		for i, r := range recs {
			if r == nil {
				continue
			}
			if r.conflict {
				return nil, fmt.Errorf("pidnn training: timely uses the send hook; its RTT samples cannot be recorded")
			}
			seqs[i] = r.samples
		}
	case "pid":
		run, err := cc.NewPIDNNRun(pidParams(cfg, "none"), nil, cfg.InitialGains)
		if err != nil {
			return nil, err
		}
		run.Record()
		b.Net.SetAlgorithm(run.New)
		res := b.Run()
		if err := unfinished(res, src); err != nil {
			return nil, err
		}
		for _, c := range run.Senders() {
			seqs[c.Flow] = c.Samples
		}
	}
	return seqs, nil
}

// unfinished reports a collection or training run whose flows did not all
// finish (its samples would miss the end of the flows).
func unfinished(res *scenario.Result, what string) error {
	if res.Summary.Unfinished > 0 {
		return fmt.Errorf("pidnn training: the %s run left %d of %d flows unfinished (raise stop_ms)", what, res.Summary.Unfinished, res.Summary.Flows)
	}
	return nil
}

// recorder takes paper 001's RTT samples of another algorithm's flow (the
// TIMELY collection run) without changing what that algorithm does. The
// inner algorithm must not use the send hook.
type recorder struct {
	fabric.Algorithm
	smp      cc.RTTSampler
	samples  []float64
	conflict bool
}

func (r *recorder) Start(q *fabric.QP, now sim.Time) {
	r.Algorithm.Start(q, now)
	r.conflict = q.WantSendHook
	r.smp.Start(q)
}

func (r *recorder) OnSend(q *fabric.QP, size int, now sim.Time) { r.smp.OnSend(q, now) }

func (r *recorder) OnAck(q *fabric.QP, a *fabric.AckInfo, now sim.Time) {
	if rtt, ok := r.smp.OnAck(q, a, now); ok {
		r.samples = append(r.samples, float64(rtt)/float64(sim.Microsecond))
	}
	r.Algorithm.OnAck(q, a, now)
}

func (r *recorder) OnTimeout(q *fabric.QP, now sim.Time) {
	r.smp.Abandon(q)
	if t, ok := r.Algorithm.(fabric.TimeoutAlgorithm); ok {
		t.OnTimeout(q, now)
	}
}

// Pairs returns the (input, label) pairs of one flow's RTT samples R (µs):
// for t = 2 … len(R)−2, input [K_{t−2}, K_{t−1}, K_t] and label
// L_t = (R_{t+1} − S_t)/S_t, with S and K computed as the controller does
// (eqs. 2, 3).
func Pairs(R []float64, sigma float64) (x [][]float64, y [][]float64) {
	if len(R) < 4 {
		return nil, nil
	}
	S := make([]float64, len(R))
	K := make([]float64, len(R))
	for t, r := range R {
		if t == 0 {
			S[t] = r
		} else {
			S[t] = float64(sigma*r) + float64((1-sigma)*S[t-1])
		}
		K[t] = (r - S[t]) / S[t]
	}
	for t := 2; t+1 < len(R); t++ {
		x = append(x, []float64{K[t-2], K[t-1], K[t]})
		y = append(y, []float64{(R[t+1] - S[t]) / S[t]})
	}
	return x, y
}

// buildDataset turns the sample sequences into pairs and draws the
// balanced dataset: the same number from each |K_t| range, PerBin =
// min(smallest range, MaxPairs/4), without replacement (I17).
func buildDataset(cfg Config, seqs map[string][][]float64, r *rand.Rand) (nn.Dataset, DatasetLog, error) {
	dl := DatasetLog{Samples: map[string]int{}, Pairs: map[string]int{}, PairsPerBin: map[string][4]int{}}
	var bins [4][]int
	all := nn.Dataset{Steps: pidnnmodel.Steps}
	for _, src := range sources {
		var pb [4]int
		for _, R := range seqs[src] {
			dl.Samples[src] += len(R)
			x, y := Pairs(R, cfg.Sigma)
			for i := range x {
				k := kBin(x[i][2])
				bins[k] = append(bins[k], len(all.X))
				pb[k]++
				all.X = append(all.X, x[i])
				all.Y = append(all.Y, y[i])
			}
			dl.Pairs[src] += len(x)
		}
		dl.PairsPerBin[src] = pb
	}
	per := cfg.MaxPairs / 4
	for _, b := range bins {
		per = min(per, len(b))
	}
	need := (cfg.TrainPairs + cfg.TestPairs + 3) / 4
	if per < need {
		return nn.Dataset{}, dl, fmt.Errorf("pidnn training: the smallest |K| range has %d pairs; the balanced dataset needs at least %d per range for %d + %d pairs per epoch (ranges %v: %d, %d, %d, %d pairs)",
			per, need, cfg.TrainPairs, cfg.TestPairs, KBins, len(bins[0]), len(bins[1]), len(bins[2]), len(bins[3]))
	}
	var idx []int
	for _, b := range bins {
		for i := range per { // partial Fisher–Yates: the first per of a shuffle
			j := i + r.IntN(len(b)-i)
			b[i], b[j] = b[j], b[i]
		}
		idx = append(idx, b[:per]...)
	}
	d, err := all.Subset(idx)
	if err != nil {
		return nn.Dataset{}, dl, err
	}
	dl.PerBin, dl.Total = per, len(idx)
	for i := range d.X {
		L := d.Y[i][0]
		dl.MAPEHoldS += math.Abs(L) / (1 + L)
		dl.MAPEHoldR += math.Abs(d.X[i][2]-L) / (1 + L)
	}
	dl.MAPEHoldS /= float64(len(d.X))
	dl.MAPEHoldR /= float64(len(d.X))
	return d, dl, nil
}

// MAPE returns eq. (13)'s mean absolute percentage error of m on d as a
// fraction: mean |out − L|/(1 + L), the relative error of RTT_pred = (1 +
// out)·S against the true next RTT (1 + L)·S.
func MAPE(m *nn.Sequential, ws *nn.Workspace, d nn.Dataset) (float64, error) {
	s := 0.0
	for i := range d.X {
		out, err := m.Forward(ws, d.X[i], d.Steps)
		if err != nil {
			return 0, err
		}
		L := d.Y[i][0]
		s += math.Abs(out[0]-L) / (1 + L)
	}
	return s / float64(len(d.X)), nil
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
		b, err := s.Build("pid", scenario.RunOptions{Seed: cfg.Seed, SeedSet: true})
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
