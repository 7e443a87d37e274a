// Package gbdt is ccsim's pure-Go gradient boosting over oblivious
// (symmetric, CatBoost-style) regression trees: every node at one depth of a
// tree tests the same (feature, border) pair, so a tree of depth d is d
// splits and 2^d leaf values, and the leaf a row falls in is the d-bit number
// whose bit i is the outcome of split i.
//
// It serves DECC's distillation step (docs/gbdt.md; decc.md §1.9): the
// teacher network's actions are regressed on its input features with the
// squared error, and the resulting ensemble is scored on every monitoring
// interval of every flow, so scoring is allocation-free and tuned for the
// common shape (depth 6, at most 32 features; figures in docs/gbdt.md §6).
//
// The pieces:
//   - quantisation: per feature at most BorderCount borders chosen by a
//     greedy log-sum rule (Borders), and the dataset binarised once into
//     uint8 bins;
//   - training (Train): RMSE boosting from the target mean, trees grown level
//     by level with a histogram split search over all leaves at once, Newton
//     leaf values with L2 regularisation, a learning rate, and early stopping
//     on a validation set that keeps the best iteration;
//   - scoring (Model.Predict, Model.PredictBatch): features binarised once
//     per row, then one leaf index per tree from the split bits;
//   - model files in CatBoost's JSON layout (ReadCatBoostJSON,
//     Model.WriteCatBoostJSON), so a model trained by CatBoost loads and
//     scores the same;
//   - code generation: the model as a Go function (Model.ExportGo) and as a
//     self-contained C function (Model.ExportC).
//
// Features are compared as float32, as CatBoost does: a feature value x goes
// right at a split with border b when float32(x) > b. Training is sequential
// and so bit-for-bit deterministic for the same data and parameters.
package gbdt
