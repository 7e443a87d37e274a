// Package scenario defines ccsim's scenario files (YAML): the schema with
// its documented defaults and ranges, and strict parsing that reports every
// error at once. Building a simulation from a scenario is package
// scenario/assemble's job; a run's outcome and its files are package
// scenario/result's.
package scenario

import (
	"errors"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ccsim/ccsim/cc"
)

// Scenario is one scenario file. Parse replaces absent (or null) optional
// fields by the documented defaults (see README.md, "Scenario files"); a
// value given explicitly, 0 included, is kept and range-checked.
type Scenario struct {
	Name        string               `yaml:"name"`
	Description string               `yaml:"description"`
	Seed        uint64               `yaml:"seed"`
	StopMs      float64              `yaml:"stop_ms"`
	CC          []string             `yaml:"cc"`
	Params      map[string]yaml.Node `yaml:"params"` // per algorithm, decoded by validate
	Topology    Topology             `yaml:"topology"`
	Switch      Switch               `yaml:"switch"`
	Host        Host                 `yaml:"host"`
	Workload    Workload             `yaml:"workload"`
	Outputs     Outputs              `yaml:"outputs"`
	ccParams    map[string]cc.Params // validated parameters of the algorithms in CC
	dir         string               // directory of the scenario file (relative paths)
	sound       Soundness            // sections that passed validation
	undecoded   []string             // field paths the decoder could not fill (decodeerr.go)
	warnings    []string             // findings that are not errors (Warn)
	// node names of the topology's graph (named kinds) for NodeID fields,
	// and whether they are known (see resolveNames)
	nodeNames  []string
	namesKnown bool
}

// Soundness records which sections passed validation, so that
// assemble.Check builds only from sound inputs (and reports its findings
// next to the others).
type Soundness struct {
	Topology bool // topology: the graph can be built
	Fabric   bool // switch and host: the fabric configuration
	Workload bool // workload: the flows
	Outputs  bool // outputs: the recorders
}

// Topology selects and sizes the network.
type Topology struct {
	Kind          string   `yaml:"kind"` // star | ns3 | leaf_spine | fat_tree | fat320 | dcon_testbed | cross_dc | two_site
	Hosts         int      `yaml:"hosts"`
	LinkGbps      float64  `yaml:"link_gbps"`       // host links
	LinkDelayNs   float64  `yaml:"link_delay_ns"`   // host links
	FabricGbps    *float64 `yaml:"fabric_gbps"`     // switch-switch links (absent: link_gbps; fat320: its 400)
	FabricDelayNs *float64 `yaml:"fabric_delay_ns"` // switch-switch links (absent: link_delay_ns)
	Spines        int      `yaml:"spines"`
	Leaves        int      `yaml:"leaves"`
	HostsPerLeaf  int      `yaml:"hosts_per_leaf"`
	K             int      `yaml:"k"`
	HostsPerEdge  int      `yaml:"hosts_per_edge,omitempty"`
	File          string   `yaml:"file"`
	// HostLinks overrides the rate and/or delay of the links of chosen
	// hosts (any topology kind), e.g. a 25 Gb/s receiver among 100 Gb/s
	// senders (paper 004's mixed 100/25 Gb/s incast).
	HostLinks []HostLink `yaml:"host_links"`
	// CrossDC and TwoSite are the parameters of kinds cross_dc and
	// two_site (longhaul.go).
	CrossDC *CrossDCTopology `yaml:"cross_dc,omitempty"`
	TwoSite *TwoSiteSpec     `yaml:"two_site,omitempty"`
}

// HostLink sets the link of each listed host: rate gbps and one-way delay
// delay_ns (each: absent = unchanged).
type HostLink struct {
	Hosts   []NodeID `yaml:"hosts"`
	Gbps    *float64 `yaml:"gbps"`
	DelayNs *float64 `yaml:"delay_ns"`
}

// ECNRule is RED marking for ports of one speed.
type ECNRule struct {
	LinkGbps float64 `yaml:"link_gbps"`
	KminKB   float64 `yaml:"kmin_kb"`
	KmaxKB   float64 `yaml:"kmax_kb"`
	Pmax     float64 `yaml:"pmax"`
}

