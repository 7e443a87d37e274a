package scenario

import (
	"fmt"

	"github.com/ccsim/ccsim/sim"
	"github.com/ccsim/ccsim/topo"
)

// The cross-datacenter topology kinds of paper 002 (cross_dc = T6,
// two_site = T7): their parameter blocks, their checks and their builder
// parameters.

// CrossDCTopology is topology.cross_dc, the parameters of kind cross_dc (each:
// absent = the default of paper 002's T6, topo.DefaultCrossDCParams). The
// host links are topology.link_gbps / link_delay_ns and the intra-DC
// switch links topology.fabric_gbps / fabric_delay_ns, as for the other
// kinds.
type CrossDCTopology struct {
	Pods        *int `yaml:"pods,omitempty"`          // per datacenter, [1, 64]; default 4
	ToRsPerPod  *int `yaml:"tors_per_pod,omitempty"`  // [1, 64]; default 2
	AggsPerPod  *int `yaml:"aggs_per_pod,omitempty"`  // [1, 64]; default 2
	CoresPerAgg *int `yaml:"cores_per_agg,omitempty"` // [1, 64]; default 2 (4 cores)
	HostsPerToR *int `yaml:"hosts_per_tor,omitempty"` // [1, 512]; default 4
	// DCIGbps and DCIDelayNs are the core–DCI links (absent: the fabric
	// links').
	DCIGbps      *float64 `yaml:"dci_gbps,omitempty"`
	DCIDelayNs   *float64 `yaml:"dci_delay_ns,omitempty"`
	LongHaulLink `yaml:",inline"`
}

// LongHaulLink is the long-haul link of cross_dc (DCI_A – DCI_B) and two_site
// (SW1 – SW2): its rate and its one-way delay, given as delay_ns or as a
// fibre length in km (5 µs per km).
type LongHaulLink struct {
	LongHaulGbps    *float64 `yaml:"long_haul_gbps,omitempty"`     // [0.001, 10000]; default 400
	LongHaulDelayNs *float64 `yaml:"long_haul_delay_ns,omitempty"` // [0, 1e10]
	LongHaulKm      *float64 `yaml:"long_haul_km,omitempty"`       // [0, 2e6], instead of long_haul_delay_ns
	// LongHaulLinks is the number of long-haul links; only 1 (routing
	// keeps one of parallel links).
	LongHaulLinks *int `yaml:"long_haul_links,omitempty"`
}

// TwoSiteSpec is topology.two_site, the parameters of kind two_site.
type TwoSiteSpec struct {
	// SingleSwitch selects the short-distance variant: A, B, C on SW1.
	SingleSwitch bool `yaml:"single_switch,omitempty"`
	LongHaulLink `yaml:",inline"`
}

// TwoSiteGbps is the default host link rate of kind two_site (the
// prototype's 400 Gb/s NICs).
const TwoSiteGbps = 400.0

// validateLongHaulKinds checks the parameter blocks of kinds cross_dc and
// two_site (and that they are not given with another kind).
func (s *Scenario) validateLongHaulKinds(errs *Errors) {
	t := &s.Topology
	if t.CrossDC != nil && t.Kind != "cross_dc" {
		*errs = append(*errs, fmt.Errorf("topology.cross_dc is only valid with kind cross_dc"))
	}
	if t.TwoSite != nil && t.Kind != "two_site" {
		*errs = append(*errs, fmt.Errorf("topology.two_site is only valid with kind two_site"))
	}
	if t.Kind != "cross_dc" && t.Kind != "two_site" {
		return
	}
	for _, f := range t.shapeFields() {
		if f.v != 0 {
			*errs = append(*errs, fmt.Errorf("topology.%s = %d: kind %s takes its shape from topology.%s", f.name, f.v, t.Kind, t.Kind))
		}
	}
	if t.File != "" {
		*errs = append(*errs, fmt.Errorf("topology.file is only valid with kind ns3"))
	}
	if c := t.CrossDC; c != nil && t.Kind == "cross_dc" {
		c.validate(errs)
	}
	if c := t.TwoSite; c != nil && t.Kind == "two_site" {
		c.LongHaulLink.validate(errs, "topology.two_site")
	}
}

