package cc_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/scenario/assemble"
	"github.com/ccsim/ccsim/scenario/result"
)

// swiftIncast is a 4-to-1 incast of 10 MB flows on one 100 Gb/s switch
// (1 µs links: base RTT ≈ 4.2 µs, one switch on every path).
func swiftIncast(params string) string {
	return `
name: swift-incast4
stop_ms: 50
cc: [swift]
topology: {kind: star, hosts: 5, link_gbps: 100, link_delay_ns: 1000}
workload:
  kind: incast
  incast: {senders: [0, 1, 2, 3], receiver: 4, sizes_bytes: [10000000]}
params:
  swift: ` + params + `
`
}

func runAlgScenario(t *testing.T, src, ccName string) *result.Result {
	t.Helper()
	s, err := scenario.Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	b, err := assemble.Build(s, ccName, assemble.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := b.Run()
	for _, f := range r.Flows {
		if !f.Done {
			t.Fatalf("%s: flow %d did not finish", ccName, f.ID)
		}
	}
	if by := r.Bytes; by.Sent != by.Delivered+by.InFlight+by.Dropped {
		t.Errorf("%s: bytes not conserved: %+v", ccName, by)
	}
	return r
}

// Swift holds the RTT near its target. With flow scaling off the target is
// base_target + 1 switch × hop_scale; the incast starts above it (init_cwnd
// 100 packets per flow: 400 packets ≈ 34 µs of queue) so the multiplicative
// decrease brings it down and the additive increase holds it. The median
// and mean RTT sit within 5 % of the target for two targets, far above the
// base RTT, and the bottleneck stays busy (the last flow ends within 1 % of
// the 40 MB serialization time). With the defaults (flow scaling on) the
// RTT settles at the fixed point of the target equation at the fair window.
func TestSwiftScenarioHoldsRTTAtTarget(t *testing.T) {
	const wire = 1048.0 // bytes per full data packet
	serial := 4 * 10e6 * wire / 1000 * 8 / 100e9 * 1e6
	check := func(label string, r *result.Result, target float64) {
		t.Helper()
		t.Logf("%s: target %.2f µs; RTT mean %.2f p50 %.2f p99 %.2f max %.2f µs; last FCT %.1f µs (serialization %.1f); pause frames %d; Jain %.3f",
			label, target, r.RTT.MeanUs, r.RTT.P50Us, r.RTT.P99Us, r.RTT.MaxUs, r.Summary.FinishTimeUs, serial, r.PFC.PauseFrames, r.Jain)
		for _, v := range []float64{r.RTT.P50Us, r.RTT.MeanUs} {
			if v < 0.95*target || v > 1.05*target {
				t.Errorf("%s: RTT %.2f µs not within 5 %% of the target %.2f µs", label, v, target)
			}
		}
		if r.Summary.FinishTimeUs > 1.01*serial+10 {
			t.Errorf("%s: last FCT %.1f µs, want ≤ 1 %% above the serialization time %.1f µs", label, r.Summary.FinishTimeUs, serial)
		}
		if r.Jain < 0.99 {
			t.Errorf("%s: Jain index %.3f < 0.99", label, r.Jain)
		}
	}
	for _, base := range []float64{15, 30} {
		r := runAlgScenario(t, swiftIncast(fmt.Sprintf("{base_target_us: %v, hop_scale_us: 1, fs_range_us: 0, init_cwnd: 100}", base)), "swift")
		check(fmt.Sprintf("base %v, no flow scaling", base), r, base+1)
		if r.RTT.P50Us < 3*4.2 {
			t.Errorf("median RTT %.2f µs is not far above the base RTT", r.RTT.P50Us)
		}
	}
	// defaults: target(cwnd) = 25 + 1 + clamp(α/√cwnd + β, 0, 100) µs with
	// α = 100/(1/√0.1 − 1/√256), β = −α/√256, and the fair window at RTT R
	// is cwnd = R·100 Gb/s / 4 flows / (1048 B · 8) packets
	alpha := 100 / (1/math.Sqrt(0.1) - 1.0/16)
	target := 26.0
	for i := 0; i < 50; i++ {
		cwnd := target * 1e-6 * 100e9 / 4 / (wire * 8)
		target = 26 + math.Max(0, math.Min(alpha/math.Sqrt(cwnd)-alpha/16, 100))
	}
	check("defaults", runAlgScenario(t, swiftIncast("{}"), "swift"), target)
}
