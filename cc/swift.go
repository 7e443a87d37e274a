package cc

import (
	"math"

	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/sim"
)

// SwiftParams are the parameters of Swift (Kumar et al., "Swift: Delay is
// Simple and Effective for Congestion Control in the Datacenter", SIGCOMM
// 2020): the AIMD law of Algorithm 1 (ai, β, max_mdf, one multiplicative
// decrease per RTT, the retransmission-timeout branch with its reset
// threshold, pacing below one packet) and the target delay of §3.5 (base
// target + per-hop scaling + flow-based scaling over [fs_min_cwnd,
// fs_max_cwnd] with range fs_range). Windows are in packets.
//
// Interpretation (defaults): the paper gives no values for most of them;
// ccsim uses those of Google's open-source Isekai simulator (Swift's
// DefaultConfiguration, which the Bolt authors' ns-3 Swift shares): base
// target 25 µs, h = 1 µs per hop, fs_range 100 µs over [0.1, 256]
// packets, ai 1, β 0.8, max_mdf 0.5, max_cwnd 256 packets, 3 timeouts
// before the reset to min_cwnd. A fabric whose base RTT approaches the
// base target (e.g. 5 µs links over several hops) needs a larger
// base_target_us.
type SwiftParams struct {
	BaseTarget float64 `yaml:"base_target_us" unit:"us" doc:"base target delay of a one-hop path (§3.5)"`
	HopScale   float64 `yaml:"hop_scale_us" unit:"us" doc:"h: target added per switch on the path (§3.5 topology scaling)"`
	FsRange    float64 `yaml:"fs_range_us" unit:"us" doc:"fs_range: largest flow-scaling addition to the target (§3.5; 0 = no flow scaling)"`
	FsMinCwnd  float64 `yaml:"fs_min_cwnd" unit:"pkts" doc:"fs_min_cwnd: window at which flow scaling adds fs_range (§3.5)"`
	FsMaxCwnd  float64 `yaml:"fs_max_cwnd" unit:"pkts" doc:"fs_max_cwnd: window at which flow scaling adds 0 (§3.5)"`
	AI         float64 `yaml:"ai" unit:"pkts" doc:"additive increment per RTT (Alg. 1)"`
	Beta       float64 `yaml:"beta" doc:"β: multiplicative decrease constant (Alg. 1)"`
	MaxMDF     float64 `yaml:"max_mdf" doc:"max_mdf: largest multiplicative decrease per RTT (Alg. 1)"`
	MinCwnd    float64 `yaml:"min_cwnd" unit:"pkts" doc:"min_cwnd; windows below 1 packet are paced at RTT/cwnd (Alg. 1; interpretation: 0.001)"`
	MaxCwnd    float64 `yaml:"max_cwnd" unit:"pkts" doc:"max_cwnd (Alg. 1)"`
	RetxReset  int     `yaml:"retx_reset_threshold" doc:"RETX_RESET_THRESHOLD (Alg. 1): consecutive retransmission timeouts at which cwnd is set to min_cwnd; earlier ones cut by max_mdf (no value in the paper; 3, Isekai's retransmit_limit)"`
	InitCwnd   float64 `yaml:"init_cwnd" unit:"pkts" doc:"initial window (0 = one BDP: the flow starts at line rate; interpretation)"`
	MTUBytes   int     `yaml:"mtu_bytes" unit:"B" doc:"payload bytes per packet for windows in packets (0 = the fabric's payload size)"`
}

// SwiftDefaults returns Swift's defaults (see SwiftParams).
func SwiftDefaults() *SwiftParams {
	return &SwiftParams{
		BaseTarget: 25,
		HopScale:   1,
		FsRange:    100,
		FsMinCwnd:  0.1,
		FsMaxCwnd:  256,
		AI:         1,
		Beta:       0.8,
		MaxMDF:     0.5,
		MinCwnd:    0.001,
		MaxCwnd:    256,
		RetxReset:  3,
	}
}

