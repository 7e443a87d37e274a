package nn

import (
	"fmt"
	"math"
)

// Loss names a loss function of a prediction p against a target y, both of
// length n; the loss of one sample is the mean over its n values.
type Loss uint8

// The losses.
const (
	// MAE is the mean absolute error (1/n)·Σ|p−y| (paper 001 eq. 11);
	// dL/dp = sign(p−y)/n, taken as 0 where p = y.
	MAE Loss = 1
	// MSE is the mean squared error (1/n)·Σ(p−y)²; dL/dp = 2(p−y)/n.
	MSE Loss = 2
)

func (l Loss) String() string {
	switch l {
	case MAE:
		return "mae"
	case MSE:
		return "mse"
	}
	return fmt.Sprintf("loss(%d)", uint8(l))
}

// ParseLoss returns the loss named s (mae, mse).
func ParseLoss(s string) (Loss, error) {
	switch s {
	case "mae":
		return MAE, nil
	case "mse":
		return MSE, nil
	}
	return 0, fmt.Errorf("nn: unknown loss %q (want mae or mse)", s)
}

func (l Loss) check(p, y []float64) error {
	if l != MAE && l != MSE {
		return fmt.Errorf("nn: loss = %d, want mae (1) or mse (2)", uint8(l))
	}
	if len(p) != len(y) || len(p) == 0 {
		return fmt.Errorf("nn: %v: len(prediction) = %d, len(target) = %d, want equal and > 0", l, len(p), len(y))
	}
	return nil
}

// Value returns the loss of prediction p against target y.
func (l Loss) Value(p, y []float64) (float64, error) {
	if err := l.check(p, y); err != nil {
		return 0, err
	}
	s := 0.0
	for i, v := range p {
		d := v - y[i]
		if l == MAE {
			s += math.Abs(d)
		} else {
			s += float64(d * d)
		}
	}
	return s / float64(len(p)), nil
}

// Grad writes scale·dL/dp into grad (len(grad) = len(p)) and returns the
// loss L. The trainer passes scale = 1/batch so that the accumulated
// gradient is that of the batch mean.
func (l Loss) Grad(p, y, grad []float64, scale float64) (float64, error) {
	if err := l.check(p, y); err != nil {
		return 0, err
	}
	if len(grad) != len(p) {
		return 0, fmt.Errorf("nn: %v: len(grad) = %d, want %d", l, len(grad), len(p))
	}
	n := float64(len(p))
	s := 0.0
	for i, v := range p {
		d := v - y[i]
		if l == MAE {
			s += math.Abs(d)
			switch {
			case d > 0:
				grad[i] = scale / n
			case d < 0:
				grad[i] = -scale / n
			default:
				grad[i] = 0
			}
		} else {
			s += float64(d * d)
			grad[i] = scale * 2 * d / n
		}
	}
	return s / n, nil
}
