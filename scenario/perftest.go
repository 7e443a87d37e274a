package scenario

import (
	"fmt"

	"github.com/ccsim/ccsim/metrics"
	"github.com/ccsim/ccsim/sim"
	"github.com/ccsim/ccsim/topo"
	"github.com/ccsim/ccsim/workload"
)

// PerftestSpec is the perftest model of paper 002's prototype experiments
// (W11, workload.Perftest; docs/workloads.md §3): ib_write_bw bandwidth
// flows from the senders to the receiver and an ib_write_lat latency
// probe. With it the run ends with the test (start + duration, unless
// stop_ms ends it earlier). Absent fields take PerftestDefaults.
type PerftestSpec struct {
	DurationMs   float64 `yaml:"duration_ms"`    // test length, [1e-6, 1e6]; default 200
	MsgSizeBytes int64   `yaml:"msg_size_bytes"` // bandwidth message size (perftest -s), [1, 1e12]; default 1,000,000
	TxDepth      int     `yaml:"tx_depth"`       // messages outstanding per QP (perftest -t), [1, 1e6]; default 128
	Flows        int     `yaml:"flows"`          // QPs per sender (perftest -q), [1, 4096]; default 1
	// Senders and Receiver: absent, the nodes named A and B, and C (the
	// two_site topology's hosts).
	Senders  []NodeID `yaml:"senders"`
	Receiver *NodeID  `yaml:"receiver,omitempty"`
	// Probe runs the latency probe; default true. ProbeSrc defaults to the
	// first sender, ProbeDst to the receiver.
	Probe          *bool   `yaml:"probe"`
	ProbeSrc       *NodeID `yaml:"probe_src,omitempty"`
	ProbeDst       *NodeID `yaml:"probe_dst,omitempty"`
	ProbeSizeBytes int64   `yaml:"probe_size_bytes"` // [1, 1e9]; default 64
	ProbeGapUs     float64 `yaml:"probe_gap_us"`     // completion → next post, [0, 1e6]; default 0
	ProbeDelayUs   float64 `yaml:"probe_delay_us"`   // probe start after the test start, [0, duration); default 0
	ProbeCount     int64   `yaml:"probe_count"`      // messages, [0, 1e9]; default 0 = until the end of the test
	StartNs        float64 `yaml:"start_ns"`
	Prio           int     `yaml:"prio"`       // bandwidth flows; default 3
	ProbePrio      int     `yaml:"probe_prio"` // default prio
}

// PerftestDefaults are the defaults of workload.perftest: perftest's
// (tx depth 128, one QP), paper 002's (1 MB messages, 64-B probe) and a
// 200-ms test instead of the paper's 10 s.
var PerftestDefaults = PerftestSpec{DurationMs: 200, MsgSizeBytes: 1_000_000, TxDepth: 128, Flows: 1,
	ProbeSizeBytes: 64, Prio: DefaultPrio}

// applyDefaults fills the fields of workload.perftest the document does
// not give.
func (c *PerftestSpec) applyDefaults(has func(path ...any) bool) {
	d := &PerftestDefaults
	key := func(k string) bool { return has("workload", "perftest", k) }
	if !key("duration_ms") {
		c.DurationMs = d.DurationMs
	}
	if !key("msg_size_bytes") {
		c.MsgSizeBytes = d.MsgSizeBytes
	}
	if !key("tx_depth") {
		c.TxDepth = d.TxDepth
	}
	if !key("flows") {
		c.Flows = d.Flows
	}
	if !key("probe") {
		on := true
		c.Probe = &on
	}
	if !key("probe_size_bytes") {
		c.ProbeSizeBytes = d.ProbeSizeBytes
	}
	if !key("prio") {
		c.Prio = d.Prio
	}
	if !key("probe_prio") {
		c.ProbePrio = c.Prio
	}
}