// Switch holds the switch settings.
type Switch struct {
	BufferMiB         float64   `yaml:"buffer_mib,omitempty"` // 0 (omitted) when buffer_mb is given
	BufferMB          *float64  `yaml:"buffer_mb,omitempty"`  // decimal MB (1e6 B), instead of buffer_mib
	PFC               string    `yaml:"pfc"`                  // dynamic | static | off
	PFCStaticKB       float64   `yaml:"pfc_static_kb"`
	ReserveBytes      *int64    `yaml:"reserve_bytes"`
	ResumeOffsetBytes *int64    `yaml:"resume_offset_bytes"`
	HeadroomRTTs      *int64    `yaml:"headroom_rtts"`
	ECN               *bool     `yaml:"ecn"`
	ECNRules          []ECNRule `yaml:"ecn_rules"`
	RefECMP           bool      `yaml:"ref_ecmp"`
	CtrlHighPrio      bool      `yaml:"ctrl_high_prio"`
	// Overrides set buffer, PFC, headroom and ECN at some switches (by
	// node or role); the fields above are the defaults (overrides.go).
	Overrides []SwitchOverride `yaml:"overrides,omitempty"`
}

// Host holds the NIC settings.
type Host struct {
	PayloadBytes   int      `yaml:"payload_bytes"`
	AckHighPrio    *bool    `yaml:"ack_high_prio"`
	CNPIntervalUs  *float64 `yaml:"cnp_interval_us"` // absent = the algorithm's preset (0 = every marked packet)
	CNPAsPacket    bool     `yaml:"cnp_as_packet"`
	NackIntervalUs *float64 `yaml:"nack_interval_us"`
	RTOUs          *float64 `yaml:"rto_us"`
	// AckDuplicates: the receiver answers a duplicate data packet with a
	// cumulative ACK, as an RC responder does; off = the reference's
	// receiver, which discards duplicates silently (docs/metrics.md §17).
	AckDuplicates bool `yaml:"ack_duplicates"`
}

// FlowSpec is one explicit flow.
type FlowSpec struct {
	Src       NodeID  `yaml:"src"`
	Dst       NodeID  `yaml:"dst"`
	SizeBytes int64   `yaml:"size_bytes"`
	StartNs   float64 `yaml:"start_ns"`
	Prio      int     `yaml:"prio"`
	// Via pins the flow's data path through this switch (route pinning,
	// workload.Flow.Via); it must lie on a shortest path from src to dst.
	Via *NodeID `yaml:"via,omitempty"`
	// After chains the flow to flow After (0-based index in this list): it
	// starts gap_ns after that flow completes (workload.Flow.HasAfter);
	// start_ns must then be absent.
	After *int `yaml:"after,omitempty"`
	// AlsoAfter is a second predecessor (with after): the flow starts
	// gap_ns after the later of the two completes (workload.Flow.AlsoAfter).
	AlsoAfter *int    `yaml:"also_after,omitempty"`
	GapNs     float64 `yaml:"gap_ns,omitempty"`
	// Next makes the flow a member of a message ring (workload.Flow.Next,
	// docs/workloads.md §4.4): each completed message (size_bytes) posts
	// the next message on flow Next, gap_ns later; the flow waits for its
	// next turn and never completes. One member of a ring has start_ns,
	// every other is chained (after) to its ring predecessor.
	Next *int `yaml:"next,omitempty"`
}

// Incast is N senders to one receiver, all starting at once.
type Incast struct {
	Senders    []NodeID `yaml:"senders"`
	Receiver   NodeID   `yaml:"receiver"`
	SizesBytes []int64  `yaml:"sizes_bytes"`
	StartNs    float64  `yaml:"start_ns"`
	Prio       int      `yaml:"prio"`
	// QPsPerSender splits each sender's bytes evenly over this many queue
	// pairs (flows of the same src and dst; the first size % n get one
	// byte more). Default 1. Paper 004 runs 80 senders × 50 QPs.
	QPsPerSender int `yaml:"qps_per_sender"`
	// Via pins every incast flow's data path through this switch.
	Via *NodeID `yaml:"via,omitempty"`
}