// Validate checks every field's range (comparisons written so NaN fails).
func (p *SwiftParams) Validate() error {
	switch {
	case !(p.BaseTarget > 0 && p.BaseTarget <= 1e6):
		return rangeErr("base_target_us", p.BaseTarget, "0 (exclusive)", "1e6")
	case !(p.HopScale >= 0 && p.HopScale <= 1e6):
		return rangeErr("hop_scale_us", p.HopScale, "0", "1e6")
	case !(p.FsRange >= 0 && p.FsRange <= 1e6):
		return rangeErr("fs_range_us", p.FsRange, "0", "1e6")
	case !(p.FsMinCwnd > 0 && p.FsMinCwnd <= 1e6):
		return rangeErr("fs_min_cwnd", p.FsMinCwnd, "0 (exclusive)", "1e6")
	case !(p.FsMaxCwnd > p.FsMinCwnd && p.FsMaxCwnd <= 1e9):
		return rangeErr("fs_max_cwnd", p.FsMaxCwnd, "fs_min_cwnd (exclusive)", "1e9")
	case !(p.AI > 0 && p.AI <= 1e6):
		return rangeErr("ai", p.AI, "0 (exclusive)", "1e6")
	case !(p.Beta >= 0 && p.Beta <= 1):
		return rangeErr("beta", p.Beta, "0", "1")
	case !(p.MaxMDF > 0 && p.MaxMDF < 1):
		return rangeErr("max_mdf", p.MaxMDF, "0 (exclusive)", "1 (exclusive)")
	case !(p.MinCwnd > 0 && p.MinCwnd <= 1e9):
		return rangeErr("min_cwnd", p.MinCwnd, "0 (exclusive)", "1e9")
	case !(p.MaxCwnd >= p.MinCwnd && p.MaxCwnd <= 1e9):
		return rangeErr("max_cwnd", p.MaxCwnd, "min_cwnd", "1e9")
	case p.RetxReset < 1 || p.RetxReset > 1000:
		return rangeErr("retx_reset_threshold", p.RetxReset, "1", "1000")
	case !(p.InitCwnd >= 0 && p.InitCwnd <= 1e9):
		return rangeErr("init_cwnd", p.InitCwnd, "0", "1e9")
	case p.MTUBytes < 0 || p.MTUBytes > 9000:
		return rangeErr("mtu_bytes", p.MTUBytes, "0", "9000")
	}
	return nil
}

// swiftConst are the per-run constants.
type swiftConst struct {
	base, hop        sim.Time
	fsAlpha, fsBeta  float64 // flow scaling α/√cwnd + β, µs
	fsRange          float64 // µs
	minCwnd, maxCwnd float64
	ai, beta, maxMDF float64
	initCwnd         float64
	mtuParam         int64
	retxReset        int
}

// Swift is one QP's sender (Alg. 1 of the paper). Simplifications: the
// fabric has no host processing delay, so the endpoint delay is taken as 0
// and the whole RTT sample is fabric delay (the endpoint window ecwnd is
// never the smaller one and is not kept); the hop count is the path's
// switch count (q.Hops) rather than a TTL echoed on the ACK; a NACK
// (go-back-N) is Swift's fast-recovery event; the retransmission timeout
// is the fabric's (host.rto_us), not one Swift computes from its RTT.
type Swift struct {
	c *swiftConst

	Cwnd          float64  // fabric window, packets
	RTT           sim.Time // latest RTT sample (the delay signal)
	LastDecAt     sim.Time // t_last_decrease
	RetransmitCnt int      // retransmit_cnt: consecutive timeouts

	mtu, wire int64 // payload and wire bytes of a full packet
}

// NewSwift returns a per-QP constructor for p (which must be valid).
func NewSwift(p *SwiftParams) func(q *fabric.QP) fabric.Algorithm {
	c := &swiftConst{
		base:      usToTime(p.BaseTarget),
		hop:       usToTime(p.HopScale),
		fsRange:   p.FsRange,
		minCwnd:   p.MinCwnd,
		maxCwnd:   p.MaxCwnd,
		ai:        p.AI,
		beta:      p.Beta,
		maxMDF:    p.MaxMDF,
		mtuParam:  int64(p.MTUBytes),
		initCwnd:  p.InitCwnd,
		retxReset: p.RetxReset,
	}
	// §3.5: fs = α/√cwnd + β with α = fs_range / (1/√fs_min − 1/√fs_max)
	// and β = −α/√fs_max, so fs(fs_min) = fs_range and fs(fs_max) = 0.
	c.fsAlpha = p.FsRange / (1/math.Sqrt(p.FsMinCwnd) - 1/math.Sqrt(p.FsMaxCwnd))
	c.fsBeta = -c.fsAlpha / math.Sqrt(p.FsMaxCwnd)
	return func(q *fabric.QP) fabric.Algorithm { return &Swift{c: c} }
}

// TargetDelay is the target for the current window on a path with the
// given number of switches (§3.5): base + hops·h + max(0, min(α/√cwnd + β,
// fs_range)).
func (s *Swift) TargetDelay(hops int) sim.Time {
	c := s.c
	fs := 0.0
	if c.fsRange > 0 {
		fs = math.Max(0, math.Min(c.fsAlpha/math.Sqrt(s.Cwnd)+c.fsBeta, c.fsRange))
	}
	return c.base + sim.Time(hops)*c.hop + usToTime(fs)
}

// Start sets the initial window (one BDP unless init_cwnd is given).
func (s *Swift) Start(q *fabric.QP, now sim.Time) {
	s.mtu = s.c.mtuParam
	if s.mtu == 0 {
		s.mtu = q.PayloadBytes()
	}
	s.wire = s.mtu + fabric.DataHeaderBytes
	s.Cwnd = s.c.initCwnd
	if s.Cwnd == 0 {
		s.Cwnd = float64(q.BDPBytes) / float64(s.mtu)
	}
	s.Cwnd = math.Max(s.c.minCwnd, math.Min(s.Cwnd, s.c.maxCwnd))
	s.LastDecAt = longAgo
	s.apply(q)
}

