package pidnn

// The consistency checks of E1 and E2: constants the paper prints that
// follow from its setup alone, derived from a reading's resolved scenario
// at the paper's scale.

import (
	"fmt"
	"math"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/scenario/assemble"
	"github.com/ccsim/ccsim/topo"
	"github.com/ccsim/ccsim/workload"
)

// paperBytes is the incast's total as the paper's own numbers give it:
// RATE_mean × 20 × FCT_mean / 8 (eqs. 30, 32) at each target of Tables 4
// and 5 (634.996, 634.999, 635.003 MB).
const paperBytes = 635e6

// e1Checks are the incast's checks (§4.1.2, §4.2.3, §4.3.2).
func e1Checks() []experiment.Check {
	return []experiment.Check{
		{ID: "incast-bytes", Description: "the incast's bytes: Tables 4, 5 with eqs. (30), (32) give RATE_mean × 20 × FCT_mean / 8 = 634.996, 634.999, 635.003 MB at 5, 6, 7 µs = the printed 200 + 200 + 150 + 17 × 5 MB with MB = 10^6 B (a MiB reading gives 665.8 MB)",
			Unit: "B", Paper: paperBytes, Tol: &experiment.Tolerance{Rel: 1e-4}, Derive: incastBytes},
		{ID: "bottleneck", Description: "the receiver's link: the paper's 635 MB in T_finish = 53.756 ms (Table 5) is 635e6·8/53.756e-3 = 94.50 Gb/s on average, so the bottleneck carries at least that",
			Unit: "Gb/s", Bounds: true, Lo: 94.5, Hi: math.Inf(1), Derive: receiverGbps},
		{ID: "empty-queue-rtt", Description: "the empty-queue RTT: \"左图最低值大概在 4us 左右，这是仿真拓扑中固定的链路传播延时\" (§4.2.3, the minimum is about 4 µs, the fixed propagation delay) and \"该拓扑情况下空队列时延在 4us 到 5us 之间\" (§4.3.2, between 4 and 5 µs); derived: the topology's largest base RTT (2 × propagation + serialisation of a 1000-B packet on every link of the path, the reference rule)",
			Unit: "µs", Bounds: true, Lo: 4, Hi: 5, Derive: maxBaseRTTus},
		{ID: "pidnn-init-rate", Description: "PIDNN's initial rate (§4.1.2 \"初始发送速率为 10Gbps\", §4.4.1)", Unit: "Gb/s", Paper: 10,
			Derive: pidParam(func(p *cc.PIDNNParams) float64 { return p.RateInitGbps })},
		{ID: "rate-min", Description: "PIDNN's rate floor (§4.1.2 \"网络发送速率限制为 1Gbps-100Gbps\"; §4.2.3 \"右图最小值为 1Gbps\")", Unit: "Gb/s", Paper: 1,
			Derive: pidParam(func(p *cc.PIDNNParams) float64 { return p.RateMinGbps })},
		{ID: "rate-max", Description: "PIDNN's rate ceiling (§4.1.2)", Unit: "Gb/s", Paper: 100,
			Derive: pidParam(func(p *cc.PIDNNParams) float64 { return p.RateMaxGbps })},
	}
}

// timelyCheck is E1f's check of TIMELY's gradient unit (§4.4.1: "仿真中 20
// 微秒为一个梯度"), TIMELY's minRTT normaliser: the resolved run's if it is
// TIMELY's, else the preset the experiment's TIMELY run uses (no patch sets
// it).
func timelyCheck() experiment.Check {
	return experiment.Check{ID: "timely-gradient-unit", Description: "TIMELY's gradient unit, its min_rtt_us normaliser (§4.4.1: \"仿真中 20 微秒为一个梯度\")", Unit: "µs", Paper: 20,
		Derive: func(s *scenario.Scenario) (float64, error) {
			p, ok := s.ParamsOf("timely").(*cc.TIMELYParams)
			if !ok {
				spec, err := cc.Lookup("timely")
				if err != nil {
					return 0, err
				}
				p = spec.Defaults().(*cc.TIMELYParams)
			}
			return p.MinRTT, nil
		}}
}

// pidParam derives a parameter of the scenario's PIDNN variant (pidnn, pid,
// pidnn+rttch, pidnn+rttch+win, whichever the run uses).
func pidParam(f func(*cc.PIDNNParams) float64) func(*scenario.Scenario) (float64, error) {
	return func(s *scenario.Scenario) (float64, error) {
		for _, c := range s.CC {
			if p, ok := s.ParamsOf(c).(*cc.PIDNNParams); ok {
				return f(p), nil
			}
		}
		return 0, fmt.Errorf("the run %v has no PIDNN variant", s.CC)
	}
}

func incastBytes(s *scenario.Scenario) (float64, error) {
	if s.Workload.Incast == nil {
		return 0, fmt.Errorf("no incast workload")
	}
	sum := 0.0
	for _, b := range s.Workload.Incast.SizesBytes {
		sum += float64(b)
	}
	return sum, nil
}

