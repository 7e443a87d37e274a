package dcon

// Consistency checks (docs/reproduce.md, "Readings and consistency
// checks"): constants the paper prints that follow from a reading's setup
// alone, derived from the resolved scenario of the experiment's first run
// at the paper's scale.

import (
	"fmt"
	"math"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/scenario/assemble"
	"github.com/ccsim/ccsim/workload"
)

// e4FixedBufferKB is the primary reading of E4's "fixed buffer size"
// (固定缓存大小): the per-port share of the testbed switch's printed 22 MB
// buffer (§3.1) over the 32 ports of its Wedge 100BF-32X (§5).
const e4FixedBufferKB = 22_000.0 / 32

// pct is a tolerance of ±x points for a percentage the paper gives as
// "about" (约): half of the 10-point steps its numbers use (60, 20, 80, 5).
var pct = &experiment.Tolerance{Abs: 5}

// burstChecks are E0's and E1's: the testbed of §3.1 and its burst.
func burstChecks() []experiment.Check {
	return append(append(testbedChecks(), dcqcnChecks()...),
		experiment.Check{ID: "burst-in-one-rtt", Description: "「每条短流在一个RTT内会发送完所有数据」: a 64 KB short flow at line rate takes at most one base RTT", Unit: "µs",
			Bounds: true, Lo: 0, Hi: 40, Derive: func(s *scenario.Scenario) (float64, error) {
				ls := s.Workload.LongShort
				if ls == nil {
					return math.NaN(), fmt.Errorf("no long_short workload")
				}
				return float64(ls.ShortMaxBytes) * 8 / (s.Topology.LinkGbps * 1e3), nil
			}},
		experiment.Check{ID: "burst-flows", Description: "35 short flows per sender (§3.1)", Unit: "flows", Paper: 35,
			Derive: func(s *scenario.Scenario) (float64, error) { return float64(s.Workload.LongShort.ShortCount), nil }},
		experiment.Check{ID: "burst-duration", Description: "the burst lasts 8 ms (§3.1: short_count × interval)", Unit: "ms", Paper: 8,
			Derive: func(s *scenario.Scenario) (float64, error) {
				return float64(s.Workload.LongShort.ShortCount) * s.Workload.LongShort.IntervalUs / 1e3, nil
			}})
}

// testbedChecks are the testbed's printed constants (§3.1).
func testbedChecks() []experiment.Check {
	return []experiment.Check{
		{ID: "base-rtt", Description: "base RTT (§3.1): twice the propagation delay of H0 → R0 (4 links of 5 µs)", Unit: "µs", Paper: 40,
			Derive: func(s *scenario.Scenario) (float64, error) {
				g, err := assemble.Graph(s)
				if err != nil {
					return math.NaN(), err
				}
				return 2 * g.PathInfo(tb.H[0], tb.R[0], 1000).Delay.Microseconds(), nil
			}},
		{ID: "fair-rate", Description: "the fair rate of f0 and f1 on S1 → L2 (§3.1): the link's rate over the two long flows", Unit: "Gb/s", Paper: 20,
			Derive: func(s *scenario.Scenario) (float64, error) {
				g, err := assemble.Graph(s)
				if err != nil {
					return math.NaN(), err
				}
				for _, l := range g.Links {
					if l.A == tb.S[1] && l.B == tb.L[2] || l.A == tb.L[2] && l.B == tb.S[1] {
						return float64(l.Bps) / 1e9 / float64(len(s.Workload.LongShort.LongSenders)), nil
					}
				}
				return math.NaN(), fmt.Errorf("no S1–L2 link")
			}},
		{ID: "pfc-threshold", Description: "PFC PAUSE threshold (§3.1)", Unit: "KB", Paper: 320,
			Derive: func(s *scenario.Scenario) (float64, error) { return s.Switch.PFCStaticKB, nil }},
		{ID: "ecn-threshold", Description: "ECN marking threshold (§3.1) of the run's algorithm (DCQCN's step kmax, or DCON's Q_ECN)", Unit: "KB", Paper: 200,
			Derive: ecnThresholdKB},
		{ID: "buffer", Description: "switch buffer (§3.1)", Unit: "MB", Paper: 22,
			Derive: func(s *scenario.Scenario) (float64, error) {
				if s.Switch.BufferMB == nil {
					return s.Switch.BufferMiB * 1.048576, nil
				}
				return *s.Switch.BufferMB, nil
			}},
	}
}

