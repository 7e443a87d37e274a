package pidnn

import "github.com/ccsim/ccsim/cc/pidnnmodel"

// PaperTable1 is the paper's MAPE per epoch (Table 1, fractions): training
// and test, epochs 1–19.
var PaperTable1 = [2][19]float64{
	{0.113, 0.089, 0.083, 0.064, 0.061, 0.050, 0.052, 0.055, 0.051, 0.046, 0.044, 0.042, 0.039, 0.040, 0.042, 0.040, 0.040, 0.036, 0.035},
	{0.081, 0.079, 0.059, 0.083, 0.058, 0.067, 0.053, 0.045, 0.044, 0.042, 0.045, 0.039, 0.044, 0.037, 0.043, 0.035, 0.038, 0.042, 0.036},
}

// Log is the training log written as train.json.
type Log struct {
	Paper    string       `json:"paper"`
	Scenario string       `json:"scenario"`
	Seed     uint64       `json:"seed"`
	Config   configLog    `json:"config"`
	Dataset  DatasetLog   `json:"dataset"`
	Epochs   []EpochLog   `json:"epochs"`
	GainRuns []GainRunLog `json:"gain_runs"`
	// LongFlow is the flow with the most gain updates (the lowest id among
	// equals), whose gains are shipped: Gains. LongFlowTrace is its gains
	// at every tenth of its updates.
	LongFlow      int32            `json:"long_flow"`
	Gains         pidnnmodel.Gains `json:"gains"`
	LongFlowTrace []GainPoint      `json:"long_flow_trace"`
	// KpGrad counts the gain updates with ∂J/∂K_p > 0 (each lowers K_p)
	// among all updates of every flow and run.
	KpGrad    GradSignLog `json:"kp_grad"`
	Converged bool        `json:"converged"`
}

// GradSignLog is how many of Updates had a positive gradient.
type GradSignLog struct {
	Positive int64 `json:"positive"`
	Updates  int64 `json:"updates"`
}

// GainPoint is a flow's gains after Updates of its gain updates, with the
// path Σ|Δ| of each gain since the previous point.
type GainPoint struct {
	Updates int64            `json:"updates"`
	Gains   pidnnmodel.Gains `json:"gains"`
	Path    pidnnmodel.Gains `json:"path"`
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
	// Samples and Pairs per source ("timely": the TIMELY collection run;
	// "pid": the PID-only gain-training runs): RTT samples and
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

// GainRunLog is one online gain training run (PID only, every flow its
// own controller): the run's updates (and those with ∂J/∂K_p > 0), the
// largest change of any flow's gain over the run, the run's mean FCT and
// finish time, and every flow's outcome.
type GainRunLog struct {
	Run            int           `json:"run"`
	MeanJ          float64       `json:"mean_j"` // mean of J = ½(R − rtt_target)² (µs²) over the run's updates
	Updates        int64         `json:"updates"`
	KpGradPositive int64         `json:"kp_grad_positive"`
	MaxChange      float64       `json:"max_change"`
	FCTMeanUs      float64       `json:"fct_mean_us"`
	FinishUs       float64       `json:"finish_us"`
	Flows          []FlowGainLog `json:"flows"`
}

// FlowGainLog is one flow of a gain-training run: its size, RTT samples in
// the run, gain updates so far (earlier runs included), gains after the
// run, and the run's updates with ∂J/∂K_p > 0.
type FlowGainLog struct {
	Flow           int32            `json:"flow"`
	SizeBytes      int64            `json:"size_bytes"`
	Samples        int              `json:"samples"`
	Updates        int64            `json:"updates"`
	Gains          pidnnmodel.Gains `json:"gains"`
	KpGradPositive int64            `json:"kp_grad_positive"`
}
