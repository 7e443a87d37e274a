package scenario

import (
	"fmt"
	"slices"
	"strings"
)

// validateWorkload checks the workload section (every section given, each
// generator) and records whether it is sound.
func (s *Scenario) validateWorkload(errs *Errors) {
	n := len(*errs)
	w := &s.Workload
	badNodes := s.resolveNames(w, "workload", errs)
	w.validateKind(errs)
	w.validateFlows(errs)
	s.validateChainsAndTests(errs) // chains.go
	if in := w.Incast; in != nil {
		in.validate(errs)
	}
	w.validateGenerators(&s.Topology, errs)
	s.sound.Workload = len(*errs) == n && !badNodes
}

// validateKind checks workload.kind and that the sections given are ones
// it takes.
func (w *Workload) validateKind(errs *Errors) {
	switch w.Kind {
	case "flows":
		if len(w.Flows) == 0 {
			*errs = append(*errs, fmt.Errorf("workload.flows: at least one flow is required with kind flows"))
		}
	case "ns3":
		if w.File == "" {
			*errs = append(*errs, fmt.Errorf("workload.file is required with kind ns3"))
		}
	case "incast":
		if w.Incast == nil {
			*errs = append(*errs, fmt.Errorf("workload.incast is required with kind incast"))
		}
	case "generated":
		if !w.HasGenerators() {
			*errs = append(*errs, fmt.Errorf("workload: kind generated needs one of %s", strings.Join(generatorSections, ", ")))
		}
	case "mixed":
		if len(w.sections()) == 0 {
			*errs = append(*errs, fmt.Errorf("workload: kind mixed needs at least one of %s", strings.Join(workloadSections, ", ")))
		}
	default:
		*errs = append(*errs, fmt.Errorf("workload.kind = %q: allowed values flows, ns3, incast, generated, mixed", w.Kind))
	}
	if allowed, ok := kindSections[w.Kind]; ok {
		for _, sec := range w.sections() {
			if !slices.Contains(allowed, sec) {
				*errs = append(*errs, fmt.Errorf("workload.kind = %s contradicts workload.%s: kind %s takes only workload.%s (omit kind, or use kind: mixed, to combine sections)",
					w.Kind, sec, w.Kind, strings.Join(allowed, ", workload.")))
			}
		}
	}
}

// validateFlows checks the explicit flows (their chains: chains.go).
func (w *Workload) validateFlows(errs *Errors) {
	for i, f := range w.Flows {
		p := fmt.Sprintf("workload.flows[%d]", i)
		rangef(errs, p+".size_bytes", float64(f.SizeBytes), 1, 1e15)
		rangef(errs, p+".start_ns", f.StartNs, 0, 1e12)
		rangef(errs, p+".prio", float64(f.Prio), 1, 7)
		nodeRange(errs, p+".src", f.Src)
		nodeRange(errs, p+".dst", f.Dst)
		if f.Via != nil {
			nodeRange(errs, p+".via", *f.Via)
		}
		if f.Src == f.Dst && !f.Src.Unresolved() {
			*errs = append(*errs, fmt.Errorf("%s: src and dst are both %d", p, f.Src))
		}
	}
}

// validate checks workload.incast.
func (in *Incast) validate(errs *Errors) {
	if len(in.Senders) == 0 {
		*errs = append(*errs, fmt.Errorf("workload.incast.senders: at least one sender is required"))
	}
	if len(in.SizesBytes) != 1 && len(in.SizesBytes) != len(in.Senders) {
		*errs = append(*errs, fmt.Errorf("workload.incast.sizes_bytes: need 1 or len(senders) = %d sizes, got %d", len(in.Senders), len(in.SizesBytes)))
	}
	for i, v := range in.SizesBytes {
		rangef(errs, fmt.Sprintf("workload.incast.sizes_bytes[%d]", i), float64(v), 1, 1e15)
	}
	for i, v := range in.Senders {
		if v == in.Receiver && !v.Unresolved() {
			*errs = append(*errs, fmt.Errorf("workload.incast.senders[%d] = %d equals the receiver", i, v))
		}
	}
	rangef(errs, "workload.incast.start_ns", in.StartNs, 0, 1e12)
	rangef(errs, "workload.incast.prio", float64(in.Prio), 1, 7)
	rangef(errs, "workload.incast.qps_per_sender", float64(in.QPsPerSender), 1, 4096)
	for i, v := range in.SizesBytes {
		if int64(in.QPsPerSender) > v && v >= 1 {
			*errs = append(*errs, fmt.Errorf("workload.incast.sizes_bytes[%d] = %d is smaller than qps_per_sender = %d (every QP needs at least one byte)", i, v, in.QPsPerSender))
		}
	}
}