// validate range-checks workload.perftest.
func (c *PerftestSpec) validate(errs *Errors) {
	const f = "workload.perftest."
	rangef(errs, f+"duration_ms", c.DurationMs, 1e-6, 1e6)
	rangef(errs, f+"msg_size_bytes", float64(c.MsgSizeBytes), 1, 1e12)
	rangef(errs, f+"tx_depth", float64(c.TxDepth), 1, 1e6)
	rangef(errs, f+"flows", float64(c.Flows), 1, 4096)
	rangef(errs, f+"probe_size_bytes", float64(c.ProbeSizeBytes), 1, 1e9)
	rangef(errs, f+"probe_gap_us", c.ProbeGapUs, 0, 1e6)
	if c.ProbeDelayUs != 0 && !(c.ProbeDelayUs > 0 && c.ProbeDelayUs < c.DurationMs*1000) {
		*errs = append(*errs, fmt.Errorf("%sprobe_delay_us = %v out of range [0, duration_ms × 1000 = %v)", f, c.ProbeDelayUs, c.DurationMs*1000))
	}
	rangef(errs, f+"probe_count", float64(c.ProbeCount), 0, 1e9)
	rangef(errs, f+"start_ns", c.StartNs, 0, 1e12)
	rangef(errs, f+"prio", float64(c.Prio), 1, 7)
	rangef(errs, f+"probe_prio", float64(c.ProbePrio), 1, 7)
	for i, v := range c.Senders {
		nodeRange(errs, fmt.Sprintf("%ssenders[%d]", f, i), v)
	}
	for _, p := range []struct {
		name string
		v    *NodeID
	}{{"receiver", c.Receiver}, {"probe_src", c.ProbeSrc}, {"probe_dst", c.ProbeDst}} {
		if p.v != nil {
			nodeRange(errs, f+p.name, *p.v)
		}
	}
}

// testEnd is the end of the perftest test (absolute).
func (c *PerftestSpec) testEnd() sim.Time { return nsTime(c.StartNs) + msTime(c.DurationMs) }

// perftestParams resolves workload.perftest against topology g: the
// default endpoints by name, the senders' line rate.
func (s *Scenario) perftestParams(g *topo.Graph) (workload.PerftestParams, error) {
	c := s.Workload.Perftest
	const f = "workload.perftest."
	p := workload.PerftestParams{QPsPerSender: c.Flows, MsgSize: c.MsgSizeBytes, TxDepth: c.TxDepth,
		Probe: c.Probe == nil || *c.Probe, ProbeSize: c.ProbeSizeBytes, ProbeGap: usTime(c.ProbeGapUs),
		ProbeDelay: usTime(c.ProbeDelayUs), ProbeCount: c.ProbeCount,
		Start: nsTime(c.StartNs), Duration: msTime(c.DurationMs), Prio: c.Prio, ProbePrio: c.ProbePrio}
	byName := func(field string, names ...string) ([]int, error) {
		var out []int
		for _, n := range names {
			id, ok := g.NodeByName(n)
			if !ok {
				return nil, fmt.Errorf("%s%s: not given, and the topology has no node named %s (topology.kind two_site names its hosts A, B and C): give node ids", f, field, n)
			}
			out = append(out, id)
		}
		return out, nil
	}
	var err error
	if len(c.Senders) > 0 {
		p.Senders = ids(c.Senders)
	} else if p.Senders, err = byName("senders", "A", "B"); err != nil {
		return p, err
	}
	if c.Receiver != nil {
		p.Receiver = int(*c.Receiver)
	} else {
		r, err := byName("receiver", "C")
		if err != nil {
			return p, err
		}
		p.Receiver = r[0]
	}
	p.ProbeSrc, p.ProbeDst = p.Senders[0], p.Receiver
	if c.ProbeSrc != nil {
		p.ProbeSrc = int(*c.ProbeSrc)
	}
	if c.ProbeDst != nil {
		p.ProbeDst = int(*c.ProbeDst)
	}
	check := func(field string, h int) error {
		if !isHost(g, h) {
			return fmt.Errorf("%s%s = %d is not a host of the topology (%s)", f, field, h, describeHosts(g))
		}
		return nil
	}
	for i, h := range p.Senders {
		if err := check(fmt.Sprintf("senders[%d]", i), h); err != nil {
			return p, err
		}
		p.LineBps = max(p.LineBps, hostBps(g, h))
	}
	if err := check("receiver", p.Receiver); err != nil {
		return p, err
	}
	if p.Probe {
		if err := check("probe_src", p.ProbeSrc); err != nil {
			return p, err
		}
		if err := check("probe_dst", p.ProbeDst); err != nil {
			return p, err
		}
	}
	return p, nil
}

