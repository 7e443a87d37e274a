package scenario

import "slices"

// Generated workload sections. Any combination may be given; their flows
// are merged (with `flows`, `file` and `incast` too).

// PoissonSpec is background traffic: every host starts flows as a Poisson
// process whose sizes follow a CDF, at a target load (fraction of the host
// link rate), as the reference traffic generator.
type PoissonSpec struct {
	CDF  string  `yaml:"cdf"`            // websearch | datamining | fbhadoop | googlerpc | alistorage, or a file path
	Load float64 `yaml:"load,omitempty"` // (0, 1]; 0 (omitted) with core_load
	// CoreLoad, instead of Load, is the average load of the core layer (the
	// leaf→spine uplinks) of a leaf_spine topology; it is converted to the
	// per-host load by topo.LeafSpineParams.HostLoadForCoreLoad:
	// ρ_h = ρ_c·S·r_fabric / (H·r_host·f), f = (L−1)·H / (L·H − 1).
	CoreLoad  *float64 `yaml:"core_load,omitempty"`
	loadGiven bool     // load was given (set by applyDefaults)

	DurationMs float64  `yaml:"duration_ms"`
	StartNs    float64  `yaml:"start_ns"`
	Hosts      []NodeID `yaml:"hosts"` // default: every host
	Prio       int      `yaml:"prio"`
}

// IncastBurstsSpec is random N-to-1 incast bursts.
type IncastBurstsSpec struct {
	Senders    int      `yaml:"senders"`
	SizeBytes  int64    `yaml:"size_bytes"`
	Load       float64  `yaml:"load"`         // share of the aggregate host capacity
	BurstsPerS float64  `yaml:"bursts_per_s"` // or an explicit rate
	Count      int      `yaml:"count"`        // or an exact number of bursts
	DurationMs float64  `yaml:"duration_ms"`
	StartNs    float64  `yaml:"start_ns"`
	Hosts      []NodeID `yaml:"hosts"`
	Prio       int      `yaml:"prio"`
}

// AllToAllSpec is one flow per ordered host pair.
type AllToAllSpec struct {
	SizeBytes int64    `yaml:"size_bytes"`
	StartNs   float64  `yaml:"start_ns"`
	Hosts     []NodeID `yaml:"hosts"`
	Prio      int      `yaml:"prio"`
}

// ManyToManySpec is streams of equal messages from senders to receivers.
type ManyToManySpec struct {
	Senders    []NodeID `yaml:"senders"`
	Receivers  []NodeID `yaml:"receivers"`
	SizeBytes  int64    `yaml:"size_bytes"`
	PerSender  int      `yaml:"per_sender"`
	Count      int      `yaml:"count"`
	IntervalUs float64  `yaml:"interval_us"`
	StartNs    float64  `yaml:"start_ns"`
	RandomDst  bool     `yaml:"random_dst"`
	Prio       int      `yaml:"prio"`
}

// LongShortSpec is long flows plus sequences of short flows to a receiver.
type LongShortSpec struct {
	LongSenders   []NodeID `yaml:"long_senders"`
	LongReceivers []NodeID `yaml:"long_receivers"`
	LongSizeBytes int64    `yaml:"long_size_bytes"`
	LongStartNs   float64  `yaml:"long_start_ns"`
	ShortSenders  []NodeID `yaml:"short_senders"`
	Receiver      NodeID   `yaml:"receiver"`
	ShortCount    int      `yaml:"short_count"`
	RandomSenders bool     `yaml:"random_senders"`
	ShortMinBytes int64    `yaml:"short_min_bytes"`
	ShortMaxBytes int64    `yaml:"short_max_bytes"`
	ShortCDF      string   `yaml:"short_cdf"`
	ShortStartNs  float64  `yaml:"short_start_ns"`
	IntervalUs    float64  `yaml:"interval_us"`
	Poisson       bool     `yaml:"poisson"`
	Prio          int      `yaml:"prio"`
	// LongVia pins the long flows' data paths through this switch (route
	// pinning, as workload.flows[].via).
	LongVia *NodeID `yaml:"long_via,omitempty"`
}

// HasGenerators reports whether any generator section is present.
func (w *Workload) HasGenerators() bool {
	return w.Poisson != nil || w.IncastBursts != nil || w.AllToAll != nil || w.ManyToMany != nil || w.LongShort != nil ||
		w.CrossDC != nil || w.Perftest != nil
}

// workloadSections names the workload sections in merge order.
var workloadSections = []string{"flows", "file", "incast", "poisson", "incast_bursts", "all_to_all", "many_to_many", "long_short", "cross_dc", "perftest"}

// generatorSections are the sections of kind generated.
var generatorSections = workloadSections[3:]

// kindSections lists the sections each workload kind takes.
var kindSections = map[string][]string{
	"flows":     {"flows"},
	"ns3":       {"file"},
	"incast":    {"incast"},
	"generated": generatorSections,
	"mixed":     workloadSections,
}

// sections returns the sections given, in merge order.
func (w *Workload) sections() []string {
	var out []string
	for i, on := range []bool{len(w.Flows) > 0, w.File != "", w.Incast != nil, w.Poisson != nil,
		w.IncastBursts != nil, w.AllToAll != nil, w.ManyToMany != nil, w.LongShort != nil, w.CrossDC != nil, w.Perftest != nil} {
		if on {
			out = append(out, workloadSections[i])
		}
	}
	return out
}

// inferKind is the kind of a workload that does not name one: the kind of
// its only section, generated for generator sections only, mixed for
// several.
func (w *Workload) inferKind() string {
	secs := w.sections()
	switch {
	case len(secs) == 0:
		return "flows" // and validation asks for flows
	case !slices.Contains(secs, "flows") && !slices.Contains(secs, "file") && !slices.Contains(secs, "incast"):
		return "generated"
	case len(secs) > 1:
		return "mixed"
	case secs[0] == "file":
		return "ns3"
	}
	return secs[0]
}
