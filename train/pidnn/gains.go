package pidnn

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/cc/pidnnmodel"
	"github.com/ccsim/ccsim/scenario/assemble"
)

// gainTraining is the outcome of the online gain training.
type gainTraining struct {
	runs      []GainRunLog
	converged bool
	// seqs are every flow's RTT samples of every training run, run by run
	// and flow by flow: the PID source of the predictor's dataset.
	seqs [][]float64
	// long is the long flow's entry of the last run; trace its gains at
	// every tenth of its updates (all runs).
	long  FlowGainLog
	trace []GainPoint
	// kpPos and updates count the updates with ∂J/∂K_p > 0 and all
	// updates, over every flow and run.
	kpPos, updates int64
}

// trainGains runs the incast with PID only (predictor none: the paper
// trains the rate-control module alone, with the untrained PIDNN setting
// the rate, §3.5.3) and online gain training, each flow its own controller
// from the initial gains (I12). It repeats the run, each flow continuing its
// own gains and update count, until no flow's gain moves by more than
// GainTol over a run or GainRuns runs are done (I13). The samples of these
// runs are the dataset's PID source (§3.4.2).
func trainGains(cfg Config, yml []byte, progress io.Writer) (*gainTraining, error) {
	s, err := withCC(yml, "pid", "{gains: initial}")
	if err != nil {
		return nil, err
	}
	tr := cfg.Training
	state := map[int32]cc.PIDNNFlowState{}
	traces := map[int32][]pidnnmodel.Gains{}
	out := &gainTraining{}
	for k := 1; k <= cfg.GainRuns; k++ {
		t0 := time.Now()
		b, err := assemble.Build(s, "pid", assemble.Options{Seed: cfg.Seed, SeedSet: true})
		if err != nil {
			return nil, err
		}
		run, err := cc.NewPIDNNRun(pidParams(cfg, "none"), nil, cfg.InitialGains)
		if err != nil {
			return nil, err
		}
		tr.Start = state
		run.Train(tr)
		run.Record()
		b.Net.SetAlgorithm(run.New)
		res := b.Run()
		if err := unfinished(res, "gain training"); err != nil {
			return nil, err
		}
		rl := GainRunLog{Run: k, MeanJ: run.MeanJ(), Updates: run.Updates(), KpGradPositive: run.KpGradPositive(),
			FCTMeanUs: res.Summary.All.FCTUs.Mean, FinishUs: res.Summary.FinishTimeUs}
		senders := slices.SortedFunc(slices.Values(run.Senders()), func(a, b *cc.PIDNN) int { return cmp.Compare(a.Flow, b.Flow) })
		next := map[int32]cc.PIDNNFlowState{}
		for _, c := range senders {
			g := c.Gains()
			if err := g.Check(); err != nil {
				return nil, fmt.Errorf("pidnn training: flow %d's gains diverged in run %d: %v", c.Flow, k, err)
			}
			prev, ok := state[c.Flow]
			if !ok {
				prev.Gains = cfg.InitialGains
			}
			rl.MaxChange = max(rl.MaxChange, math.Abs(g.Kp-prev.Gains.Kp), math.Abs(g.Ki-prev.Gains.Ki), math.Abs(g.Kd-prev.Gains.Kd))
			next[c.Flow] = cc.PIDNNFlowState{Gains: g, Updates: c.Updates()}
			rl.Flows = append(rl.Flows, FlowGainLog{Flow: c.Flow, SizeBytes: b.Flows[c.Flow].SizeBytes, Samples: len(c.Samples),
				Updates: c.Updates(), Gains: g, KpGradPositive: c.KpGradPositive()})
			out.seqs = append(out.seqs, c.Samples)
			traces[c.Flow] = append(traces[c.Flow], c.GainTrace...)
		}
		state = next
		out.runs = append(out.runs, rl)
		out.kpPos += rl.KpGradPositive
		out.updates += rl.Updates
		long := longFlow(rl.Flows)
		fmt.Fprintf(progress, "gain run %2d (PID only, per flow): %d updates (∂J/∂K_p > 0 in %d), mean J %.3f µs², largest change %.2e; long flow %d (%d updates) [K_p, K_i, K_d] = [%.5f, %.5f, %.5f]; mean FCT %.1f µs, finish %.1f µs (%.1f s)\n",
			k, rl.Updates, rl.KpGradPositive, rl.MeanJ, rl.MaxChange, long.Flow, long.Updates, long.Gains.Kp, long.Gains.Ki, long.Gains.Kd,
			rl.FCTMeanUs, rl.FinishUs, time.Since(t0).Seconds())
		if rl.MaxChange <= cfg.GainTol {
			out.converged = true
			break
		}
	}
	if len(out.runs) == 0 {
		return nil, fmt.Errorf("pidnn training: no gain-training run (gain runs = 0)")
	}
	out.long = longFlow(out.runs[len(out.runs)-1].Flows)
	out.trace = tenths(cfg.InitialGains, traces[out.long.Flow])
	return out, nil
}

// longFlow is the flow with the most gain updates, the lowest id among
// equals: the flow whose gains are shipped (the paper trains one
// controller; with one per flow, the one that learned longest).
func longFlow(flows []FlowGainLog) FlowGainLog {
	var best FlowGainLog
	for i, f := range flows {
		if i == 0 || f.Updates > best.Updates || f.Updates == best.Updates && f.Flow < best.Flow {
			best = f
		}
	}
	return best
}

// tenths summarises a flow's gains after each of its updates (trace,
// starting from g0) at every tenth of the updates: point i holds the gains
// after ⌊i·n/10⌋ updates and, per gain, the path Σ|Δ| since point i−1.
func tenths(g0 pidnnmodel.Gains, trace []pidnnmodel.Gains) []GainPoint {
	n := len(trace)
	at := func(j int) pidnnmodel.Gains {
		if j == 0 {
			return g0
		}
		return trace[j-1]
	}
	out := []GainPoint{{Gains: g0}}
	for i := 1; i <= 10; i++ {
		lo, hi := (i-1)*n/10, i*n/10
		var path pidnnmodel.Gains
		for j := lo + 1; j <= hi; j++ {
			a, b := at(j-1), at(j)
			path.Kp += math.Abs(b.Kp - a.Kp)
			path.Ki += math.Abs(b.Ki - a.Ki)
			path.Kd += math.Abs(b.Kd - a.Kd)
		}
		out = append(out, GainPoint{Updates: int64(hi), Gains: at(hi), Path: path})
	}
	return out
}
