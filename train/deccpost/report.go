package deccpost

import "github.com/ccsim/ccsim/cc/deccmodel"

// Report is students.json: the stage's configuration, its data, and the
// students' figures on the held-out windows (docs/algorithms/decc.md
// §11.4).
type Report struct {
	Config        Config `json:"config"`
	TeacherSHA256 string `json:"teacher_sha256"` // of the teacher's nn file with empty meta
	// Actor is "continuous" for a continuous teacher (issue 18's `actor:
	// continuous`: labels are its actions, agreement is counted at the
	// nearest of the 11 levels; docs/algorithms/decc.md §10.5), empty for
	// the categorical one.
	Actor string `json:"actor,omitempty"`
	// Episodes and Flows of the recording runs; Recorded windows, of which
	// Train, Valid and Test were used.
	Episodes int `json:"episodes"`
	Flows    int `json:"flows"`
	Recorded int `json:"recorded"`
	Train    int `json:"train"`
	Valid    int `json:"valid"`
	Test     int `json:"test"`
	// TeacherActions is the histogram of the actions the teacher took in
	// the recording runs (a continuous action at its nearest level).
	TeacherActions [deccmodel.Actions]int `json:"teacher_actions"`
	Compression    CompressionReport      `json:"compression"`
	Trees          TreesReport            `json:"trees"`
}

// CompressionReport holds Table 2's figures for the compressed network
// (decc.md §1.8.2; docs/compress.md §7).
type CompressionReport struct {
	Params         int     `json:"params"`          // the teacher's weights and biases
	Weights        int     `json:"weights"`         // weight-matrix entries (pruned and quantised)
	NonzeroWeights int     `json:"nonzero_weights"` // after fine-tuning
	Sparsity       float64 `json:"sparsity"`        // 1 − nonzero / weights
	Bits           int     `json:"bits"`
	Float32Bytes   int     `json:"float32_bytes"` // the teacher as float32
	PackedBytes    int     `json:"packed_bytes"`  // binary.bin
	// FLOPs per decision over the 5-step window (teacher, dense) and the
	// compressed network's nonzero FLOPs; the same over one step (the
	// paper's Table 3 convention, docs/algorithms/decc.md I3).
	FLOPs               int `json:"flops"`
	NonzeroFLOPs        int `json:"nonzero_flops"`
	FLOPsOneStep        int `json:"flops_one_step"`
	NonzeroFLOPsOneStep int `json:"nonzero_flops_one_step"`
	// Output discrepancy (docs/compress.md C12) against the teacher on the
	// held-out windows, before and after fine-tuning.
	DiscrepancyBefore float64 `json:"discrepancy_before_finetune"`
	Discrepancy       float64 `json:"discrepancy"`
	// Agreement: the fraction of held-out windows with the teacher's greedy
	// action; WithinOne: within one level.
	Agreement     float64                `json:"agreement"`
	WithinOne     float64                `json:"within_one"`
	BinaryActions [deccmodel.Actions]int `json:"actions"`
	FineTuneLoss  []float64              `json:"finetune_loss"`
}

// TreesReport holds the distilled trees' fidelity (decc.md §1.9).
type TreesReport struct {
	Label string `json:"label"`
	// Grown trees before early stopping, Trees kept, of depth Depth.
	Grown int `json:"grown"`
	Trees int `json:"trees"`
	Depth int `json:"depth"`
	// RMSE of the scalar against the label: training, validation (the
	// early-stopping split) and held-out windows.
	TrainRMSE float64 `json:"train_rmse"`
	ValidRMSE float64 `json:"valid_rmse"`
	TestRMSE  float64 `json:"test_rmse"`
	// Agreement of the nearest level (the sender's rule, I21) with the
	// compressed network's greedy action on the held-out windows; within
	// one level; and with the teacher's greedy action.
	Agreement        float64                `json:"agreement"`
	WithinOne        float64                `json:"within_one"`
	AgreementTeacher float64                `json:"agreement_teacher"`
	Actions          [deccmodel.Actions]int `json:"actions"`
	// Curve is the fidelity of the first n trees (I22).
	Curve []TreePoint `json:"curve"`
}

// TreePoint is the fidelity of the first Trees trees: the validation RMSE
// and the held-out agreement with the compressed network's greedy action.
type TreePoint struct {
	Trees     int     `json:"trees"`
	ValidRMSE float64 `json:"valid_rmse"`
	Agreement float64 `json:"agreement"`
}
