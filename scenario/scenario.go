// Package scenario defines ccsim's scenario files (YAML): the schema with
// its documented defaults and ranges, strict parsing that reports every
// error at once, and the construction of a simulation from a scenario.
package scenario

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

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
	sound       soundness            // sections that passed validation
	// node names of the topology's graph (named kinds) for NodeID fields,
	// and whether they are known (see resolveNames)
	nodeNames  []string
	namesKnown bool
}

// soundness records which sections passed validation, so that Check builds
// only from sound inputs (and reports its findings next to the others).
type soundness struct {
	topology, fabric, workload, outputs bool
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
	// two_site (topo_crossdc.go).
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
	// node or role); the fields above are the defaults (crossdc.go).
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
	After *int    `yaml:"after,omitempty"`
	GapNs float64 `yaml:"gap_ns,omitempty"`
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
	// lengths, PFC pauses): see timeseries.go.
	Series *Series `yaml:"series"`
	// RTTPerRTT makes every host take one RTT sample per round trip per
	// flow, whatever the algorithm (paper 001's rule, fabric/perrtt.go,
	// docs/metrics.md §12), and report exact statistics in summary.json's
	// rtt_per_rtt.
	RTTPerRTT bool `yaml:"rtt_per_rtt"`
	// RTTPerRTTFlows lists flows (workload indices) whose per-RTT samples
	// are written to rtt_per_rtt.csv (needs rtt_per_rtt).
	RTTPerRTTFlows []int `yaml:"rtt_per_rtt_flows"`
}

// Port names one port: node id and local port index (link order).
type Port struct {
	Node NodeID `yaml:"node"`
	Port int    `yaml:"port"`
}

// Errors collects every problem found in a scenario.
type Errors []error

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

// Load reads and validates a scenario file. Relative paths inside it are
// resolved against the file's directory.
func Load(path string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s, err := Parse(data)
	if s != nil {
		s.dir = filepath.Dir(path)
	}
	if errors.Is(err, errParserPanic) {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err != nil {
		return s, err
	}
	if err := s.checkFiles(); err != nil {
		return s, err
	}
	return s, nil
}

// errParserPanic marks the error Parse returns when the YAML decoder
// panicked on the input.
var errParserPanic = errors.New("the YAML decoder failed on this input")

// parseHook, if set, runs inside Parse's panic guard (tests).
var parseHook func()

// Parse decodes a scenario strictly (an unknown field is an error naming
// it), applies defaults and validates every field, reporting all errors.
// It never panics: a panic of the YAML decoder becomes an error.
func Parse(data []byte) (s *Scenario, err error) {
	defer func() {
		if p := recover(); p != nil {
			s, err = nil, fmt.Errorf("scenario: %w (%v)", errParserPanic, p)
		}
	}()
	s, errs, err := safeDecode(data)
	if err != nil {
		return nil, err
	}
	errs = append(errs, s.validate()...)
	if len(errs) > 0 {
		return s, errs
	}
	return s, nil
}

// safeDecode is decode with a panic of the YAML decoder turned into an
// error.
func safeDecode(data []byte) (s *Scenario, errs Errors, err error) {
	defer func() {
		if p := recover(); p != nil {
			s, errs, err = nil, nil, fmt.Errorf("scenario: %w (%v)", errParserPanic, p)
		}
	}()
	if parseHook != nil {
		parseHook()
	}
	return decode(data)
}

// decode decodes a scenario strictly and applies the defaults. It returns
// the field errors found (unknown fields, type mismatches, explicit values
// without a representation), or err if the input is not a YAML document.
func decode(data []byte) (*Scenario, Errors, error) {
	// The document tree tells which fields are given (absent and null take
	// the defaults); the strict decode fills the struct.
	var root yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&root); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil, fmt.Errorf("scenario: empty document")
		}
		return nil, nil, fmt.Errorf("scenario: %w", err)
	}
	var s Scenario
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var errs Errors
	if err := dec.Decode(&s); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil, fmt.Errorf("scenario: empty document")
		}
		// Unknown fields and type mismatches leave the rest of the document
		// decoded: report them together with the validation errors.
		var te *yaml.TypeError
		if !errors.As(err, &te) {
			return nil, nil, fmt.Errorf("scenario: %w", err)
		}
		for _, m := range te.Errors {
			errs = append(errs, errors.New(m))
		}
	}
	errs = append(errs, s.applyDefaults(&root)...)
	return &s, errs, nil
}