// dcqcnChecks are the DCQCN parameters §3.1 and §4.3 print, of the
// baseline or of DCON's end-to-end loop (whichever the first run uses).
func dcqcnChecks() []experiment.Check {
	rp := func(f func(p *cc.DCQCNParams) float64) func(s *scenario.Scenario) (float64, error) {
		return func(s *scenario.Scenario) (float64, error) {
			switch p := s.ParamsOf(s.CC[0]).(type) {
			case *cc.DCQCNParams:
				return f(p), nil
			case *cc.DCONParams:
				return f(&p.DCQCNParams), nil
			}
			return math.NaN(), fmt.Errorf("the first run's algorithm %s has no DCQCN reaction point", s.CC[0])
		}
	}
	return []experiment.Check{
		{ID: "rp-timer", Description: "DCQCN's rate-increase timer (§3.1: 「在 55 µs 内未收到拥塞通告则增加发送速率」)", Unit: "µs", Paper: 55,
			Derive: rp(func(p *cc.DCQCNParams) float64 { return p.RPTimer })},
		{ID: "g", Description: "the weight g of α (§4.3: 1/256), as 1/g", Unit: "1/g", Paper: 256,
			Derive: rp(func(p *cc.DCQCNParams) float64 { return 1 / p.G })},
		{ID: "alpha-init", Description: "α's initial value (§4.3: 1)", Paper: 1, Tol: &experiment.Tolerance{Abs: 1e-9},
			Derive: rp(func(p *cc.DCQCNParams) float64 { return p.AlphaInit })},
		{ID: "cnp-interval", Description: "the notification point's CNP period (§3.1, §4.3: 50 µs)", Unit: "µs", Paper: 50,
			Derive: func(s *scenario.Scenario) (float64, error) {
				if s.Host.CNPIntervalUs != nil {
					return *s.Host.CNPIntervalUs, nil
				}
				if p, ok := s.ParamsOf(s.CC[0]).(*cc.DCONParams); ok {
					return p.CNPIntervalX, nil
				}
				return math.NaN(), fmt.Errorf("no CNP period")
			}},
	}
}

// ecnThresholdKB is the ECN threshold of the scenario's (first) algorithm.
func ecnThresholdKB(s *scenario.Scenario) (float64, error) {
	if len(s.CC) > 0 && s.CC[0] == "dcon" {
		q, _, err := dconSetting(s)
		return q, err
	}
	if len(s.Switch.ECNRules) == 0 {
		return math.NaN(), fmt.Errorf("no ECN rule")
	}
	return s.Switch.ECNRules[0].KmaxKB, nil
}

// e2Checks are E2's: the testbed and §6.1.2's flows.
func e2Checks() []experiment.Check {
	return append(append(testbedChecks(), dcqcnChecks()...),
		experiment.Check{ID: "flows", Description: "422 flows (§6.1.2): 2 long flows and 30 short flows from each of H2–H15", Unit: "flows", Paper: 422,
			Derive: func(s *scenario.Scenario) (float64, error) {
				ls := s.Workload.LongShort
				return float64(len(ls.LongSenders) + len(ls.ShortSenders)*ls.ShortCount), nil
			}},
		experiment.Check{ID: "long-size", Description: "the long flows are 200 MB (§6.1.2)", Unit: "MB", Paper: 200,
			Derive: func(s *scenario.Scenario) (float64, error) {
				return float64(s.Workload.LongShort.LongSizeBytes) / 1e6, nil
			}})
}

