package pidnn

import (
	"fmt"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/scenario/assemble"
	"github.com/ccsim/ccsim/scenario/result"
	"github.com/ccsim/ccsim/sim"
)

// sources are the dataset's sources: "timely", the TIMELY collection run,
// and "pid", the PID-only gain-training runs (§3.4.2).
var sources = []string{"timely", "pid"}

// withCC returns the scenario yml running algorithm name with params (a
// YAML flow mapping, may be empty).
func withCC(yml []byte, name, params string) (*scenario.Scenario, error) {
	src := append(append([]byte(nil), yml...), fmt.Sprintf("\ncc: [%q]\n", name)...)
	if params != "" {
		src = append(src, fmt.Sprintf("params: {%q: %s}\n", name, params)...)
	}
	s, err := scenario.Parse(src)
	if err != nil {
		return nil, fmt.Errorf("pidnn training: scenario: %w", err)
	}
	return s, nil
}

// pidParams are the parameters of the PID runs: the defaults with the
// given predictor, gains and target.
func pidParams(cfg Config, predictor string) *cc.PIDNNParams {
	p := cc.PIDNNDefaults()
	p.Predictor = predictor
	p.Gains = cc.PIDNNGainsInitial // no file is read: the run gets its gains directly
	p.RTTTargetUs = cfg.RTTTargetUs
	p.Sigma = cfg.Sigma
	return p
}

// collect runs the RTT collection simulation of TIMELY and returns its
// per-flow sample sequences (µs, flows in id order) and the scenario's
// name.
func collect(cfg Config, yml []byte) ([][]float64, string, error) {
	s, err := withCC(yml, "timely", "")
	if err != nil {
		return nil, "", err
	}
	seqs, err := collectTimely(cfg, s)
	return seqs, s.Name, err
}

// collectTimely runs the TIMELY collection simulation and returns the
// per-flow RTT samples taken with paper 001's one-per-RTT rule.
func collectTimely(cfg Config, s *scenario.Scenario) ([][]float64, error) {
	b, err := assemble.Build(s, s.CC[0], assemble.Options{Seed: cfg.Seed, SeedSet: true})
	if err != nil {
		return nil, fmt.Errorf("pidnn training: timely run: %w", err)
	}
	n := len(b.Flows)
	seqs := make([][]float64, n)
	spec, err := cc.Lookup("timely")
	if err != nil {
		return nil, err
	}
	p := spec.Defaults()
	if err := p.Validate(); err != nil {
		return nil, err
	}
	inner, _ := spec.New(p)
	recs := make([]*recorder, n)
	b.Net.SetAlgorithm(func(q *fabric.QP) fabric.Algorithm {
		r := &recorder{Algorithm: inner(q)}
		recs[q.ID] = r
		return r
	})
	res := b.Run()
	if err := unfinished(res, "timely"); err != nil {
		return nil, err
	}
	for i, r := range recs {
		if r == nil {
			continue
		}
		if r.conflict {
			return nil, fmt.Errorf("pidnn training: timely uses the send hook; its RTT samples cannot be recorded")
		}
		seqs[i] = r.samples
	}
	return seqs, nil
}

// unfinished reports a collection or training run whose flows did not all
// finish (its samples would miss the end of the flows).
func unfinished(res *result.Result, what string) error {
	if res.Summary.Unfinished > 0 {
		return fmt.Errorf("pidnn training: the %s run left %d of %d flows unfinished (raise stop_ms)", what, res.Summary.Unfinished, res.Summary.Flows)
	}
	return nil
}

// recorder takes paper 001's RTT samples of another algorithm's flow (the
// TIMELY collection run) without changing what that algorithm does. The
// inner algorithm must not use the send hook.
type recorder struct {
	fabric.Algorithm
	smp      cc.RTTSampler
	samples  []float64
	conflict bool
}

// Start starts the inner algorithm and the sampler of flow q.
func (r *recorder) Start(q *fabric.QP, now sim.Time) {
	r.Algorithm.Start(q, now)
	r.conflict = q.WantSendHook
	r.smp.Start(q)
}

// OnSend times the packet sent, if it is the one to sample.
func (r *recorder) OnSend(q *fabric.QP, size int, now sim.Time) { r.smp.OnSend(q, now) }

// OnAck records the sample the ACK completes, then hands the ACK to the
// inner algorithm.
func (r *recorder) OnAck(q *fabric.QP, a *fabric.AckInfo, now sim.Time) {
	if rtt, ok := r.smp.OnAck(q, a, now); ok {
		r.samples = append(r.samples, float64(rtt)/float64(sim.Microsecond))
	}
	r.Algorithm.OnAck(q, a, now)
}

// OnTimeout abandons the outstanding sample and passes the timeout on.
func (r *recorder) OnTimeout(q *fabric.QP, now sim.Time) {
	r.smp.Abandon(q)
	if t, ok := r.Algorithm.(fabric.TimeoutAlgorithm); ok {
		t.OnTimeout(q, now)
	}
}
