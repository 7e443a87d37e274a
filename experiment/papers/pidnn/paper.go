// Package pidnn reproduces paper 001: a thesis-style paper (its text carries
// no title line) on a neural-network congestion control algorithm for
// datacenter networks using RTT — an LSTM RTT predictor feeding a PID rate
// controller with learned gains ("PIDNN"), with the variants RTTch and WIN
// (docs/papers.md; the mechanism: docs/algorithms/pidnn.md). Its
// experiments: the 20:1 incast (E1b: predictor and gain training, Table 1; PID only
// and the rtt_target sweep, Tables 4 and 5; the effect of prediction; the
// comparison with HPCC, TIMELY and DCTCP, Table 6) and random flows with
// incasts on the 320-host fat-tree (E2, Table 8).
package pidnn

import (
	"fmt"

	"github.com/ccsim/ccsim/cc/pidnnmodel"
	"github.com/ccsim/ccsim/experiment"
)

func init() {
	experiment.Register(&experiment.Paper{
		ID:          "pidnn",
		Number:      "001",
		Title:       "A neural-network congestion control algorithm for datacenter networks using RTT (LSTM RTT prediction + PIDNN rate control)",
		Citation:    "thesis-style paper without a title line (paper 001 of this project; docs/papers.md); simulated in the ns-3 RDMA simulator of the HPCC paper",
		Summary:     summary(),
		Experiments: []*experiment.Experiment{e1b(), e1cd(), e1e(), e1f(), e2()},
	})
}

// summary is the paper's summary, with the shipped gains.
func summary() string {
	g := "(the shipped gains could not be read)"
	if _, gs, err := pidnnmodel.Shipped(); err == nil {
		g = fmt.Sprintf("[%.3f, %.3f, %.3f]", gs.Kp, gs.Ki, gs.Kd)
	}
	return `PIDNN is purely sender-side, per-flow rate control driven by RTT samples. Each flow takes one RTT sample per round trip, smooths it with an EWMA and computes relative-deviation features; an LSTM (3 steps, hidden size 16) predicts the next RTT from them, and a PID controller whose three gains were learned online by back-propagation maps the normalised error between the predicted RTT and a target RTT to a multiplicative rate factor. Variants: RTTch moves the RTT target to the observed mean RTT when the RTT stays on one side of it for more than 6 samples; WIN adds an in-flight window. The paper trained the LSTM in PyTorch and evaluated in the ns-3 RDMA simulator on a 20:1 incast (against PID without prediction, HPCC, TIMELY and DCTCP) and on a 320-host fat-tree with Facebook-Hadoop traffic and random 60:1 incasts (against HPCC, TIMELY, DCTCP and DCQCN).

ccsim runs every experiment with its own pidnn, pid, pidnn+rttch, pidnn+rttch+win (the shipped model files of ccsim train pidnn, seed 1: the gains trained online with PID alone, one controller per flow, the long flow's ` + g + ` against the paper's [−0.358, −0.060, 0.040]; docs/algorithms/pidnn.md §11.2), hpcc, timely, dctcp and dcqcn (reference presets). E1 has two readings of the gains (ccsim's trained ones, primary; the paper's printed ones), E2 two of PIDNN's starting rate (line rate as in the HPCC paper's design the section adopts, primary; 10 Gb/s as in the incast). The RTT metrics of the incast use one sample per RTT per flow, taken by the host with the paper's rule for every algorithm (outputs.rtt_per_rtt, docs/metrics.md §12). The paper's figures are not available (captions only); all paper numbers are from its text and tables, and every printed number is a magnitude claim within the paper-wide default tolerance (±25 %).`
}

// algs are the algorithms of the paper's experiments and the names it
// prints (the order is that of this table only: each experiment lists its
// own).
var algs = experiment.Algs{
	{CC: "pidnn", Name: "LSTM+PID"}, {CC: "pid", Name: "PID only"}, {CC: "pidnn+rttch", Name: "PIDNN+RTTch"}, {CC: "pidnn+rttch+win", Name: "PIDNN+RTTch+WIN"},
	{CC: "hpcc", Name: "HPCC"}, {CC: "timely", Name: "TIMELY"}, {CC: "dctcp", Name: "DCTCP"}, {CC: "dcqcn", Name: "DCQCN"},
}
