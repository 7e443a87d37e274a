// Package compress implements paper 000's (DECC) one-shot compression of a
// trained network (docs/compress.md, following the notes decc.md §1.8):
//
//   - magnitude pruning to a target sparsity, with the threshold taken from a
//     Laplace fit of the weights (Levenberg–Marquardt on the empirical CDF,
//     then Newton–Raphson on the fitted pruned mass, eqs. 12–18) and checked
//     against, and if need be replaced by, the empirical |w| quantile;
//   - per-layer uniform symmetric quantisation (one step shared by all the
//     channels of a layer, found by bisection, round-to-nearest) to B bits;
//   - quantisation-aware fine-tuning by distillation from the uncompressed
//     model with float shadow weights and a straight-through estimator,
//     masks and steps fixed (Algorithm 2);
//   - an int4 packed binary format and an inference path that computes the
//     forward pass directly from the packed codes, bit-identical to the
//     dequantised float model;
//   - the cost figures: multiply-adds and FLOPs (dense and nonzero), model
//     bytes, and the output discrepancy of the paper's Table 2.
//
// It works on ml/nn Sequential models of Dense, LSTM and Activation layers.
// Every weight matrix (Dense W, LSTM W) is pruned and quantised; biases are
// never pruned and are kept as float32 values.
package compress