// Workload selects the traffic. Every section given is part of it: their
// flows are merged (workload.Merge). Kind, inferred when absent, documents
// or restricts the sections: flows, ns3 (file), incast, generated (the
// generator sections), mixed (any).
type Workload struct {
	Kind         string            `yaml:"kind"` // flows | ns3 | incast | generated | mixed
	Flows        []FlowSpec        `yaml:"flows"`
	File         string            `yaml:"file"`
	Incast       *Incast           `yaml:"incast"`
	Poisson      *PoissonSpec      `yaml:"poisson"`
	IncastBursts *IncastBurstsSpec `yaml:"incast_bursts"`
	AllToAll     *AllToAllSpec     `yaml:"all_to_all"`
	ManyToMany   *ManyToManySpec   `yaml:"many_to_many"`
	LongShort    *LongShortSpec    `yaml:"long_short"`
	CrossDC      *CrossDCSpec      `yaml:"cross_dc"` // crossdc.go
	Perftest     *PerftestSpec     `yaml:"perftest"` // perftest.go
}

// Outputs selects optional outputs.
type Outputs struct {
	RefFCT   bool `yaml:"ref_fct"`
	RefPFC   bool `yaml:"ref_pfc"`
	FlowFile bool `yaml:"flow_file"` // write the workload as a reference flow file (flows.txt)
	// QueueCDF samples every switch egress port that carries traffic every
	// queue_sample_us (default 1 µs) into classes "host" (switch → host)
	// and "fabric" (switch → switch): queue_cdf.csv, queue_stats.csv and
	// summary rows (p50/p80/p99/max).
	QueueCDF bool `yaml:"queue_cdf"`
	// ThroughputSampleUs samples every active flow's in-order delivered
	// bytes every N µs (0 = off); with JainWindowMs = [from, to] (ms after
	// the first flow start) the summary reports per-flow throughput and the
	// Jain index over that window.
	ThroughputSampleUs float64   `yaml:"throughput_sample_us"`
	JainWindowMs       []float64 `yaml:"jain_window_ms"`
	QueueSampleUs      float64   `yaml:"queue_sample_us"`
	QueuePorts         []Port    `yaml:"queue_ports"`
	// Series are binned time series (flow rates, link rates, queue
	// lengths, PFC pauses): see series.go.
	Series *Series `yaml:"series"`
	// RTTPerRTT makes every host take one RTT sample per round trip per
	// flow, whatever the algorithm (paper 001's rule, fabric/perrtt.go,
	// docs/metrics.md §12), and report exact statistics in summary.json's
	// rtt_per_rtt.
	RTTPerRTT bool `yaml:"rtt_per_rtt"`
	// RTTPerRTTFlows lists flows (workload indices) whose per-RTT samples
	// are written to rtt_per_rtt.csv (needs rtt_per_rtt).
	RTTPerRTTFlows []int `yaml:"rtt_per_rtt_flows"`
	// RateTraceFlows lists flows (workload indices) whose every pacing-rate
	// change is written to rate_trace.csv (fabric/ratetrace.go,
	// docs/outputs.md §17).
	RateTraceFlows []int `yaml:"rate_trace_flows"`
}

// Port names one port: node id and local port index (link order).
type Port struct {
	Node NodeID `yaml:"node"`
	Port int    `yaml:"port"`
}

// Errors collects every problem found in a scenario.
type Errors []error

// Error lists the problems, one per line.
func (e Errors) Error() string {
	var b strings.Builder
	for i, err := range e {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(err.Error())
	}
	return b.String()
}

// AppendError appends err to errs, flattened if it is an Errors (so that
// every problem stays one entry).
func AppendError(errs Errors, err error) Errors {
	var list Errors
	if errors.As(err, &list) {
		for _, e := range list {
			errs = AppendError(errs, e)
		}
		return errs
	}
	return append(errs, err)
}

// Warn records a finding about the scenario that is not an error (it runs
// as written) but is probably not what its author meant, e.g. a flow that
// starts after the stop time. `ccsim validate` and `ccsim run` print them.
func (s *Scenario) Warn(format string, args ...any) {
	m := fmt.Sprintf(format, args...)
	for _, w := range s.warnings {
		if w == m {
			return // checked again (CheckScenario after Check)
		}
	}
	s.warnings = append(s.warnings, m)
}

// Warnings returns the findings recorded by Warn, in order.
func (s *Scenario) Warnings() []string { return s.warnings }
