package assemble

import (
	"fmt"
	"slices"

	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/sim"
	"github.com/ccsim/ccsim/topo"
	"github.com/ccsim/ccsim/workload"
)

// workload.cross_dc (paper 002's W7; docs/workloads.md §2) resolved
// against the run's graph: its domains and long haul.

// LongHaul returns the links of g that join two different domains
// (topo.Graph.Domains): their total rate (the long haul's capacity per
// direction), their longest one-way delay and their number.
func LongHaul(g *topo.Graph) (bps int64, delay sim.Time, links int) {
	for _, l := range g.Links {
		if g.Domain(l.A) != g.Domain(l.B) {
			bps += l.Bps
			delay = max(delay, l.Delay)
			links++
		}
	}
	return bps, delay, links
}

// domainHosts returns the hosts of the two domains of g, the lower domain
// id first.
func domainHosts(g *topo.Graph) (a, b []int, err error) {
	by := map[uint16][]int{}
	for _, h := range g.Hosts() {
		d := g.Domain(h)
		by[d] = append(by[d], h)
	}
	if len(by) != 2 {
		return nil, nil, fmt.Errorf("workload.cross_dc: the topology's hosts are in %d domain(s), a cross-DC workload needs two: use topology.kind cross_dc, or give workload.cross_dc.domain_a and domain_b", len(by))
	}
	ids := make([]uint16, 0, 2)
	for d := range by {
		ids = append(ids, d)
	}
	slices.Sort(ids)
	return by[ids[0]], by[ids[1]], nil
}

// crossDCParams resolves workload.cross_dc against topology g.
func crossDCParams(s *scenario.Scenario, g *topo.Graph) (workload.CrossDCParams, error) {
	c := s.Workload.CrossDC
	p := workload.CrossDCParams{CrossToIntra: c.CrossToIntra, IncastShare: c.IncastShare, IncastFanin: c.IncastFanin,
		IncastSize: c.IncastSizeBytes, IncastEvents: c.IncastEvents, Load: c.Load,
		Start: scenario.NsTime(c.StartNs), Duration: scenario.MsTime(c.DurationMs), Prio: c.Prio, Seed: s.Seed}
	if len(c.DomainA) > 0 {
		p.DomainA, p.DomainB = scenario.IDs(c.DomainA), scenario.IDs(c.DomainB)
	} else {
		var err error
		if p.DomainA, p.DomainB, err = domainHosts(g); err != nil {
			return p, err
		}
	}
	for _, h := range slices.Concat(p.DomainA, p.DomainB) {
		p.HostsBps += hostBps(g, h)
	}
	lhBps, lhDelay, links := LongHaul(g)
	if c.LongHaulGbps != 0 {
		lhBps = int64(c.LongHaulGbps * 1e9)
	}
	if c.LongHaulDelayUs != 0 {
		lhDelay = scenario.UsTime(c.LongHaulDelayUs)
	}
	needRate := c.LoadBasis == "longhaul"
	needDelay := c.IncastShare > 0 && c.IncastSizeBytes == 0
	if links == 0 && (needRate && c.LongHaulGbps == 0 || needDelay && (c.LongHaulGbps == 0 || c.LongHaulDelayUs == 0)) {
		what := "longhaul_gbps"
		if needDelay {
			what = "longhaul_gbps and longhaul_delay_us (or incast_size_bytes)"
		}
		return p, fmt.Errorf("workload.cross_dc: the topology has no link between two domains (the long haul): give %s", what)
	}
	if c.LoadBasis == "host" {
		p.Basis = workload.BasisHost
	}
	p.LongHaulBps = lhBps
	if needDelay {
		// the long haul's bandwidth-delay product: rate × round trip of
		// its propagation delay (400 Gb/s × 2 ms / 8 = 100 MB)
		p.IncastSize = sim.BytesIn(2*lhDelay, lhBps)
		if p.IncastSize < 1 {
			return p, fmt.Errorf("workload.cross_dc: the long haul's bandwidth-delay product (%v Gb/s × 2 × %v) is below one byte: give incast_size_bytes", float64(lhBps)/1e9, lhDelay)
		}
	}
	if c.IncastShare > 0 && c.IncastFanin > min(len(p.DomainA), len(p.DomainB)) {
		return p, fmt.Errorf("workload.cross_dc.incast_fanin = %d: more than the %d hosts of the smaller domain", c.IncastFanin, min(len(p.DomainA), len(p.DomainB)))
	}
	cdf, err := cdfOf(s, c.CDF)
	if err != nil {
		return p, fmt.Errorf("workload.cross_dc.%v", err)
	}
	p.CDF = cdf
	return p, nil
}