// Default values of the scenario schema.
const (
	DefaultSeed         = 1
	DefaultStopMs       = 10_000.0
	DefaultLinkGbps     = 100.0
	DefaultLinkDelayNs  = 1000.0
	DefaultBufferMiB    = 32.0
	DefaultPayloadBytes = 1000
	DefaultPrio         = 3
	// The link defaults of topology.kind dcon_testbed: the testbed's 40 Gb/s
	// and 5 µs.
	DCONTestbedGbps    = 40.0
	DCONTestbedDelayNs = 5000.0
)

// applyDefaults sets the fields that root (the document) does not give to
// their defaults. It returns the errors of explicit values that have no
// other representation (0 of a field whose zero value means "default").
func (s *Scenario) applyDefaults(root *yaml.Node) Errors {
	var errs Errors
	has := func(path ...any) bool { return given(root, path...) }
	if !has("seed") {
		s.Seed = DefaultSeed
	}
	if !has("stop_ms") {
		s.StopMs = DefaultStopMs
	}
	if !has("cc") {
		s.CC = []string{"dcqcn"}
	}
	t := &s.Topology
	if !has("topology", "kind") {
		t.Kind = "star"
	}
	if !has("topology", "link_gbps") {
		t.LinkGbps = DefaultLinkGbps
		switch t.Kind {
		case "dcon_testbed":
			t.LinkGbps = DCONTestbedGbps
		case "two_site":
			t.LinkGbps = TwoSiteGbps
		}
	}
	if !has("topology", "link_delay_ns") {
		t.LinkDelayNs = DefaultLinkDelayNs
		if t.Kind == "dcon_testbed" {
			t.LinkDelayNs = DCONTestbedDelayNs
		}
	}
	if has("topology", "hosts_per_edge") && t.HostsPerEdge == 0 {
		errs = append(errs, fmt.Errorf("topology.hosts_per_edge = 0 out of range [1, 512] (omit it for k/2)"))
	}
	sw := &s.Switch
	if !has("switch", "buffer_mib") && !has("switch", "buffer_mb") {
		sw.BufferMiB = DefaultBufferMiB
	}
	if !has("switch", "pfc") {
		sw.PFC = "dynamic"
	}
	if !has("switch", "pfc_static_kb") {
		sw.PFCStaticKB = 512
	}
	if !has("host", "payload_bytes") {
		s.Host.PayloadBytes = DefaultPayloadBytes
	}
	w := &s.Workload
	if !has("workload", "kind") {
		w.Kind = w.inferKind()
	}
	for i := range w.Flows {
		if !has("workload", "flows", i, "prio") {
			w.Flows[i].Prio = DefaultPrio
		}
	}
	if w.Incast != nil {
		if !has("workload", "incast", "prio") {
			w.Incast.Prio = DefaultPrio
		}
		if !has("workload", "incast", "qps_per_sender") {
			w.Incast.QPsPerSender = 1
		}
	}
	genPrio := func(key string, prio *int) {
		if !has("workload", key, "prio") {
			*prio = DefaultPrio
		}
	}
	if p := w.Poisson; p != nil {
		genPrio("poisson", &p.Prio)
		p.loadGiven = has("workload", "poisson", "load")
	}
	if p := w.IncastBursts; p != nil {
		genPrio("incast_bursts", &p.Prio)
	}
	if p := w.AllToAll; p != nil {
		genPrio("all_to_all", &p.Prio)
	}
	if p := w.ManyToMany; p != nil {
		genPrio("many_to_many", &p.Prio)
	}
	if p := w.LongShort; p != nil {
		genPrio("long_short", &p.Prio)
	}
	if m := w.ManyToMany; m != nil && !has("workload", "many_to_many", "per_sender") {
		m.PerSender = 1
	}
	if c := w.CrossDC; c != nil {
		errs = append(errs, c.applyDefaults(has)...)
	}
	if p := w.Perftest; p != nil {
		p.applyDefaults(has)
	}
	return errs
}

