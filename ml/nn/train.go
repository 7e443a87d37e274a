package nn

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// NewRand returns the PCG random source used for initialisation and
// shuffling, seeded from seed alone: the same seed gives the same draws on
// every machine.
func NewRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x6e6e2d63637369)) // second word: "nn-ccsi"
}

// Shuffle permutes idx in place (Fisher–Yates with r).
func Shuffle(r *rand.Rand, idx []int) {
	r.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
}

// Batches splits idx into consecutive batches of size (the last one may be
// shorter). The batches share idx's memory.
func Batches(idx []int, size int) ([][]int, error) {
	if size < 1 {
		return nil, fmt.Errorf("nn: batches: size = %d, want ≥ 1", size)
	}
	var bs [][]int
	for lo := 0; lo < len(idx); lo += size {
		bs = append(bs, idx[lo:min(lo+size, len(idx))])
	}
	return bs, nil
}

// Dataset is a list of (input, target) samples for a model. Every input has
// Steps steps (len(X[i]) = Steps·InSize) and every target has the model's
// output length (OutSteps(Steps)·OutSize).
type Dataset struct {
	X, Y  [][]float64
	Steps int
}

// Len is the number of samples.
func (d Dataset) Len() int { return len(d.X) }

// Subset returns the samples idx of d (sharing their memory).
func (d Dataset) Subset(idx []int) (Dataset, error) {
	s := Dataset{Steps: d.Steps, X: make([][]float64, len(idx)), Y: make([][]float64, len(idx))}
	for i, k := range idx {
		if k < 0 || k >= len(d.X) || k >= len(d.Y) {
			return Dataset{}, fmt.Errorf("nn: dataset: subset index %d out of range 0..%d", k, min(len(d.X), len(d.Y))-1)
		}
		s.X[i], s.Y[i] = d.X[k], d.Y[k]
	}
	return s, nil
}

// Sample returns n distinct samples of d drawn uniformly with r (the first
// n of a Fisher–Yates shuffle of the indices), in draw order. Splitting the
// result gives disjoint sets, e.g. paper 001's 800 training and 200 test
// pairs drawn afresh at every epoch.
func (d Dataset) Sample(r *rand.Rand, n int) (Dataset, error) {
	if n < 1 || n > len(d.X) {
		return Dataset{}, fmt.Errorf("nn: dataset: sample size %d, want 1..%d (the number of samples)", n, len(d.X))
	}
	idx := make([]int, len(d.X))
	for i := range idx {
		idx[i] = i
	}
	for i := range n {
		j := i + r.IntN(len(idx)-i)
		idx[i], idx[j] = idx[j], idx[i]
	}
	return d.Subset(idx[:n])
}

// Check reports the first sample whose shape does not fit m, or a
// non-finite value.
func (d Dataset) Check(m *Sequential) error {
	if len(d.X) == 0 {
		return errors.New("nn: dataset: no samples")
	}
	if len(d.Y) != len(d.X) {
		return fmt.Errorf("nn: dataset: %d inputs but %d targets", len(d.X), len(d.Y))
	}
	if d.Steps < 1 {
		return fmt.Errorf("nn: dataset: steps = %d, want ≥ 1", d.Steps)
	}
	nx, ny := d.Steps*m.InSize(), m.OutSteps(d.Steps)*m.OutSize()
	for i := range d.X {
		if len(d.X[i]) != nx {
			return fmt.Errorf("nn: dataset: sample %d: input has %d values, want steps·in = %d", i, len(d.X[i]), nx)
		}
		if len(d.Y[i]) != ny {
			return fmt.Errorf("nn: dataset: sample %d: target has %d values, want %d (the model's output length)", i, len(d.Y[i]), ny)
		}
		for _, s := range [2][]float64{d.X[i], d.Y[i]} {
			for _, v := range s {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return fmt.Errorf("nn: dataset: sample %d holds a non-finite value %v", i, v)
				}
			}
		}
	}
	return nil
}

// Trainer trains a model by mini-batch gradient descent: per batch it zeroes
// the gradients, runs Forward and Backward on each sample with the loss
// gradient scaled by 1/len(batch) (the gradient of the batch-mean loss), then
// takes one optimiser step.
type Trainer struct {
	model     *Sequential
	opt       Optimizer
	loss      Loss
	batchSize int
	rng       *rand.Rand
	ws        *Workspace
	idx       []int
	dy        []float64
}

