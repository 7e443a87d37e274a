package assemble

import (
	"fmt"
	"os"

	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/topo"
	"github.com/ccsim/ccsim/workload"
)

// The generator sections of the workload (scenario/generators.go),
// generated on the run's graph: one function per generator.

// generated builds the flows of the generator sections, one list per
// section in merge order. It reports every generator's errors, not only
// the first.
func generated(s *scenario.Scenario, g *topo.Graph) ([][]workload.Flow, error) {
	if err := checkHostLists(s, g); err != nil {
		return nil, err
	}
	w := &s.Workload
	var out [][]workload.Flow
	var errs scenario.Errors
	add := func(fl []workload.Flow, err error) {
		if err != nil {
			errs = append(errs, err)
		} else {
			out = append(out, fl)
		}
	}
	if p := w.Poisson; p != nil {
		add(poissonFlows(s, p, g))
	}
	if p := w.IncastBursts; p != nil {
		hs := hostsOr(p.Hosts, g)
		fl, err := workload.IncastBursts(workload.IncastBurstParams{Hosts: hs, Senders: p.Senders, SizeBytes: p.SizeBytes,
			Load: p.Load, HostBps: hostBps(g, hs[0]), BurstRate: p.BurstsPerS, Count: p.Count,
			Start: scenario.NsTime(p.StartNs), Duration: scenario.MsTime(p.DurationMs), Prio: prioOr(p.Prio), Seed: s.Seed})
		add(fl, wrap("workload.incast_bursts", err))
	}
	if p := w.AllToAll; p != nil {
		add(workload.AllToAll(hostsOr(p.Hosts, g), p.SizeBytes, scenario.NsTime(p.StartNs), prioOr(p.Prio)), nil)
	}
	if p := w.ManyToMany; p != nil {
		fl, err := workload.ManyToMany(workload.ManyToManyParams{Senders: scenario.IDs(p.Senders), Receivers: scenario.IDs(p.Receivers), SizeBytes: p.SizeBytes,
			PerSender: p.PerSender, Count: p.Count, Interval: scenario.UsTime(p.IntervalUs), Start: scenario.NsTime(p.StartNs),
			RandomDst: p.RandomDst, Prio: prioOr(p.Prio), Seed: s.Seed})
		add(fl, wrap("workload.many_to_many", err))
	}
	if p := w.LongShort; p != nil {
		fl, lerrs := longShortFlows(s, p, g)
		errs = append(errs, lerrs...)
		if len(lerrs) == 0 {
			out = append(out, fl)
		}
	}
	if w.CrossDC != nil {
		add(crossDCFlows(s, g))
	}
	if w.Perftest != nil {
		add(perftestFlows(s, g))
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return out, nil
}

// wrap prefixes a generator's error with its section (nil stays nil).
func wrap(section string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", section, err)
}

// poissonFlows generates workload.poisson.
func poissonFlows(s *scenario.Scenario, p *scenario.PoissonSpec, g *topo.Graph) ([]workload.Flow, error) {
	hs := hostsOr(p.Hosts, g)
	load, err := poissonLoad(s)
	if err != nil {
		return nil, err
	}
	c, err := cdfOf(s, p.CDF)
	if err != nil {
		return nil, fmt.Errorf("workload.poisson.%v", err)
	}
	fl, err := workload.Poisson(workload.PoissonParams{Hosts: hs, HostBps: hostBps(g, hs[0]), Load: load, CDF: c,
		Start: scenario.NsTime(p.StartNs), Duration: scenario.MsTime(p.DurationMs), Prio: prioOr(p.Prio), Seed: s.Seed})
	return fl, wrap("workload.poisson", err)
}

// poissonLoad is the per-host load of workload.poisson: load, or core_load
// converted for the leaf_spine topology (topo.LeafSpineParams.
// HostLoadForCoreLoad: ρ_h = ρ_c·S·r_fabric / (H·r_host·f) with f =
// (L−1)·H / (L·H − 1), the share of a host's traffic to uniformly random
// hosts that leaves its leaf).
func poissonLoad(s *scenario.Scenario) (float64, error) {
	p := s.Workload.Poisson
	if p.CoreLoad == nil {
		return p.Load, nil
	}
	t := &s.Topology
	if t.Kind != "leaf_spine" {
		return 0, fmt.Errorf("workload.poisson.core_load needs topology.kind leaf_spine, not %s", t.Kind)
	}
	lp := t.LeafSpine()
	h, err := lp.HostLoadForCoreLoad(*p.CoreLoad)
	if err != nil {
		return 0, fmt.Errorf("workload.poisson.core_load: %w", err)
	}
	if !(h <= 1) {
		return 0, fmt.Errorf("workload.poisson.core_load = %v needs a per-host load of %.4g > 1 on this topology (%d spines × %v Gb/s up, %d hosts × %v Gb/s down per leaf); lower it",
			*p.CoreLoad, h, lp.Spines, float64(lp.FabricBps)/1e9, lp.HostsPerLeaf, float64(lp.HostBps)/1e9)
	}
	return h, nil
}

// longShortFlows generates workload.long_short; the long flows' pinned
// route is checked against the senders' paths (the first that fails).
func longShortFlows(s *scenario.Scenario, p *scenario.LongShortSpec, g *topo.Graph) ([]workload.Flow, scenario.Errors) {
	var errs scenario.Errors
	lp := workload.LongShortParams{LongSenders: scenario.IDs(p.LongSenders), LongReceivers: scenario.IDs(p.LongReceivers), LongSize: p.LongSizeBytes,
		LongStart: scenario.NsTime(p.LongStartNs), ShortSenders: scenario.IDs(p.ShortSenders), Receiver: int(p.Receiver), ShortCount: p.ShortCount,
		RandomSenders: p.RandomSenders, ShortMin: p.ShortMinBytes, ShortMax: p.ShortMaxBytes, ShortStart: scenario.NsTime(p.ShortStartNs),
		Interval: scenario.UsTime(p.IntervalUs), Poisson: p.Poisson, Prio: prioOr(p.Prio), Seed: s.Seed}
	if p.LongVia != nil {
		lp.LongVia, lp.LongPinned = int(*p.LongVia), true
		for i, snd := range p.LongSenders {
			dst := p.Receiver
			switch len(p.LongReceivers) {
			case 1:
				dst = p.LongReceivers[0]
			case len(p.LongSenders):
				dst = p.LongReceivers[i]
			}
			if err := checkVia(g, "workload.long_short.long_via", int(snd), int(dst), *p.LongVia); err != nil {
				errs = append(errs, err)
				break
			}
		}
	}
	var cdfErr error
	if p.ShortCDF != "" {
		lp.ShortCDF, cdfErr = cdfOf(s, p.ShortCDF)
	}
	if cdfErr != nil {
		return nil, append(errs, fmt.Errorf("workload.long_short.short_%v", cdfErr))
	}
	fl, err := workload.LongShort(lp)
	if err != nil {
		return nil, append(errs, fmt.Errorf("workload.long_short: %w", err))
	}
	return fl, errs
}

// crossDCFlows generates workload.cross_dc (crossdc.go).
func crossDCFlows(s *scenario.Scenario, g *topo.Graph) ([]workload.Flow, error) {
	p, err := crossDCParams(s, g)
	if err != nil {
		return nil, err
	}
	fl, err := workload.CrossDC(p)
	return fl, wrap("workload.cross_dc", err)
}

// perftestFlows generates workload.perftest (perftest.go).
func perftestFlows(s *scenario.Scenario, g *topo.Graph) ([]workload.Flow, error) {
	p, err := perftestParams(s, g)
	if err != nil {
		return nil, err
	}
	fl, err := workload.Perftest(p)
	return fl, wrap("workload.perftest", err)
}

// checkHostLists reports the host ids of the generator sections that are
// not hosts of g, naming the field.
func checkHostLists(s *scenario.Scenario, g *topo.Graph) error {
	w := &s.Workload
	var errs scenario.Errors
	list := func(field string, hosts []scenario.NodeID) {
		for i, h := range hosts {
			if !isHost(g, int(h)) {
				errs = append(errs, fmt.Errorf("workload.%s[%d] = %d is not a host of the topology (%s)", field, i, h, describeHosts(g)))
			}
		}
	}
	if p := w.Poisson; p != nil {
		list("poisson.hosts", p.Hosts)
	}
	if p := w.IncastBursts; p != nil {
		list("incast_bursts.hosts", p.Hosts)
	}
	if p := w.AllToAll; p != nil {
		list("all_to_all.hosts", p.Hosts)
	}
	if p := w.ManyToMany; p != nil {
		list("many_to_many.senders", p.Senders)
		list("many_to_many.receivers", p.Receivers)
	}
	if p := w.CrossDC; p != nil {
		list("cross_dc.domain_a", p.DomainA)
		list("cross_dc.domain_b", p.DomainB)
	}
	if p := w.LongShort; p != nil {
		list("long_short.long_senders", p.LongSenders)
		list("long_short.long_receivers", p.LongReceivers)
		list("long_short.short_senders", p.ShortSenders)
		if (p.ShortCount > 0 || len(p.LongReceivers) == 0 && len(p.LongSenders) > 0) && !isHost(g, int(p.Receiver)) {
			errs = append(errs, fmt.Errorf("workload.long_short.receiver = %d is not a host of the topology (%s)", p.Receiver, describeHosts(g)))
		}
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// prioOr is p, or the default priority for 0.
func prioOr(p int) int {
	if p == 0 {
		return scenario.DefaultPrio
	}
	return p
}

// hostsOr is the hosts hs, or every host of g when hs is empty.
func hostsOr(hs []scenario.NodeID, g *topo.Graph) []int {
	if len(hs) > 0 {
		return scenario.IDs(hs)
	}
	return g.Hosts()
}

// cdfOf resolves a CDF name or a file path (relative to the scenario).
func cdfOf(s *scenario.Scenario, name string) (*workload.CDF, error) {
	if c, err := workload.BuiltinCDF(name); err == nil {
		return c, nil
	}
	p := s.Resolve(name)
	if _, err := os.Stat(p); err != nil {
		return nil, fmt.Errorf("cdf %q: neither a built-in (%v) nor a readable file", name, workload.BuiltinCDFNames())
	}
	return workload.LoadCDF(p)
}

// hostBps is the rate of a host's first link.
func hostBps(g *topo.Graph, h int) int64 {
	for _, l := range g.Links {
		if l.A == h || l.B == h {
			return l.Bps
		}
	}
	return 0
}