// dconSetting is DCON's Q_ECN in a reading's scenario and the "fixed
// buffer size" B that reading gives E4's 40 %/60 % runs (KB): the
// reading's q_cnm_fraction_of_kb if it sets one (0: Q_PFC), else E4's own
// (e4FixedBufferKB). The first run of E3 is a DCQCN run, whose scenario
// carries DCON's parameters only as the reading patched them.
func dconSetting(s *scenario.Scenario) (qECN, b float64, err error) {
	qECN, b = cc.DCONDefaults().QECNKB, e4FixedBufferKB
	node, ok := s.Params["dcon"]
	if !ok {
		return qECN, b, nil
	}
	var m map[string]any
	if err := node.Decode(&m); err != nil {
		return math.NaN(), math.NaN(), err
	}
	num := func(k string, into *float64) {
		switch v := m[k].(type) {
		case int:
			*into = float64(v)
		case float64:
			*into = v
		}
	}
	num("q_ecn_kb", &qECN)
	num("q_cnm_fraction_of_kb", &b)
	if b == 0 {
		b = s.Switch.PFCStaticKB
	}
	return qECN, b, nil
}

// switchChecks are the checks of the NS-3 switch setting (E3 and E4 share
// it, §6.2.2: 「在6.2.1节大规模仿真的网页搜索工作负载下」): what §4.4 and
// Fig. 11's text imply of Q_ECN, Q_PFC and E4's fixed buffer size B.
func switchChecks() []experiment.Check {
	return []experiment.Check{
		{ID: "fixed40-above-ecn", Description: "§4.4: Q_CNM is not below Q_ECN (「不小于ECN标记阈值Q_ECN」): E4's 40 % threshold over Q_ECN, 0.4·B / Q_ECN", Unit: "ratio",
			Bounds: true, Lo: 1, Hi: math.Inf(1), Derive: func(s *scenario.Scenario) (float64, error) {
				q, b, err := dconSetting(s)
				return 0.4 * b / q, err
			}},
		{ID: "dynamic-between-fixed", Description: "Fig. 11's text: 40 % is too small (cuts early), 60 % too large (PFC first), the dynamic threshold between them: Q_CNM(M = 1) / B, M = 1 in the paper's own burst (Fig. 4(b): f0's egress never holds the ingress's bytes)", Unit: "fraction of B",
			Bounds: true, Lo: 0.4, Hi: 0.6, Derive: func(s *scenario.Scenario) (float64, error) {
				q, b, err := dconSetting(s)
				return max(q, s.Switch.PFCStaticKB) / b, err
			}},
	}
}

// e3Checks are E3's: the topology, the data-mining statistics of §6.2.1
// and the switch setting. The web-search statistics fail for every
// reading (the workload, not a reading, differs): a finding in E3's notes.
func e3Checks() []experiment.Check {
	return append([]experiment.Check{
		{ID: "hosts", Description: "240 servers (§6.2.1): 10 leaves × 24", Unit: "hosts", Paper: 240,
			Derive: func(s *scenario.Scenario) (float64, error) {
				return float64(s.Topology.Leaves * s.Topology.HostsPerLeaf), nil
			}},
		{ID: "hop-delay", Description: "5 µs per hop (§6.2.1)", Unit: "µs", Paper: 5,
			Derive: func(s *scenario.Scenario) (float64, error) { return s.Topology.LinkDelayNs / 1e3, nil }},
		{ID: "datamining-lt100KB", Description: "data mining: about 80 % of the flows below 100 KB (§6.2.1; ±5 points)", Unit: "%", Paper: 80, Tol: pct,
			Derive: func(*scenario.Scenario) (float64, error) { return cdfBelow("datamining", 100e3) }},
		{ID: "datamining-gt35MB", Description: "data mining: fewer than 5 % of the flows above 35 MB (§6.2.1)", Unit: "%",
			Bounds: true, Lo: 0, Hi: 5, Derive: func(*scenario.Scenario) (float64, error) {
				p, err := cdfBelow("datamining", 35e6)
				return 100 - p, err
			}},
	}, append(switchChecks(), dcqcnChecks()...)...)
}

// cdfBelow is the percentage of a built-in CDF's flows below size bytes
// (linear between its points, as the generator draws).
func cdfBelow(name string, size float64) (float64, error) {
	c, err := workload.BuiltinCDF(name)
	if err != nil {
		return math.NaN(), err
	}
	x, y := c.Points()
	switch {
	case size <= x[0]:
		return y[0], nil
	case size >= x[len(x)-1]:
		return 100, nil
	}
	for i := 1; i < len(x); i++ {
		if size <= x[i] {
			return y[i-1] + (y[i]-y[i-1])*(size-x[i-1])/(x[i]-x[i-1]), nil
		}
	}
	return 100, nil
}
