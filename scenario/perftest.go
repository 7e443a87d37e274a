package scenario

import (
	"fmt"

	"github.com/ccsim/ccsim/sim"
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
func (c *PerftestSpec) applyDefaults(has fieldGiven) {
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

// TestEnd is the end of the perftest test (absolute simulated time).
func (c *PerftestSpec) TestEnd() sim.Time { return NsTime(c.StartNs) + MsTime(c.DurationMs) }
