package scenario

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

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

// fieldGiven reports whether the document gives the field at path
// (string: mapping key, int: sequence index) a non-null value.
type fieldGiven func(path ...any) bool

// applyDefaults sets the fields that root (the document) does not give to
// their defaults. It returns the errors of explicit values that have no
// other representation (0 of a field whose zero value means "default").
func (s *Scenario) applyDefaults(root *yaml.Node) Errors {
	var errs Errors
	has := fieldGiven(func(path ...any) bool { return given(root, path...) })
	if !has("seed") {
		s.Seed = DefaultSeed
	}
	if !has("stop_ms") {
		s.StopMs = DefaultStopMs
	}
	if !has("cc") {
		s.CC = []string{"dcqcn"}
	}
	errs = append(errs, s.Topology.applyDefaults(has)...)
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
	return append(errs, s.Workload.applyDefaults(has)...)
}

// applyDefaults sets the topology fields the document does not give (the
// link defaults depend on the kind).
func (t *Topology) applyDefaults(has fieldGiven) Errors {
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
		return Errors{fmt.Errorf("topology.hosts_per_edge = 0 out of range [1, 512] (omit it for k/2)")}
	}
	return nil
}

// applyDefaults sets the workload fields the document does not give: the
// kind (inferred from the sections), the priorities, and each section's
// own defaults.
func (w *Workload) applyDefaults(has fieldGiven) Errors {
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
		if !has("workload", "many_to_many", "per_sender") {
			p.PerSender = 1
		}
	}
	if p := w.LongShort; p != nil {
		genPrio("long_short", &p.Prio)
	}
	var errs Errors
	if c := w.CrossDC; c != nil {
		errs = c.applyDefaults(has)
	}
	if p := w.Perftest; p != nil {
		p.applyDefaults(has)
	}
	return errs
}
