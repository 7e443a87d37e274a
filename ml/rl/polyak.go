package rl

import (
	"fmt"

	"github.com/ccsim/ccsim/ml/nn"
)

// Polyak moves the target network dst toward src: every weight becomes
// θ' ← τ·θ + (1−τ)·θ', each product rounded on its own (no fused
// multiply-add) so that the result has the same bits on every machine. τ = 1
// copies src; τ = 0 leaves dst unchanged. dst and src must have the same
// parameter shapes (a Clone of one another).
func Polyak(dst, src *nn.Sequential, tau float64) error {
	if !(tau >= 0 && tau <= 1) {
		return fmt.Errorf("rl: polyak: tau = %v, want [0, 1]", tau)
	}
	if dst == nil || src == nil {
		return fmt.Errorf("rl: polyak: nil network")
	}
	dp, sp := dst.Params(), src.Params()
	if len(dp) != len(sp) {
		return fmt.Errorf("rl: polyak: target has %d parameter tensors, source %d", len(dp), len(sp))
	}
	for k := range dp {
		if len(dp[k].W) != len(sp[k].W) {
			return fmt.Errorf("rl: polyak: tensor %d (%s) has %d values in the target, %d in the source", k, dp[k].Name, len(dp[k].W), len(sp[k].W))
		}
	}
	u := 1 - tau
	for k, p := range dp {
		s := sp[k].W
		for i, w := range p.W {
			p.W[i] = float64(tau*s[i]) + float64(u*w)
		}
	}
	return nil
}