// CheckName checks a name used as one path component (a scenario name
// under results/, an algorithm's directory): 1 to 200 letters, digits and
// . _ - +, not starting with a dot (no "..", no separators, no control
// characters). field names it in the error.
func CheckName(field, name string) error {
	bad := len(name) == 0 || len(name) > 200 || name[0] == '.'
	for _, r := range name {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("._-+", r)) {
			bad = true
		}
	}
	if bad {
		return fmt.Errorf("%s = %q: it names a directory; use 1 to 200 letters, digits and . _ - + (not starting with a dot)", field, name)
	}
	return nil
}

// nodeRange checks a node id field (a name that did not resolve is
// reported by resolveNames).
func nodeRange(errs *Errors, field string, v NodeID) {
	if !v.unresolved() {
		rangef(errs, field, float64(v), 0, 1e7)
	}
}

func rangef(errs *Errors, field string, v, lo, hi float64) {
	if !(v >= lo && v <= hi) {
		*errs = append(*errs, fmt.Errorf("%s = %v out of range [%v, %v]", field, v, lo, hi))
	}
}

func (s *Scenario) validate() Errors {
	var errs Errors
	if s.Name != "" {
		if err := CheckName("name", s.Name); err != nil {
			errs = append(errs, err)
		}
	}
	rangef(&errs, "stop_ms", s.StopMs, 1e-6, 1e6)
	if len(s.CC) == 0 {
		errs = append(errs, fmt.Errorf("cc: at least one algorithm is required (names: ccsim list)"))
	}
	s.ccParams = map[string]cc.Params{}
	seen := map[string]bool{}
	for i, name := range s.CC {
		spec, err := cc.Lookup(name)
		if err != nil {
			errs = append(errs, fmt.Errorf("cc[%d]: %v", i, err))
			continue
		}
		if seen[name] {
			errs = append(errs, fmt.Errorf("cc[%d]: %q listed twice", i, name))
		}
		seen[name] = true
		p := spec.Defaults()
		raw, ok := s.Params[name]
		if !ok {
			raw, ok = s.Params[cc.BaseName(name)] // dcqcn+win takes params.dcqcn
		}
		bad := false
		if ok {
			for _, err := range decodeParams(&raw, p) {
				errs = append(errs, fmt.Errorf("params.%s: %v", name, err))
				bad = true
			}
		}
		// validated even after a decoding error: the fields that decoded
		// are checked too
		if err := p.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("params.%s.%v", name, err))
			bad = true
		}
		if !bad {
			s.ccParams[name] = p
		}
	}
	for _, name := range slices.Sorted(maps.Keys(s.Params)) {
		if _, err := cc.Lookup(name); err != nil {
			errs = append(errs, fmt.Errorf("params.%s: %v", name, err))
		}
	}
	n := len(errs)
	t := &s.Topology
	switch t.Kind {
	case "star":
		// routing tables are nodes × hosts entries: 4096 hosts ≈ 134 MB
		if t.Hosts < 2 || t.Hosts > 4096 {
			errs = append(errs, fmt.Errorf("topology.hosts = %d out of range [2, 4096]", t.Hosts))
		}
		if t.File != "" {
			errs = append(errs, fmt.Errorf("topology.file is only valid with kind ns3"))
		}
	case "ns3":
		if t.File == "" {
			errs = append(errs, fmt.Errorf("topology.file is required with kind ns3"))
		}
	case "leaf_spine":
		rangef(&errs, "topology.spines", float64(t.Spines), 1, 4096)
		rangef(&errs, "topology.leaves", float64(t.Leaves), 1, 4096)
		rangef(&errs, "topology.hosts_per_leaf", float64(t.HostsPerLeaf), 1, 4096)
		if t.Leaves*t.HostsPerLeaf > 8192 {
			errs = append(errs, fmt.Errorf("topology: leaves × hosts_per_leaf = %d hosts out of range [1, 8192]", t.Leaves*t.HostsPerLeaf))
		}
	case "fat_tree":
		if t.K < 2 || t.K > 32 || t.K%2 != 0 {
			errs = append(errs, fmt.Errorf("topology.k = %d: must be even, in [2, 32]", t.K))
		}
		if t.HostsPerEdge != 0 {
			rangef(&errs, "topology.hosts_per_edge", float64(t.HostsPerEdge), 1, 512)
		}
	case "fat320":
	case "cross_dc", "two_site":
		// validateLongHaulKinds
	case "dcon_testbed":
		for _, f := range []struct {
			name string
			v    int
		}{{"hosts", t.Hosts}, {"spines", t.Spines}, {"leaves", t.Leaves}, {"hosts_per_leaf", t.HostsPerLeaf}, {"k", t.K}, {"hosts_per_edge", t.HostsPerEdge}} {
			if f.v != 0 {
				errs = append(errs, fmt.Errorf("topology.%s = %d: kind dcon_testbed has a fixed shape (3 leaves, 2 spines, 8 + 8 + 2 hosts); set only the link rates and delays", f.name, f.v))
			}
		}
		if t.File != "" {
			errs = append(errs, fmt.Errorf("topology.file is only valid with kind ns3"))
		}
	default:
		errs = append(errs, fmt.Errorf("topology.kind = %q: allowed values star, ns3, leaf_spine, fat_tree, fat320, dcon_testbed, cross_dc, two_site", t.Kind))
	}
	s.validateLongHaulKinds(&errs)
	for i, hl := range t.HostLinks {
		f := fmt.Sprintf("topology.host_links[%d]", i)
		if len(hl.Hosts) == 0 {
			errs = append(errs, fmt.Errorf("%s.hosts: at least one host is required", f))
		}
		if hl.Gbps != nil {
			rangef(&errs, f+".gbps", *hl.Gbps, 0.001, 10_000)
		}
		if hl.DelayNs != nil {
			rangef(&errs, f+".delay_ns", *hl.DelayNs, 0, 1e9)
		}
		if hl.Gbps == nil && hl.DelayNs == nil {
			errs = append(errs, fmt.Errorf("%s: set gbps and/or delay_ns", f))
		}
	}
	if t.FabricGbps != nil {
		rangef(&errs, "topology.fabric_gbps", *t.FabricGbps, 0.001, 10_000)
	}
	if t.FabricDelayNs != nil {
		rangef(&errs, "topology.fabric_delay_ns", *t.FabricDelayNs, 0, 1e9)
	}
	rangef(&errs, "topology.link_gbps", t.LinkGbps, 0.001, 10_000)
	rangef(&errs, "topology.link_delay_ns", t.LinkDelayNs, 0, 1e9)
	// node names resolve against the graph the section builds
	named, known := s.namedGraph(len(errs) == n, &errs)
	s.nodeNames, s.namesKnown = nil, known
	if named != nil {
		s.nodeNames = named.Names
	}
	badNodes := s.resolveNames(&t.HostLinks, "topology.host_links", &errs)
	s.sound.topology = len(errs) == n && !badNodes
	n = len(errs)
	sw := &s.Switch
	if sw.BufferMB != nil {
		if sw.BufferMiB != 0 {
			errs = append(errs, fmt.Errorf("switch.buffer_mb and switch.buffer_mib both given: give the buffer in one unit"))
		}
		rangef(&errs, "switch.buffer_mb", *sw.BufferMB, 0.065536, 1099511.627776) // = buffer_mib's range in bytes
	} else {
		rangef(&errs, "switch.buffer_mib", sw.BufferMiB, 0.0625, 1<<20)
	}
	switch sw.PFC {
	case "dynamic", "static", "off":
	default:
		errs = append(errs, fmt.Errorf("switch.pfc = %q: allowed values dynamic, static, off", sw.PFC))
	}
	rangef(&errs, "switch.pfc_static_kb", sw.PFCStaticKB, 1, 1<<30)
	if sw.ReserveBytes != nil {
		rangef(&errs, "switch.reserve_bytes", float64(*sw.ReserveBytes), 0, 1<<30)
	}
	if sw.ResumeOffsetBytes != nil {
		rangef(&errs, "switch.resume_offset_bytes", float64(*sw.ResumeOffsetBytes), 0, 1<<30)
	}
	if sw.HeadroomRTTs != nil {
		rangef(&errs, "switch.headroom_rtts", float64(*sw.HeadroomRTTs), 0, 1000)
	}
	badNodes = s.resolveNames(&sw.Overrides, "switch.overrides", &errs)
	s.validateOverrides(named, &errs)
	for i, r := range sw.ECNRules {
		f := fmt.Sprintf("switch.ecn_rules[%d]", i)
		rangef(&errs, f+".link_gbps", r.LinkGbps, 0.001, 10_000)
		rangef(&errs, f+".kmin_kb", r.KminKB, 0, 1<<30)
		rangef(&errs, f+".kmax_kb", r.KmaxKB, r.KminKB, 1<<30)
		rangef(&errs, f+".pmax", r.Pmax, 0, 1)
	}
	h := &s.Host
	rangef(&errs, "host.payload_bytes", float64(h.PayloadBytes), 64, 9000)
	if h.CNPIntervalUs != nil {
		rangef(&errs, "host.cnp_interval_us", *h.CNPIntervalUs, 0, 1e6)
	}
	if h.NackIntervalUs != nil {
		rangef(&errs, "host.nack_interval_us", *h.NackIntervalUs, 0, 1e6)
	}
	if h.RTOUs != nil {
		rangef(&errs, "host.rto_us", *h.RTOUs, 0, 1e7)
	}
	s.sound.fabric = len(errs) == n && !badNodes
	n = len(errs)
	w := &s.Workload
	badNodes = s.resolveNames(w, "workload", &errs)
	switch w.Kind {
	case "flows":
		if len(w.Flows) == 0 {
			errs = append(errs, fmt.Errorf("workload.flows: at least one flow is required with kind flows"))
		}
	case "ns3":
		if w.File == "" {
			errs = append(errs, fmt.Errorf("workload.file is required with kind ns3"))
		}
	case "incast":
		if w.Incast == nil {
			errs = append(errs, fmt.Errorf("workload.incast is required with kind incast"))
		}
	case "generated":
		if !w.hasGenerators() {
			errs = append(errs, fmt.Errorf("workload: kind generated needs one of %s", strings.Join(generatorSections, ", ")))
		}
	case "mixed":
		if len(w.sections()) == 0 {
			errs = append(errs, fmt.Errorf("workload: kind mixed needs at least one of %s", strings.Join(workloadSections, ", ")))
		}
	default:
		errs = append(errs, fmt.Errorf("workload.kind = %q: allowed values flows, ns3, incast, generated, mixed", w.Kind))
	}
	if allowed, ok := kindSections[w.Kind]; ok {
		for _, sec := range w.sections() {
			if !slices.Contains(allowed, sec) {
				errs = append(errs, fmt.Errorf("workload.kind = %s contradicts workload.%s: kind %s takes only workload.%s (omit kind, or use kind: mixed, to combine sections)",
					w.Kind, sec, w.Kind, strings.Join(allowed, ", workload.")))
			}
		}
	}
	for i, f := range w.Flows {
		p := fmt.Sprintf("workload.flows[%d]", i)
		rangef(&errs, p+".size_bytes", float64(f.SizeBytes), 1, 1e15)
		rangef(&errs, p+".start_ns", f.StartNs, 0, 1e12)
		rangef(&errs, p+".prio", float64(f.Prio), 1, 7)
		nodeRange(&errs, p+".src", f.Src)
		nodeRange(&errs, p+".dst", f.Dst)
		if f.Via != nil {
			nodeRange(&errs, p+".via", *f.Via)
		}
		if f.Src == f.Dst && !f.Src.unresolved() {
			errs = append(errs, fmt.Errorf("%s: src and dst are both %d", p, f.Src))
		}
	}
	s.validateChainsAndTests(&errs) // perftest.go
	if in := w.Incast; in != nil {
		if len(in.Senders) == 0 {
			errs = append(errs, fmt.Errorf("workload.incast.senders: at least one sender is required"))
		}
		if len(in.SizesBytes) != 1 && len(in.SizesBytes) != len(in.Senders) {
			errs = append(errs, fmt.Errorf("workload.incast.sizes_bytes: need 1 or len(senders) = %d sizes, got %d", len(in.Senders), len(in.SizesBytes)))
		}
		for i, v := range in.SizesBytes {
			rangef(&errs, fmt.Sprintf("workload.incast.sizes_bytes[%d]", i), float64(v), 1, 1e15)
		}
		for i, v := range in.Senders {
			if v == in.Receiver && !v.unresolved() {
				errs = append(errs, fmt.Errorf("workload.incast.senders[%d] = %d equals the receiver", i, v))
			}
		}
		rangef(&errs, "workload.incast.start_ns", in.StartNs, 0, 1e12)
		rangef(&errs, "workload.incast.prio", float64(in.Prio), 1, 7)
		rangef(&errs, "workload.incast.qps_per_sender", float64(in.QPsPerSender), 1, 4096)
		for i, v := range in.SizesBytes {
			if int64(in.QPsPerSender) > v && v >= 1 {
				errs = append(errs, fmt.Errorf("workload.incast.sizes_bytes[%d] = %d is smaller than qps_per_sender = %d (every QP needs at least one byte)", i, v, in.QPsPerSender))
			}
		}
	}
	genPrio := func(key string, prio int) {
		rangef(&errs, "workload."+key+".prio", float64(prio), 1, 7)
	}
	if p := w.Poisson; p != nil {
		genPrio("poisson", p.Prio)
	}
	if p := w.IncastBursts; p != nil {
		genPrio("incast_bursts", p.Prio)
	}
	if p := w.AllToAll; p != nil {
		genPrio("all_to_all", p.Prio)
	}
	if p := w.ManyToMany; p != nil {
		genPrio("many_to_many", p.Prio)
	}
	if p := w.LongShort; p != nil {
		genPrio("long_short", p.Prio)
	}
	if p := w.ManyToMany; p != nil {
		rangef(&errs, "workload.many_to_many.per_sender", float64(p.PerSender), 1, 1e6)
	}
	if p := w.Poisson; p != nil {
		if p.CoreLoad != nil {
			if p.loadGiven || p.Load != 0 {
				errs = append(errs, fmt.Errorf("workload.poisson.load and workload.poisson.core_load both given: give one (core_load is converted to the per-host load)"))
			}
			rangef(&errs, "workload.poisson.core_load", *p.CoreLoad, 1e-6, 1)
			if t.Kind != "leaf_spine" {
				errs = append(errs, fmt.Errorf("workload.poisson.core_load needs topology.kind leaf_spine (the leaf→spine uplinks are the core), not %s; give workload.poisson.load", t.Kind))
			}
			if len(p.Hosts) > 0 {
				errs = append(errs, fmt.Errorf("workload.poisson.core_load assumes every host sends and receives; remove workload.poisson.hosts or give workload.poisson.load"))
			}
			for i, hl := range t.HostLinks {
				if hl.Gbps != nil {
					errs = append(errs, fmt.Errorf("workload.poisson.core_load assumes equal host links; topology.host_links[%d].gbps changes some", i))
				}
			}
		} else if !p.loadGiven && p.Load == 0 {
			errs = append(errs, fmt.Errorf("workload.poisson.load is required, in [1e-06, 1] (or workload.poisson.core_load on a leaf_spine topology)"))
		} else {
			rangef(&errs, "workload.poisson.load", p.Load, 1e-6, 1)
		}
		rangef(&errs, "workload.poisson.duration_ms", p.DurationMs, 1e-6, 1e5)
		if p.CDF == "" {
			errs = append(errs, fmt.Errorf("workload.poisson.cdf is required (websearch, datamining, fbhadoop, googlerpc, alistorage or a file)"))
		}
	}
	if p := w.IncastBursts; p != nil {
		rangef(&errs, "workload.incast_bursts.senders", float64(p.Senders), 1, 1e5)
		rangef(&errs, "workload.incast_bursts.size_bytes", float64(p.SizeBytes), 1, 1e12)
		rangef(&errs, "workload.incast_bursts.duration_ms", p.DurationMs, 1e-6, 1e5)
	}
	if p := w.AllToAll; p != nil {
		rangef(&errs, "workload.all_to_all.size_bytes", float64(p.SizeBytes), 1, 1e12)
	}
	s.sound.workload = len(errs) == n && !badNodes
	n = len(errs)
	o := &s.Outputs
	badNodes = s.resolveNames(o, "outputs", &errs)
	if o.QueueSampleUs != 0 {
		rangef(&errs, "outputs.queue_sample_us", o.QueueSampleUs, 0.01, 1e6)
	}
	if o.ThroughputSampleUs != 0 {
		rangef(&errs, "outputs.throughput_sample_us", o.ThroughputSampleUs, 0.01, 1e6)
	}
	if len(o.JainWindowMs) > 0 {
		if len(o.JainWindowMs) != 2 || !(o.JainWindowMs[0] >= 0 && o.JainWindowMs[1] > o.JainWindowMs[0]) {
			errs = append(errs, fmt.Errorf("outputs.jain_window_ms = %v: need [from, to] with 0 <= from < to", o.JainWindowMs))
		}
		if o.ThroughputSampleUs == 0 {
			errs = append(errs, fmt.Errorf("outputs.jain_window_ms needs outputs.throughput_sample_us in [0.01, 1e6]"))
		}
	}
	o.Series.validate(&errs)
	if len(o.RTTPerRTTFlows) > 0 && !o.RTTPerRTT {
		errs = append(errs, fmt.Errorf("outputs.rtt_per_rtt_flows needs outputs.rtt_per_rtt: true"))
	}
	for i, f := range o.RTTPerRTTFlows {
		if f < 0 {
			errs = append(errs, fmt.Errorf("outputs.rtt_per_rtt_flows[%d] = %d: a flow index, >= 0", i, f))
		}
	}
	if len(o.QueuePorts) > 0 && o.QueueSampleUs == 0 {
		errs = append(errs, fmt.Errorf("outputs.queue_ports needs outputs.queue_sample_us in [0.01, 1e6]"))
	}
	s.sound.outputs = len(errs) == n && !badNodes
	return errs
}

