package pidnn

// E1b's prediction in operation (Fig. 17): the shipped predictor on the RTT
// samples of senders 0 and 1 in the LSTM+PID run at 5 µs.

import (
	"fmt"
	"math"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/cc/pidnnmodel"
	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/ml/nn"
	"github.com/ccsim/ccsim/report"
	pidnntrain "github.com/ccsim/ccsim/train/pidnn"
)

// traceFlows are the senders whose predictions are measured (the paper
// shows two nodes, Fig. 17: "这里选取其中两个节点").
var traceFlows = []int{0, 1}

// predTrace is the prediction of the shipped predictor on the traces: the
// MAPE of eq. (13) over every prediction of the traced flows beside that of
// holding the last sample (RTT_pred = R_t), per flow and pooled, and sender
// 0's real and predicted RTTs for the figure.
type predTrace struct {
	n              int
	mape, hold     float64
	flows          []int
	perFlow        map[int][3]float64 // predictions, MAPE, hold-last MAPE
	at, real, pred []float64          // sender 0: time (ms), R_{t+1}, RTT_pred(t) (µs)
}

// traceOf reads the traced flows' samples of the LSTM+PID run (target
// 5 µs) and predicts each next sample with the shipped predictor from the
// features the controller computed (pidnntrain.Pairs follows eqs. 2, 3 as
// the controller does), so the prediction is the one the controller acted
// on. nil when the run is missing.
func traceOf(ctx *experiment.Context) (*predTrace, error) {
	run, err := ctx.Run(keyOf("pidnn", 5))
	if err != nil {
		return nil, nil
	}
	t, err := run.Table("rtt_per_rtt.csv")
	if err != nil {
		return nil, err
	}
	cols, err := t.FloatCols("flow_id", "time_ns", "rtt_ns")
	if err != nil {
		return nil, err
	}
	at, R := map[int][]float64{}, map[int][]float64{}
	for i := range cols[0] {
		f := int(cols[0][i])
		at[f], R[f] = append(at[f], cols[1][i]/1e6), append(R[f], cols[2][i]/1e3)
	}
	m, _, err := pidnnmodel.Shipped()
	if err != nil {
		return nil, err
	}
	return predictTraces(m, traceFlows, at, R)
}

// predictTraces predicts each flow's samples R (µs, taken at times at, ms)
// with m: for t = 2 … n−2, RTT_pred(t) = (1 + out_t)·S_t against R_{t+1}.
func predictTraces(m *nn.Sequential, flows []int, at, R map[int][]float64) (*predTrace, error) {
	sigma := cc.PIDNNDefaults().Sigma
	ws := m.NewWorkspace(pidnnmodel.Steps)
	tr := &predTrace{flows: flows, perFlow: map[int][3]float64{}}
	for _, f := range flows {
		r := R[f]
		x, y := pidnntrain.Pairs(r, sigma)
		if len(x) == 0 {
			return nil, fmt.Errorf("predicted-vs-real: sender %d has only %d samples", f, len(r))
		}
		S := r[0]
		for k := 1; k <= 2; k++ {
			S = float64(sigma*r[k]) + float64((1-sigma)*S) // as eq. (2) in Pairs
		}
		var mape, hold float64
		for i := range x {
			tt := i + 2 // pair i: t = i + 2 predicts R[t+1]
			if i > 0 {
				S = float64(sigma*r[tt]) + float64((1-sigma)*S)
			}
			out, err := m.Forward(ws, x[i], pidnnmodel.Steps)
			if err != nil {
				return nil, err
			}
			mape += math.Abs(out[0]-y[i][0]) / (1 + y[i][0])
			hold += math.Abs(r[tt]-r[tt+1]) / r[tt+1]
			if f == flows[0] {
				tr.at, tr.real, tr.pred = append(tr.at, at[f][tt+1]), append(tr.real, r[tt+1]), append(tr.pred, (1+out[0])*S)
			}
		}
		n := float64(len(x))
		tr.perFlow[f] = [3]float64{n, mape / n, hold / n}
		tr.n += len(x)
		tr.mape += mape
		tr.hold += hold
	}
	tr.mape /= float64(tr.n)
	tr.hold /= float64(tr.n)
	return tr, nil
}

// measures are the trace claims' measures.
func (tr *predTrace) measures() map[string]experiment.Measure {
	beats := experiment.M(tr.mape, tr.hold)
	beats.Labels = []string{"LSTM", "hold last sample"}
	return map[string]experiment.Measure{"trace-overlaps": experiment.M(tr.mape), "trace-beats-hold": beats}
}

func (tr *predTrace) note() string {
	s := fmt.Sprintf("Predicted vs real RTT in the LSTM+PID run (target 5 µs): MAPE %.3f over %d predictions of senders %v (holding the last sample: %.3f)", tr.mape, tr.n, tr.flows, tr.hold)
	for _, f := range tr.flows {
		p := tr.perFlow[f]
		s += fmt.Sprintf("; sender %d: %.0f predictions, MAPE %.3f (hold %.3f)", f, p[0], p[1], p[2])
	}
	return s + "."
}

// figure shows sender 0's predictions in a 1-ms window in the middle of its
// trace, where the individual predictions can be seen.
func (tr *predTrace) figure() report.Figure {
	lo := tr.at[len(tr.at)/2]
	hi := lo + 1
	var wx, wr, wp []float64
	for i, v := range tr.at {
		if v >= lo && v < hi {
			wx, wr, wp = append(wx, v), append(wr, tr.real[i]), append(wp, tr.pred[i])
		}
	}
	return report.Figure{ID: "predicted-rtt", Title: fmt.Sprintf("LSTM+PID, node 1 (sender 0): real and predicted RTT, %.2f–%.2f ms (%d predictions)", lo, hi, len(wx)), XLabel: "time (ms)", YLabel: "RTT (µs)",
		Series: []report.Series{{Label: "real R(t+1)", X: wx, Y: wr, Style: 1, Points: true}, {Label: "predicted RTT_pred(t)", X: wx, Y: wp, Style: 2, Points: true}}}
}
