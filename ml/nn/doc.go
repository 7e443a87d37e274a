// Package nn is ccsim's small pure-Go neural-network stack: dense and LSTM
// layers with forward and backward passes (backpropagation through time),
// sigmoid/tanh/ReLU/identity activations, MAE and MSE losses, Adam and SGD
// with gradient clipping, seeded initialisation, a Sequential model, a
// mini-batch trainer, and a versioned, checksummed binary file format.
//
// It is generic numerics: it knows nothing about networks or congestion
// control. The controllers of paper 001 (the LSTM RTT predictor) and paper 000
// (the actor–critic) are built on it elsewhere. Everything is float64.
//
// Data layout. A sample is a sequence of steps vectors stored flat, step-major:
// element j of step t of a layer with width d is x[t*d+j]. A dense or
// activation layer is applied to every step independently (time-distributed);
// an LSTM maps a sequence to a sequence (Sequences true, many-to-many) or to
// its last hidden state only (one step, many-to-one). A plain feed-forward
// network uses steps = 1.
//
// Scratch memory lives in a Workspace made by Sequential.NewWorkspace; once a
// workspace has seen the largest number of steps it will be used with,
// Forward and Backward allocate nothing. Forward only reads the weights, so
// one model can serve many workspaces at once (for example one per flow, or
// one per goroutine); Backward accumulates gradients into the model and is
// not safe for concurrent use.
//
// The layer equations, the initialisation schemes, the optimisers and the
// file format are described in docs/ml.md.
package nn