// decodeParams decodes an algorithm's parameters from their node of the
// document strictly: a name that is not a parameter is an error, and every
// error names its line in the file.
func decodeParams(n *yaml.Node, into cc.Params) Errors {
	var errs Errors
	if keys, ok := mappingKeys(n); ok {
		known := map[string]bool{}
		var names []string
		for _, pi := range cc.Describe(into) {
			known[pi.Name] = true
			names = append(names, pi.Name)
		}
		for _, k := range keys {
			if !known[k.Value] {
				errs = append(errs, fmt.Errorf("line %d: field %s not found in type %s (parameters: %s)",
					k.Line, k.Value, strings.TrimPrefix(fmt.Sprintf("%T", into), "*"), strings.Join(names, ", ")))
			}
		}
	}
	if err := n.Decode(into); err != nil {
		var te *yaml.TypeError
		if !errors.As(err, &te) {
			return append(errs, err)
		}
		for _, m := range te.Errors {
			errs = append(errs, errors.New(m))
		}
	}
	// in the order of the file
	slices.SortStableFunc(errs, func(a, b error) int { return lineOf(a) - lineOf(b) })
	return errs
}

// lineOf is N of an error "line N: ...", else 0.
func lineOf(err error) int {
	var n int
	if _, e := fmt.Sscanf(err.Error(), "line %d:", &n); e != nil {
		return 0
	}
	return n
}

func (s *Scenario) path(p string) string {
	if filepath.IsAbs(p) || s.dir == "" {
		return p
	}
	return filepath.Join(s.dir, p)
}

func (s *Scenario) checkFiles() error {
	var errs Errors
	if s.Topology.Kind == "ns3" {
		if _, err := os.Stat(s.path(s.Topology.File)); err != nil {
			errs = append(errs, fmt.Errorf("topology.file: %v", err))
			s.sound.topology = false
		}
	}
	if s.Workload.File != "" {
		if _, err := os.Stat(s.path(s.Workload.File)); err != nil {
			errs = append(errs, fmt.Errorf("workload.file: %v", err))
			s.sound.workload = false
		}
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// Params returns the validated parameters of algorithm name.
func (s *Scenario) ParamsOf(name string) cc.Params { return s.ccParams[name] }

// Resolve returns a path from the scenario resolved against its directory.
func (s *Scenario) Resolve(p string) string { return s.path(p) }
