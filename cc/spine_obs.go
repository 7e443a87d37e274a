package cc

import (
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/sim"
)

// SPINE's observation and action arithmetic (docs/algorithms/spine.md §3,
// §4): one function each, used by the deployed controller and by the
// trainer (train/spine), so that what was trained is what runs.

// Sizes of SPINE's agent interface.
const (
	// SpineLocalObs is the number of measured features (the authors'
	// transform_state, python/agent/definitions.py: 10 values).
	SpineLocalObs = 10
	// SpineParamNum is the number of executor parameters (α, β, γ, δ:
	// VANILLA_PARAM_NUM of spine-kernel/src/tcp_vanilla.c).
	SpineParamNum = 4
	// SpineObsDim is one step's observation: the 10 features and the 4
	// actions currently in force (the authors' obs_shape 14).
	SpineObsDim = SpineLocalObs + SpineParamNum
	// SpineActDim is the agent's output: the 4 parameters and the trigger
	// gate (docs/algorithms/spine.md I3).
	SpineActDim = SpineParamNum + 1
)

// SpineMeasure is what a SPINE sender measured over one decision period
// (from its ACKs and its own state), the input of SpineObservation and of
// the trainer's reward. Rates are in b/s, times in ps.
type SpineMeasure struct {
	Thr      float64  // bytes newly acknowledged × 8 / period (the authors' avg_thr)
	MaxThr   float64  // the largest Thr of the flow so far (max_tput)
	AvgRTT   sim.Time // mean RTT of the period's ACKs, 0 if none (avg_urtt)
	MinRTT   sim.Time // the flow's smallest RTT sample so far, 0 if none (min_rtt)
	SRTT     sim.Time // smoothed RTT (gain 1/8, as Linux srtt), 0 if none
	Loss     float64  // retransmitted bytes × 8 / period (loss_bytes as a rate)
	Cwnd     float64  // window in packets at the decision
	InFlight float64  // bytes in flight / payload (packets_out)
	Pacing   float64  // pacing rate, b/s
	Retrans  float64  // packets retransmitted in the period (retrans_out)
	LineBps  float64  // the sender's line rate
	PayloadB float64  // payload bytes of a full packet
}

// spineRTTRef scales min_rtt: the authors divide µs by 5e5 (0.5 s, the
// top of their Internet RTT range); a datacenter's range tops at ≈ 100 µs
// (docs/algorithms/spine.md I5).
const spineRTTRef = 100 * sim.Microsecond

// SpineObservation writes one step's observation (SpineObsDim values) into
// out: the authors' ten features (python/agent/definitions.py
// transform_state, with the same guards for missing samples) followed by
// the four actions in force. The two constants of their scaling are
// rescaled to the datacenter (max_tput / line rate instead of / 5e8 B/s,
// min_rtt / 100 µs instead of / 0.5 s: docs/algorithms/spine.md I5).
func SpineObservation(m *SpineMeasure, cur []float64, out []float64) {
	f := out[:SpineObsDim]
	mx, minR := m.MaxThr, float64(m.MinRTT)
	switch {
	case m.Thr == 0:
		f[0] = -0.1
	case mx > 0:
		f[0] = m.Thr / mx
	default:
		f[0] = 0
	}
	switch {
	case m.AvgRTT == 0:
		f[1] = 2
	case m.MinRTT == 0:
		f[1] = -0.1
	default:
		f[1] = minR / float64(m.AvgRTT)
	}
	switch {
	case m.SRTT == 0:
		f[2] = 2
	case m.MinRTT == 0:
		f[2] = 0
	default:
		f[2] = minR / float64(m.SRTT)
	}
	if m.MinRTT == 0 || mx == 0 {
		f[3] = 0
	} else { // window / (min_rtt × max_tput), /10
		f[3] = m.Cwnd * m.PayloadB * 8 / (minR / float64(sim.Second) * mx) / 10
	}
	f[4] = mx / m.LineBps
	f[5] = minR / float64(spineRTTRef)
	f[6], f[8] = 0, 0
	if mx > 0 {
		f[6] = m.Loss / mx
		f[8] = m.Pacing / mx
	}
	f[7] = m.InFlight / m.Cwnd
	f[9] = m.Retrans / m.Cwnd
	copy(f[SpineLocalObs:], cur[:SpineParamNum])
}