// receiverGbps is the rate of the incast receiver's link.
func receiverGbps(s *scenario.Scenario) (float64, error) {
	if s.Workload.Incast == nil {
		return 0, fmt.Errorf("no incast workload")
	}
	g, err := assemble.Graph(s)
	if err != nil {
		return 0, err
	}
	rx := int(s.Workload.Incast.Receiver)
	for _, l := range g.Links {
		if l.A == rx || l.B == rx {
			return float64(l.Bps) / 1e9, nil
		}
	}
	return 0, fmt.Errorf("no link at the receiver (node %d)", rx)
}

func maxBaseRTTus(s *scenario.Scenario) (float64, error) {
	g, err := assemble.Graph(s)
	if err != nil {
		return 0, err
	}
	rtt, _ := g.MaxRTT(s.Host.PayloadBytes)
	return float64(rtt.Nanoseconds()) / 1e3, nil
}

// e2Checks are the fat-tree experiment's checks (§4.4.2).
func e2Checks() []experiment.Check {
	return []experiment.Check{
		{ID: "incasts", Description: "expected incasts: \"T = 320 * 100Gbps * 0.02 * (2.01 - 2) / (500KB * 60) = 26.67\" (§4.4.2): hosts × host link × incast load × window / (8 × senders × size), the load defined on the hosts' NIC capacity, KB = 1,000 B",
			Paper: 26.67, Tol: &experiment.Tolerance{Abs: 0.005}, Derive: expectedIncasts},
		{ID: "flows", Description: "background flows: \"按照 30%平均负载生成 300B-10MB 不定大小流约 10w 条\" (§4.4.2, about 100,000 flows at 30 % load): hosts × host link × load × window / 8 / the mean size of the paper's Table 7 (the FB Hadoop CDF, linear interpolation), to one significant digit",
			Paper: 100_000, Tol: &experiment.Tolerance{Rel: 0.05}, Derive: expectedFlows},
		{ID: "window", Description: "the arrival window: \"随机时间（范围为 2-2.01s）\" (§4.4.2)", Unit: "ms", Paper: 10, Tol: &experiment.Tolerance{Abs: 1e-9},
			Derive: func(s *scenario.Scenario) (float64, error) {
				if s.Workload.Poisson == nil {
					return 0, fmt.Errorf("no poisson workload")
				}
				return s.Workload.Poisson.DurationMs, nil
			}},
		{ID: "hosts", Description: "\"320 个节点，每个节点带宽 100Gbps\" (§4.4.2): hosts", Paper: 320, Derive: func(s *scenario.Scenario) (float64, error) {
			g, err := assemble.Graph(s)
			if err != nil {
				return 0, err
			}
			return float64(len(g.Hosts())), nil
		}},
		{ID: "host-link", Description: "\"每个节点带宽 100Gbps\" (§4.4.2): the hosts' links", Unit: "Gb/s", Paper: 100, Derive: hostGbps},
		{ID: "rtt-target", Description: "PIDNN's rtt_target (§3.5.1: \"在仿真环境中一般为 5 微秒常数\"; §4.4.2 gives no other)", Unit: "µs", Paper: 5,
			Derive: pidParam(func(p *cc.PIDNNParams) float64 { return p.RTTTargetUs })},
	}
}

// hostGbps is the rate of the first host's link (all are equal on fat320).
func hostGbps(s *scenario.Scenario) (float64, error) {
	g, err := assemble.Graph(s)
	if err != nil {
		return 0, err
	}
	for _, l := range g.Links {
		if g.Kinds[l.A] == topo.Host || g.Kinds[l.B] == topo.Host {
			return float64(l.Bps) / 1e9, nil
		}
	}
	return 0, fmt.Errorf("no host link")
}

// hostCapacity is hosts × host link (b/s).
func hostCapacity(s *scenario.Scenario) (float64, error) {
	g, err := assemble.Graph(s)
	if err != nil {
		return 0, err
	}
	gbps, err := hostGbps(s)
	if err != nil {
		return 0, err
	}
	return float64(len(g.Hosts())) * gbps * 1e9, nil
}

func expectedIncasts(s *scenario.Scenario) (float64, error) {
	b := s.Workload.IncastBursts
	if b == nil {
		return 0, fmt.Errorf("no incast_bursts workload")
	}
	c, err := hostCapacity(s)
	if err != nil {
		return 0, err
	}
	return c * b.Load * b.DurationMs / 1e3 / (8 * float64(b.Senders) * float64(b.SizeBytes)), nil
}

func expectedFlows(s *scenario.Scenario) (float64, error) {
	p := s.Workload.Poisson
	if p == nil {
		return 0, fmt.Errorf("no poisson workload")
	}
	cdf, err := workload.BuiltinCDF(p.CDF)
	if err != nil {
		return 0, err
	}
	c, err := hostCapacity(s)
	if err != nil {
		return 0, err
	}
	return c * p.Load * p.DurationMs / 1e3 / 8 / cdf.Mean(), nil
}