// validateGenerators checks the generator sections (cross_dc and perftest:
// validateChainsAndTests): first the priorities of all, then each one's
// fields.
func (w *Workload) validateGenerators(t *Topology, errs *Errors) {
	prio := func(key string, prio int) {
		rangef(errs, "workload."+key+".prio", float64(prio), 1, 7)
	}
	if p := w.Poisson; p != nil {
		prio("poisson", p.Prio)
	}
	if p := w.IncastBursts; p != nil {
		prio("incast_bursts", p.Prio)
	}
	if p := w.AllToAll; p != nil {
		prio("all_to_all", p.Prio)
	}
	if p := w.ManyToMany; p != nil {
		prio("many_to_many", p.Prio)
	}
	if p := w.LongShort; p != nil {
		prio("long_short", p.Prio)
	}
	if p := w.ManyToMany; p != nil {
		rangef(errs, "workload.many_to_many.per_sender", float64(p.PerSender), 1, 1e6)
	}
	if p := w.Poisson; p != nil {
		p.validate(t, errs)
	}
	if p := w.IncastBursts; p != nil {
		rangef(errs, "workload.incast_bursts.senders", float64(p.Senders), 1, 1e5)
		rangef(errs, "workload.incast_bursts.size_bytes", float64(p.SizeBytes), 1, 1e12)
		rangef(errs, "workload.incast_bursts.duration_ms", p.DurationMs, 1e-6, 1e5)
	}
	if p := w.AllToAll; p != nil {
		rangef(errs, "workload.all_to_all.size_bytes", float64(p.SizeBytes), 1, 1e12)
	}
}

// validate checks workload.poisson: its load (or core_load, which needs a
// leaf_spine topology t of equal host links), duration and CDF.
func (p *PoissonSpec) validate(t *Topology, errs *Errors) {
	if p.CoreLoad != nil {
		if p.loadGiven || p.Load != 0 {
			*errs = append(*errs, fmt.Errorf("workload.poisson.load and workload.poisson.core_load both given: give one (core_load is converted to the per-host load)"))
		}
		rangef(errs, "workload.poisson.core_load", *p.CoreLoad, 1e-6, 1)
		if t.Kind != "leaf_spine" {
			*errs = append(*errs, fmt.Errorf("workload.poisson.core_load needs topology.kind leaf_spine (the leaf→spine uplinks are the core), not %s; give workload.poisson.load", t.Kind))
		}
		if len(p.Hosts) > 0 {
			*errs = append(*errs, fmt.Errorf("workload.poisson.core_load assumes every host sends and receives; remove workload.poisson.hosts or give workload.poisson.load"))
		}
		for i, hl := range t.HostLinks {
			if hl.Gbps != nil {
				*errs = append(*errs, fmt.Errorf("workload.poisson.core_load assumes equal host links; topology.host_links[%d].gbps changes some", i))
			}
		}
	} else if !p.loadGiven && p.Load == 0 {
		*errs = append(*errs, fmt.Errorf("workload.poisson.load is required, in [1e-06, 1] (or workload.poisson.core_load on a leaf_spine topology)"))
	} else {
		rangef(errs, "workload.poisson.load", p.Load, 1e-6, 1)
	}
	rangef(errs, "workload.poisson.duration_ms", p.DurationMs, 1e-6, 1e5)
	if p.CDF == "" {
		*errs = append(*errs, fmt.Errorf("workload.poisson.cdf is required (websearch, datamining, fbhadoop, googlerpc, alistorage or a file)"))
	}
}