// PerftestSummary is summary.json's `perftest`: the bandwidth flows'
// average throughput over the test and the probe's message latencies
// (docs/outputs.md §2, docs/workloads.md §3).
type PerftestSummary struct {
	DurationMs float64 `json:"duration_ms"`
	// MeasuredMs is the part of the test the run covered: duration_ms,
	// unless stop_ms ended the run first.
	MeasuredMs float64                `json:"measured_ms"`
	Bandwidth  BandwidthSummary       `json:"bandwidth"`
	Latency    metrics.LatencySummary `json:"latency"`
}

// BandwidthSummary is the throughput of the bandwidth flows: per flow and
// in total, payload delivered in order to the receiver by the end of the
// test divided by the test time (acked: the bytes the sender saw
// acknowledged, as perftest counts completions).
type BandwidthSummary struct {
	Flows     []BandwidthFlow `json:"flows"`
	TotalGbps float64         `json:"total_gbps"`
	MeanGbps  float64         `json:"mean_gbps"`
	Jain      float64         `json:"jain"`
}

// BandwidthFlow is one bandwidth flow's outcome.
type BandwidthFlow struct {
	FlowID         int     `json:"flow_id"`
	Src            int     `json:"src"`
	Dst            int     `json:"dst"`
	DeliveredBytes int64   `json:"delivered_bytes"`
	AckedBytes     int64   `json:"acked_bytes"`
	Gbps           float64 `json:"gbps"`
	AckedGbps      float64 `json:"acked_gbps"`
}

// perftestSummary builds the perftest summary of a run that ended at end.
func (b *Built) perftestSummary(end sim.Time) *PerftestSummary {
	n := b.Net
	pt := b.Scenario.Workload.Perftest
	measured := max(min(end, b.testEnd)-b.testStart, 0)
	out := &PerftestSummary{DurationMs: pt.DurationMs, MeasuredMs: measured.Seconds() * 1e3}
	bw := &out.Bandwidth
	var rates []float64
	probe := map[int]bool{}
	var lat []sim.Time
	for i := range b.Flows {
		f, q := &b.Flows[i], &n.QPs[i]
		switch f.Group {
		case workload.GroupBandwidth:
			fl := BandwidthFlow{FlowID: i, Src: f.Src, Dst: f.Dst, DeliveredBytes: q.Delivered(), AckedBytes: q.SndUna}
			if measured > 0 {
				fl.Gbps = float64(fl.DeliveredBytes) * 8 / measured.Seconds() / 1e9
				fl.AckedGbps = float64(fl.AckedBytes) * 8 / measured.Seconds() / 1e9
			}
			bw.Flows = append(bw.Flows, fl)
			bw.TotalGbps += fl.Gbps
			rates = append(rates, fl.Gbps)
		case workload.GroupProbe:
			probe[i] = true
			if f.Messages <= 1 && q.Done { // a one-message probe is a plain flow
				lat = append(lat, q.Finish-q.Start)
			}
		}
	}
	if len(rates) > 0 {
		bw.MeanGbps = bw.TotalGbps / float64(len(rates))
	}
	bw.Jain = metrics.Jain(rates)
	for _, m := range b.msgs {
		if probe[m.Flow] {
			lat = append(lat, m.Latency())
		}
	}
	out.Latency = metrics.SummarizeLatency(lat)
	return out
}