// NewTrainer returns a trainer of m with opt (built on m.Params()), loss and
// batch size; r shuffles the samples at every epoch (nil: no shuffling, the
// samples are visited in order).
func NewTrainer(m *Sequential, opt Optimizer, loss Loss, batchSize int, r *rand.Rand) (*Trainer, error) {
	if m == nil || opt == nil {
		return nil, errors.New("nn: trainer: nil model or optimiser")
	}
	if loss != MAE && loss != MSE {
		return nil, fmt.Errorf("nn: trainer: loss = %d, want mae (1) or mse (2)", uint8(loss))
	}
	if batchSize < 1 {
		return nil, fmt.Errorf("nn: trainer: batch size = %d, want ≥ 1", batchSize)
	}
	mp, op := m.Params(), opt.Params()
	if len(mp) != len(op) {
		return nil, fmt.Errorf("nn: trainer: %w", errOtherParams)
	}
	for i := range mp {
		if mp[i] != op[i] {
			return nil, fmt.Errorf("nn: trainer: %w", errOtherParams)
		}
	}
	return &Trainer{model: m, opt: opt, loss: loss, batchSize: batchSize, rng: r, ws: m.NewWorkspace(1)}, nil
}

// Epoch makes one pass over d (shuffled if the trainer has a random source)
// and returns the mean per-sample loss, each sample's loss taken before the
// step of its batch.
func (tr *Trainer) Epoch(d Dataset) (float64, error) {
	if err := d.Check(tr.model); err != nil {
		return 0, err
	}
	n := d.Len()
	if cap(tr.idx) < n {
		tr.idx = make([]int, n)
	}
	tr.idx = tr.idx[:n]
	for i := range tr.idx {
		tr.idx[i] = i
	}
	if tr.rng != nil {
		Shuffle(tr.rng, tr.idx)
	}
	total := 0.0
	for lo := 0; lo < n; lo += tr.batchSize {
		batch := tr.idx[lo:min(lo+tr.batchSize, n)]
		tr.model.ZeroGrad()
		scale := 1 / float64(len(batch))
		for _, k := range batch {
			out, err := tr.model.Forward(tr.ws, d.X[k], d.Steps)
			if err != nil {
				return 0, err
			}
			if cap(tr.dy) < len(out) {
				tr.dy = make([]float64, len(out))
			}
			dy := tr.dy[:len(out)]
			l, err := tr.loss.Grad(out, d.Y[k], dy, scale)
			if err != nil {
				return 0, err
			}
			total += l
			if _, err := tr.model.Backward(tr.ws, dy); err != nil {
				return 0, err
			}
		}
		tr.opt.Step()
	}
	mean := total / float64(n)
	if math.IsNaN(mean) || math.IsInf(mean, 0) {
		return mean, fmt.Errorf("nn: trainer: the loss diverged (%v); lower the learning rate or clip the gradients", mean)
	}
	return mean, nil
}

// Evaluate returns the mean per-sample loss of the model on d (no update).
func (tr *Trainer) Evaluate(d Dataset) (float64, error) {
	return Evaluate(tr.model, tr.ws, tr.loss, d)
}

// Evaluate returns the mean per-sample loss of m on d, using ws.
func Evaluate(m *Sequential, ws *Workspace, loss Loss, d Dataset) (float64, error) {
	if err := d.Check(m); err != nil {
		return 0, err
	}
	total := 0.0
	for k := range d.X {
		out, err := m.Forward(ws, d.X[k], d.Steps)
		if err != nil {
			return 0, err
		}
		l, err := loss.Value(out, d.Y[k])
		if err != nil {
			return 0, err
		}
		total += l
	}
	return total / float64(d.Len()), nil
}

// ErrStop, returned by a Fit callback, ends training without an error.
var ErrStop = errors.New("nn: stop training")

// Fit runs epochs epochs over train, calling after each (if non-nil)
// callback(epoch, mean training loss), epoch counted from 1. A callback error
// ends training: ErrStop quietly, any other error is returned.
func (tr *Trainer) Fit(train Dataset, epochs int, callback func(epoch int, trainLoss float64) error) error {
	if epochs < 1 {
		return fmt.Errorf("nn: fit: epochs = %d, want ≥ 1", epochs)
	}
	for e := 1; e <= epochs; e++ {
		l, err := tr.Epoch(train)
		if err != nil {
			return fmt.Errorf("nn: fit: epoch %d: %w", e, err)
		}
		if callback != nil {
			if err := callback(e, l); err != nil {
				if errors.Is(err, ErrStop) {
					return nil
				}
				return err
			}
		}
	}
	return nil
}