// SpineExec are the executor's four parameters in the kernel's units
// (1/1024; spine-kernel/src/tcp_vanilla.c struct vanilla).
type SpineExec struct {
	Alpha, Beta, Gamma, Delta int
}

// SpineMapAction maps the agent's four actions in [−1, 1] to the executor's
// parameters as the authors do: map_vanilla_action (python/agent/
// definitions.py: α = int((a0+1)·128), β = int((a1+1)·128), γ = int((a2+1)
// ·512), δ = 800 + int((a3+1)·112), each ≤ 0 → 1 and ≥ 1024 → 1023), then
// vanilla_set_params (the kernel doubles γ). Python's int truncates toward
// zero, as Go's conversion.
func SpineMapAction(a []float64) SpineExec {
	c := func(v int) int {
		if v <= 0 {
			return 1
		}
		if v >= 1024 {
			return 1023
		}
		return v
	}
	return SpineExec{
		Alpha: c(int((a[0] + 1) * 128)),
		Beta:  c(int((a[1] + 1) * 128)),
		Gamma: 2 * c(int((a[2]+1)*512)),
		Delta: c(800 + int((a[3]+1)*112)),
	}
}

// SpineTriggerProb is the probability that the gate fires for a trigger
// output x in [−1, 1]: the authors' HM-LSTM boundary z = hard_sigm(x) =
// clamp((slope·x + 1)/2, 0.05, 0.95) with slope 1 (their init_slope and
// max_slope), drawn as a Bernoulli variable by Trigger_Train, which their
// actor uses in inference too (python/train/policy/spine.py: both cells
// are built with z_prob = True; docs/algorithms/spine.md I3).
func SpineTriggerProb(x float64) float64 { return min(max((x+1)/2, 0.05), 0.95) }

// SpineTrigger reports whether the gate fires for output x and a uniform
// draw u in [0, 1): u < SpineTriggerProb(x) (Trigger_Train: rand < z).
func SpineTrigger(x, u float64) bool { return u < SpineTriggerProb(x) }

// spineWindow is the executor's per-ACK window law (tcp_vanilla.c
// vanilla_cong_control and vanilla_set_cwnd): change = −β if srtt/min_rtt
// (×1024, truncated) > 1024 + γ, else +α, clamped to [−512, 1024]; cnt +=
// change; the whole packets of cnt/1024 (truncated toward zero) move to
// the window; the window is then at least minCwnd and at most maxCwnd
// packets. It returns the new window and counter.
func spineWindow(e SpineExec, srtt, minRTT sim.Time, cwnd, cnt, minCwnd, maxCwnd int64) (int64, int64) {
	infl := int64(srtt) * 1024 / max(int64(minRTT), 1)
	change := int64(e.Alpha)
	if infl > int64(1024+e.Gamma) {
		change = -int64(e.Beta)
	}
	change = min(max(change, -512), 1024)
	cnt += change
	if d := cnt / 1024; d != 0 {
		cnt -= d * 1024
		cwnd += d
	}
	return min(max(cwnd, minCwnd), maxCwnd), cnt
}

// spineCut is the loss response (tcp_vanilla.c vanilla_ssthresh): the
// window becomes max(δ·cwnd/1024, 2), at most maxCwnd.
func spineCut(e SpineExec, cwnd, maxCwnd int64) int64 {
	return min(max(int64(e.Delta)*cwnd/1024, 2), maxCwnd)
}

// spinePacing is the executor's pacing rate (tcp_vanilla.c
// vanilla_update_pacing_rate): MTU × cwnd / srtt, at most the line rate.
func spinePacing(q *fabric.QP, cwnd int64, srtt sim.Time) int64 {
	wire := float64(q.PayloadBytes() + fabric.DataHeaderBytes)
	bps := wire * 8 * float64(cwnd) * float64(sim.Second) / float64(max(srtt, 1))
	return int64(min(bps, float64(q.LineRateBps)))
}
