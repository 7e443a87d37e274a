package pidnn

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/ccsim/ccsim/cc/pidnnmodel"
	"github.com/ccsim/ccsim/ml/nn"
)

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
