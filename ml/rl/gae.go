package rl

import (
	"fmt"
	"github.com/ccsim/ccsim/ml/nn"
)

// GAE computes generalised advantage estimates (Schulman et al., 2016) over
// a rollout of T steps, backward in time:
//
//	δ_t = r_t + γ·(1−done_t)·nextVal_t − val_t
//	A_t = δ_t + γλ·(1−end_t)·A_{t+1}
//	ret_t = A_t + val_t   (the value target)
//
// val_t = V(s_t) and nextVal_t = V(s_{t+1}) (ignored where done_t). done_t
// marks a terminal step (no bootstrap); end_t marks the last step of an
// episode or of the rollout (terminal, time limit, or the rollout's end),
// where the sum stops. adv and ret receive T values each.
func GAE(rew, val, nextVal []float64, done, end []bool, gamma, lambda float64, adv, ret []float64) error {
	n := len(rew)
	if len(val) != n || len(nextVal) != n || len(done) != n || len(end) != n || len(adv) != n || len(ret) != n {
		return fmt.Errorf("rl: gae: lengths rew %d, val %d, next_val %d, done %d, end %d, adv %d, ret %d, want equal",
			n, len(val), len(nextVal), len(done), len(end), len(adv), len(ret))
	}
	if !(gamma >= 0 && gamma <= 1) {
		return fmt.Errorf("rl: gae: gamma = %v, want [0, 1]", gamma)
	}
	if !(lambda >= 0 && lambda <= 1) {
		return fmt.Errorf("rl: gae: lambda = %v, want [0, 1]", lambda)
	}
	gl := float64(gamma * lambda)
	last := 0.0
	for t := n - 1; t >= 0; t-- {
		if end[t] {
			last = 0
		}
		d := rew[t] - val[t]
		if !done[t] {
			d += float64(gamma * nextVal[t])
		}
		last = d + float64(gl*last)
		adv[t] = last
		ret[t] = last + val[t]
	}
	return nil
}

// PPOClipLoss returns one sample's clipped surrogate loss of PPO (Schulman
// et al., 2017), −min(ρ·A, clip(ρ, 1−ε, 1+ε)·A) with ρ = exp(logpNew −
// logpOld), and its derivative with respect to logpNew: −ρ·A where the
// unclipped term is the minimum, 0 where the clipped one is (it does not
// depend on logpNew). At a tie the unclipped branch is taken.
func PPOClipLoss(logpNew, logpOld, adv, eps float64) (loss, dLogp float64) {
	rho := nn.DetExp(logpNew - logpOld)
	un := float64(rho * adv)
	cl := float64(min(1+eps, max(1-eps, rho)) * adv)
	if un <= cl {
		return -un, -un
	}
	return -cl, 0
}
