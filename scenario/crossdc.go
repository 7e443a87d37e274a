package scenario

import "fmt"

// CrossDCSpec is the cross-datacenter traffic mix of paper 002 (W7,
// workload.CrossDC; docs/workloads.md §2). Absent fields take the
// defaults of CrossDCDefaults; the long haul and the domains come from the
// topology unless given.
type CrossDCSpec struct {
	CDF          string  `yaml:"cdf"`            // all-to-all flow sizes: a built-in CDF name or a file; default websearch
	Load         float64 `yaml:"load"`           // ρ, [1e-6, 1]; default 0.6
	LoadBasis    string  `yaml:"load_basis"`     // longhaul | host; default longhaul
	CrossToIntra float64 `yaml:"cross_to_intra"` // cross : intra flow arrivals, [0.001, 1e6]; default 5
	IncastShare  float64 `yaml:"incast_share"`   // [0, 1]; default 0.5
	IncastFanin  int     `yaml:"incast_fanin"`   // senders per incast event, [1, 4096]; default 4
	// IncastSizeBytes is the size of every incast flow; absent: the long
	// haul's bandwidth-delay product, rate × 2 × one-way delay / 8.
	IncastSizeBytes int64 `yaml:"incast_size_bytes,omitempty"`
	// IncastEvents, if positive, is the exact number of incast events per
	// direction (at uniform times) instead of a Poisson process.
	IncastEvents int `yaml:"incast_events,omitempty"`
	// LongHaulGbps and LongHaulDelayUs give the long haul's capacity per
	// direction and one-way delay; absent: the links of the topology
	// that join two domains (their total rate, their longest delay).
	LongHaulGbps    float64 `yaml:"longhaul_gbps,omitempty"`
	LongHaulDelayUs float64 `yaml:"longhaul_delay_us,omitempty"`
	DurationMs      float64 `yaml:"duration_ms"` // arrival window, [1e-6, 1e5]; default 20
	StartNs         float64 `yaml:"start_ns"`
	// DomainA and DomainB are the hosts of the two datacenters; absent:
	// the hosts of the topology's two domains (topo.Graph.Domains), the
	// lower domain id first.
	DomainA []NodeID `yaml:"domain_a"`
	DomainB []NodeID `yaml:"domain_b"`
	Prio    int      `yaml:"prio"`
}

// CrossDCDefaults are the defaults of workload.cross_dc (paper 002 §4.1 as
// docs/workloads.md §2 reads it).
var CrossDCDefaults = CrossDCSpec{CDF: "websearch", Load: 0.6, LoadBasis: "longhaul", CrossToIntra: 5,
	IncastShare: 0.5, IncastFanin: 4, DurationMs: 20, Prio: DefaultPrio}

// applyDefaults fills the fields of workload.cross_dc the document does
// not give; explicit zeros of fields whose absence means "from the
// topology" are errors.
func (c *CrossDCSpec) applyDefaults(has fieldGiven) Errors {
	var errs Errors
	d := &CrossDCDefaults
	key := func(k string) bool { return has("workload", "cross_dc", k) }
	if !key("cdf") {
		c.CDF = d.CDF
	}
	if !key("load") {
		c.Load = d.Load
	}
	if !key("load_basis") {
		c.LoadBasis = d.LoadBasis
	}
	if !key("cross_to_intra") {
		c.CrossToIntra = d.CrossToIntra
	}
	if !key("incast_share") {
		c.IncastShare = d.IncastShare
	}
	if !key("incast_fanin") {
		c.IncastFanin = d.IncastFanin
	}
	if !key("duration_ms") {
		c.DurationMs = d.DurationMs
	}
	if !key("prio") {
		c.Prio = d.Prio
	}
	for _, z := range []struct {
		key  string
		zero bool
		rng  string
	}{
		{"incast_size_bytes", c.IncastSizeBytes == 0, "[1, 1e12]; omit it for the long haul's bandwidth-delay product"},
		{"incast_events", c.IncastEvents == 0, "[1, 1e6]; omit it for Poisson incast events"},
		{"longhaul_gbps", c.LongHaulGbps == 0, "[0.001, 1e5]; omit it to take the topology's"},
		{"longhaul_delay_us", c.LongHaulDelayUs == 0, "[1e-6, 1e7]; omit it to take the topology's"},
	} {
		if key(z.key) && z.zero {
			errs = append(errs, fmt.Errorf("workload.cross_dc.%s = 0 out of range %s", z.key, z.rng))
		}
	}
	return errs
}

// validate range-checks workload.cross_dc.
func (c *CrossDCSpec) validate(errs *Errors) {
	const f = "workload.cross_dc."
	if c.CDF == "" {
		*errs = append(*errs, fmt.Errorf("%scdf is empty: give websearch, datamining, fbhadoop, googlerpc, alistorage or a file", f))
	}
	rangef(errs, f+"load", c.Load, 1e-6, 1)
	if c.LoadBasis != "longhaul" && c.LoadBasis != "host" {
		*errs = append(*errs, fmt.Errorf("%sload_basis = %q: allowed values longhaul, host", f, c.LoadBasis))
	}
	rangef(errs, f+"cross_to_intra", c.CrossToIntra, 0.001, 1e6)
	rangef(errs, f+"incast_share", c.IncastShare, 0, 1)
	rangef(errs, f+"incast_fanin", float64(c.IncastFanin), 1, 4096)
	if c.IncastSizeBytes != 0 {
		rangef(errs, f+"incast_size_bytes", float64(c.IncastSizeBytes), 1, 1e12)
	}
	if c.IncastEvents != 0 {
		rangef(errs, f+"incast_events", float64(c.IncastEvents), 1, 1e6)
	}
	if c.LongHaulGbps != 0 {
		rangef(errs, f+"longhaul_gbps", c.LongHaulGbps, 0.001, 1e5)
	}
	if c.LongHaulDelayUs != 0 {
		rangef(errs, f+"longhaul_delay_us", c.LongHaulDelayUs, 1e-6, 1e7)
	}
	rangef(errs, f+"duration_ms", c.DurationMs, 1e-6, 1e5)
	rangef(errs, f+"start_ns", c.StartNs, 0, 1e12)
	rangef(errs, f+"prio", float64(c.Prio), 1, 7)
	if (len(c.DomainA) == 0) != (len(c.DomainB) == 0) {
		*errs = append(*errs, fmt.Errorf("%sdomain_a and domain_b: give both host lists, or neither to take the topology's two domains", f))
	}
}