// validate range-checks topology.cross_dc.
func (c *CrossDCTopology) validate(errs *Errors) {
	p := "topology.cross_dc"
	intIn(errs, p+".pods", c.Pods, 1, 64)
	intIn(errs, p+".tors_per_pod", c.ToRsPerPod, 1, 64)
	intIn(errs, p+".aggs_per_pod", c.AggsPerPod, 1, 64)
	intIn(errs, p+".cores_per_agg", c.CoresPerAgg, 1, 64)
	intIn(errs, p+".hosts_per_tor", c.HostsPerToR, 1, 512)
	optf(errs, p+".dci_gbps", c.DCIGbps, 0.001, 10_000)
	optf(errs, p+".dci_delay_ns", c.DCIDelayNs, 0, 1e9)
	c.LongHaulLink.validate(errs, p)
}

// validate range-checks the long-haul fields of block p.
func (l *LongHaulLink) validate(errs *Errors, p string) {
	optf(errs, p+".long_haul_gbps", l.LongHaulGbps, 0.001, 10_000)
	optf(errs, p+".long_haul_delay_ns", l.LongHaulDelayNs, 0, 1e10)
	optf(errs, p+".long_haul_km", l.LongHaulKm, 0, 2e6)
	if l.LongHaulDelayNs != nil && l.LongHaulKm != nil {
		*errs = append(*errs, fmt.Errorf("%s.long_haul_delay_ns and %s.long_haul_km both given: give the long-haul delay one way", p, p))
	}
	intIn(errs, p+".long_haul_links", l.LongHaulLinks, 1, 1)
}

// intIn range-checks an optional integer field.
func intIn(errs *Errors, field string, v *int, lo, hi int) {
	if v != nil && (*v < lo || *v > hi) {
		*errs = append(*errs, fmt.Errorf("%s = %d out of range [%d, %d]", field, *v, lo, hi))
	}
}

// optf range-checks an optional number field.
func optf(errs *Errors, field string, v *float64, lo, hi float64) {
	if v != nil {
		rangef(errs, field, *v, lo, hi)
	}
}

// apply sets a rate and a delay from the long-haul fields given.
func (l *LongHaulLink) apply(bps *int64, delay *sim.Time) {
	if l.LongHaulGbps != nil {
		*bps = int64(*l.LongHaulGbps * 1e9)
	}
	if l.LongHaulDelayNs != nil {
		*delay = NsTime(*l.LongHaulDelayNs)
	}
	if l.LongHaulKm != nil {
		*delay = sim.Time(*l.LongHaulKm*float64(topo.FiberDelayPerKm) + 0.5)
	}
}

// crossDCTopoParams returns the builder parameters of kind cross_dc.
func (t *Topology) crossDCTopoParams() topo.CrossDCParams {
	hb, fb, hd, fd := t.linkParams()
	p := topo.DefaultCrossDCParams()
	p.HostBps, p.HostDelay, p.FabricBps, p.FabricDelay = hb, hd, fb, fd
	p.DCIBps, p.DCIDelay = fb, fd
	if c := t.CrossDC; c != nil {
		for _, f := range []struct {
			v   *int
			dst *int
		}{{c.Pods, &p.Pods}, {c.ToRsPerPod, &p.ToRsPerPod}, {c.AggsPerPod, &p.AggsPerPod}, {c.CoresPerAgg, &p.CoresPerAgg}, {c.HostsPerToR, &p.HostsPerToR}, {c.LongHaulLinks, &p.LongHaulLinks}} {
			if f.v != nil {
				*f.dst = *f.v
			}
		}
		if c.DCIGbps != nil {
			p.DCIBps = int64(*c.DCIGbps * 1e9)
		}
		if c.DCIDelayNs != nil {
			p.DCIDelay = NsTime(*c.DCIDelayNs)
		}
		c.LongHaulLink.apply(&p.LongHaulBps, &p.LongHaulDelay)
	}
	return p
}

// twoSiteParams returns the builder parameters of kind two_site.
func (t *Topology) twoSiteParams() topo.TwoSiteParams {
	hb, _, hd, _ := t.linkParams()
	p := topo.DefaultTwoSiteParams()
	p.HostBps, p.HostDelay = hb, hd
	if c := t.TwoSite; c != nil {
		p.SingleSwitch = c.SingleSwitch
		c.LongHaulLink.apply(&p.LongHaulBps, &p.LongHaulDelay)
	}
	return p
}