// canDecrease: at most one multiplicative decrease per RTT (Alg. 1).
func (s *Swift) canDecrease(now sim.Time) bool { return now-s.LastDecAt >= s.RTT }

// OnAck runs Alg. 1 on one ACK: additive increase while the delay is below
// the target, otherwise a multiplicative decrease scaled by the excess
// delay, at most once per RTT. A NACK is the fast-recovery event: cut by
// max_mdf (once per RTT). Both end a run of timeouts (retransmit_cnt ← 0).
func (s *Swift) OnAck(q *fabric.QP, a *fabric.AckInfo, now sim.Time) {
	c := s.c
	prev := s.Cwnd
	s.RetransmitCnt = 0
	if a.Nack {
		if s.canDecrease(now) {
			s.Cwnd *= 1 - c.maxMDF
		}
	} else {
		delay := a.RTT
		if delay > 0 {
			s.RTT = delay
		}
		target := s.TargetDelay(q.Hops)
		if delay < target {
			acked := float64(a.NewlyAcked) / float64(s.mtu)
			if s.Cwnd >= 1 {
				s.Cwnd += c.ai / s.Cwnd * acked
			} else {
				s.Cwnd += c.ai * acked
			}
		} else if s.canDecrease(now) {
			f := 1 - c.beta*float64(delay-target)/float64(delay)
			s.Cwnd *= math.Max(f, 1-c.maxMDF)
		}
	}
	s.update(q, prev, now)
}

// OnTimeout is Alg. 1's retransmission-timeout branch (the fabric calls it
// when its RTO fires): retransmit_cnt ← retransmit_cnt + 1; at
// RETX_RESET_THRESHOLD consecutive timeouts cwnd ← min_cwnd, before that
// cwnd ← (1 − max_mdf)·cwnd if a decrease is allowed (once per RTT).
func (s *Swift) OnTimeout(q *fabric.QP, now sim.Time) {
	c := s.c
	prev := s.Cwnd
	s.RetransmitCnt++
	if s.RetransmitCnt >= c.retxReset {
		s.Cwnd = c.minCwnd
	} else if s.canDecrease(now) {
		s.Cwnd *= 1 - c.maxMDF
	}
	s.update(q, prev, now)
}

// update clamps the window, records a decrease and applies the window.
func (s *Swift) update(q *fabric.QP, prev float64, now sim.Time) {
	c := s.c
	s.Cwnd = math.Max(c.minCwnd, math.Min(s.Cwnd, c.maxCwnd))
	// Interpretation: Alg. 1 restarts the decrease interval when the window
	// did not grow ("cwnd ≤ cwnd_prev"); read literally, every ACK above
	// the target that may not decrease would restart it and the flow could
	// never decrease again while congested, so only an actual decrease
	// does (as in the Bolt authors' Swift; Isekai also restarts it while
	// the window sits at min_cwnd).
	if s.Cwnd < prev {
		s.LastDecAt = now
	}
	s.apply(q)
}

// apply sets the window (packets → payload bytes) and, below one packet,
// paces one packet per RTT/cwnd (Alg. 1: pacing_delay = rtt/cwnd).
func (s *Swift) apply(q *fabric.QP) {
	if s.Cwnd >= 1 {
		q.SetWindow(int64(s.Cwnd*float64(s.mtu) + 0.5))
		q.SetRateRepace(q.LineRateBps)
		return
	}
	q.SetWindow(s.mtu)
	rtt := s.RTT
	if rtt <= 0 {
		rtt = q.PathBaseRTT
	}
	if rtt <= 0 {
		rtt = q.BaseRTT
	}
	if rtt <= 0 {
		q.SetRateRepace(q.LineRateBps)
		return
	}
	// one wire packet every rtt/cwnd
	bps := s.Cwnd * float64(s.wire) * 8 * float64(sim.Second) / float64(rtt)
	q.SetRateRepace(int64(bps))
}

// OnNotice is unused.
func (s *Swift) OnNotice(q *fabric.QP, n *fabric.Notice, now sim.Time) {}

// OnTimer is unused.
func (s *Swift) OnTimer(q *fabric.QP, id int, now sim.Time) {}

// OnSend is unused.
func (s *Swift) OnSend(q *fabric.QP, size int, now sim.Time) {}

func init() {
	Register(&Spec{
		Name:     "swift",
		Summary:  "Swift (Kumar et al. 2020): delay-based AIMD on RTT vs a target (base + per-hop + flow scaling), windows in packets, pacing below one packet",
		Defaults: func() Params { return SwiftDefaults() },
		New: func(pp Params) (func(*fabric.QP) fabric.Algorithm, fabric.Requirements) {
			return NewSwift(pp.(*SwiftParams)), fabric.Requirements{}
		},
	})
}
