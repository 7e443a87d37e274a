package scenario

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/sim"
	"github.com/ccsim/ccsim/topo"
)

// The cross-datacenter topology kinds of paper 002 (cross_dc = T6,
// two_site = T7), per-switch settings (switch.overrides) and the loss
// recovery timers of long-haul fabrics.

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

// SwitchOverride is one entry of switch.overrides: settings of the
// switches it selects (nodes and/or role), each absent = unchanged. Later
// entries win over earlier ones, field by field.
type SwitchOverride struct {
	Role  string   `yaml:"role,omitempty"`
	Nodes []NodeID `yaml:"nodes,omitempty"`

	BufferMB     *float64 `yaml:"buffer_mb,omitempty"`     // decimal MB, [0.065536, 1e9]
	BufferMiB    *float64 `yaml:"buffer_mib,omitempty"`    // or MiB, [0.0625, 2^30]
	PFC          *string  `yaml:"pfc,omitempty"`           // dynamic | static | off
	PFCStaticMB  *float64 `yaml:"pfc_static_mb,omitempty"` // static threshold, decimal MB, [0.001, 1e9]
	PFCStaticKB  *float64 `yaml:"pfc_static_kb,omitempty"` // or KB, [1, 1e12]
	HeadroomRTTs *int64   `yaml:"headroom_rtts,omitempty"` // per port: this × one-way BDP of its link, [0, 1000]
	HeadroomMB   *float64 `yaml:"headroom_mb,omitempty"`   // or an explicit headroom per port, MB, [0, 1e9]
	HeadroomKB   *float64 `yaml:"headroom_kb,omitempty"`   // or in KB, [0, 1e12]
	// HeadroomExtraKB is added to each port's headroom_rtts-scaled
	// headroom (fabric.SwitchOverride.HeadroomExtraBytes), KB, [0, 1e12].
	HeadroomExtraKB *float64  `yaml:"headroom_extra_kb,omitempty"`
	ECN             *bool     `yaml:"ecn,omitempty"`
	ECNRules        []ECNRule `yaml:"ecn_rules,omitempty"`
}

// kindsWithRoles are the topology kinds whose graphs give nodes roles.
var kindsWithRoles = []string{"cross_dc", "two_site"}

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
	for _, f := range []struct {
		name string
		v    int
	}{{"hosts", t.Hosts}, {"spines", t.Spines}, {"leaves", t.Leaves}, {"hosts_per_leaf", t.HostsPerLeaf}, {"k", t.K}, {"hosts_per_edge", t.HostsPerEdge}} {
		if f.v != 0 {
			*errs = append(*errs, fmt.Errorf("topology.%s = %d: kind %s takes its shape from topology.%s", f.name, f.v, t.Kind, t.Kind))
		}
	}
	if t.File != "" {
		*errs = append(*errs, fmt.Errorf("topology.file is only valid with kind ns3"))
	}
	intIn := func(field string, v *int, lo, hi int) {
		if v != nil && (*v < lo || *v > hi) {
			*errs = append(*errs, fmt.Errorf("%s = %d out of range [%d, %d]", field, *v, lo, hi))
		}
	}
	optf := func(field string, v *float64, lo, hi float64) {
		if v != nil {
			rangef(errs, field, *v, lo, hi)
		}
	}
	lh := func(p string, l *LongHaulLink) {
		optf(p+".long_haul_gbps", l.LongHaulGbps, 0.001, 10_000)
		optf(p+".long_haul_delay_ns", l.LongHaulDelayNs, 0, 1e10)
		optf(p+".long_haul_km", l.LongHaulKm, 0, 2e6)
		if l.LongHaulDelayNs != nil && l.LongHaulKm != nil {
			*errs = append(*errs, fmt.Errorf("%s.long_haul_delay_ns and %s.long_haul_km both given: give the long-haul delay one way", p, p))
		}
		intIn(p+".long_haul_links", l.LongHaulLinks, 1, 1)
	}
	if c := t.CrossDC; c != nil && t.Kind == "cross_dc" {
		p := "topology.cross_dc"
		intIn(p+".pods", c.Pods, 1, 64)
		intIn(p+".tors_per_pod", c.ToRsPerPod, 1, 64)
		intIn(p+".aggs_per_pod", c.AggsPerPod, 1, 64)
		intIn(p+".cores_per_agg", c.CoresPerAgg, 1, 64)
		intIn(p+".hosts_per_tor", c.HostsPerToR, 1, 512)
		optf(p+".dci_gbps", c.DCIGbps, 0.001, 10_000)
		optf(p+".dci_delay_ns", c.DCIDelayNs, 0, 1e9)
		lh(p, &c.LongHaulLink)
	}
	if c := t.TwoSite; c != nil && t.Kind == "two_site" {
		lh("topology.two_site", &c.LongHaulLink)
	}
}

// apply sets a rate and a delay from the long-haul fields given.
func (l *LongHaulLink) apply(bps *int64, delay *sim.Time) {
	if l.LongHaulGbps != nil {
		*bps = int64(*l.LongHaulGbps * 1e9)
	}
	if l.LongHaulDelayNs != nil {
		*delay = nsTime(*l.LongHaulDelayNs)
	}
	if l.LongHaulKm != nil {
		*delay = sim.Time(*l.LongHaulKm*float64(topo.FiberDelayPerKm) + 0.5)
	}
}

// crossDCTopoParams returns the builder parameters of kind cross_dc.
func (s *Scenario) crossDCTopoParams() topo.CrossDCParams {
	t := &s.Topology
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
			p.DCIDelay = nsTime(*c.DCIDelayNs)
		}
		c.LongHaulLink.apply(&p.LongHaulBps, &p.LongHaulDelay)
	}
	return p
}

// twoSiteParams returns the builder parameters of kind two_site.
func (s *Scenario) twoSiteParams() topo.TwoSiteParams {
	t := &s.Topology
	hb, _, hd, _ := t.linkParams()
	p := topo.DefaultTwoSiteParams()
	p.HostBps, p.HostDelay = hb, hd
	if c := t.TwoSite; c != nil {
		p.SingleSwitch = c.SingleSwitch
		c.LongHaulLink.apply(&p.LongHaulBps, &p.LongHaulDelay)
	}
	return p
}

// namedGraph builds the graph of a named topology kind (no host_links:
// they are resolved against it) when the topology section's fields are
// valid; it returns nil for the other kinds. ok is false when the kind
// names its nodes but the graph was not built (invalid fields, reported
// by validation, or the builder's error, appended to errs).
func (s *Scenario) namedGraph(valid bool, errs *Errors) (g *topo.Graph, ok bool) {
	if !slices.Contains(namedKinds, s.Topology.Kind) {
		return nil, true
	}
	if !valid {
		return nil, false
	}
	g, err := s.builtGraph()
	if err != nil {
		*errs = appendErr(*errs, err)
		return nil, false
	}
	return g, true
}

// validateOverrides checks switch.overrides (their node names are
// resolved already); g is the topology's graph when validation built it
// (named kinds), else nil.
func (s *Scenario) validateOverrides(g *topo.Graph, errs *Errors) {
	for i := range s.Switch.Overrides {
		o := &s.Switch.Overrides[i]
		f := fmt.Sprintf("switch.overrides[%d]", i)
		if len(o.Nodes) == 0 && o.Role == "" {
			*errs = append(*errs, fmt.Errorf("%s: give the switches it sets: nodes (ids or names) and/or role", f))
		}
		if o.Role != "" && !slices.Contains(kindsWithRoles, s.Topology.Kind) {
			*errs = append(*errs, fmt.Errorf("%s.role = %q: topology.kind %s gives its nodes no roles (kinds with roles: %s); give nodes",
				f, o.Role, s.Topology.Kind, strings.Join(kindsWithRoles, ", ")))
		}
		for j, v := range o.Nodes {
			nodeRange(errs, fmt.Sprintf("%s.nodes[%d]", f, j), v)
		}
		if o.BufferMB != nil && o.BufferMiB != nil {
			*errs = append(*errs, fmt.Errorf("%s.buffer_mb and %s.buffer_mib both given: give the buffer in one unit", f, f))
		}
		if o.BufferMB != nil {
			rangef(errs, f+".buffer_mb", *o.BufferMB, 0.065536, 1e9)
		}
		if o.BufferMiB != nil {
			rangef(errs, f+".buffer_mib", *o.BufferMiB, 0.0625, 1<<30)
		}
		if o.PFC != nil {
			switch *o.PFC {
			case "dynamic", "static", "off":
			default:
				*errs = append(*errs, fmt.Errorf("%s.pfc = %q: allowed values dynamic, static, off", f, *o.PFC))
			}
		}
		if o.PFCStaticMB != nil && o.PFCStaticKB != nil {
			*errs = append(*errs, fmt.Errorf("%s.pfc_static_mb and %s.pfc_static_kb both given: give the threshold in one unit", f, f))
		}
		if o.PFCStaticMB != nil {
			rangef(errs, f+".pfc_static_mb", *o.PFCStaticMB, 0.001, 1e9)
		}
		if o.PFCStaticKB != nil {
			rangef(errs, f+".pfc_static_kb", *o.PFCStaticKB, 1, 1e12)
		}
		nh := 0
		for _, set := range []bool{o.HeadroomRTTs != nil, o.HeadroomMB != nil, o.HeadroomKB != nil} {
			if set {
				nh++
			}
		}
		if nh > 1 {
			*errs = append(*errs, fmt.Errorf("%s: give one of headroom_rtts, headroom_mb, headroom_kb", f))
		}
		if o.HeadroomRTTs != nil {
			rangef(errs, f+".headroom_rtts", float64(*o.HeadroomRTTs), 0, 1000)
		}
		if o.HeadroomMB != nil {
			rangef(errs, f+".headroom_mb", *o.HeadroomMB, 0, 1e9)
		}
		if o.HeadroomKB != nil {
			rangef(errs, f+".headroom_kb", *o.HeadroomKB, 0, 1e12)
		}
		if o.HeadroomExtraKB != nil {
			rangef(errs, f+".headroom_extra_kb", *o.HeadroomExtraKB, 0, 1e12)
			if o.HeadroomMB != nil || o.HeadroomKB != nil {
				*errs = append(*errs, fmt.Errorf("%s.headroom_extra_kb adds to headroom_rtts' headroom, not to an explicit headroom_mb / headroom_kb", f))
			}
		}
		for j, r := range o.ECNRules {
			p := fmt.Sprintf("%s.ecn_rules[%d]", f, j)
			rangef(errs, p+".link_gbps", r.LinkGbps, 0.001, 10_000)
			rangef(errs, p+".kmin_kb", r.KminKB, 0, 1<<30)
			rangef(errs, p+".kmax_kb", r.KmaxKB, r.KminKB, 1<<30)
			rangef(errs, p+".pmax", r.Pmax, 0, 1)
		}
		if o.BufferMB == nil && o.BufferMiB == nil && o.PFC == nil && o.PFCStaticMB == nil && o.PFCStaticKB == nil && nh == 0 && o.HeadroomExtraKB == nil && o.ECN == nil && len(o.ECNRules) == 0 {
			*errs = append(*errs, fmt.Errorf("%s sets nothing: give some of buffer_mb, buffer_mib, pfc, pfc_static_mb, pfc_static_kb, headroom_rtts, headroom_mb, headroom_kb, headroom_extra_kb, ecn, ecn_rules", f))
		}
	}
	if g != nil {
		if err := s.checkOverrideTargets(g); err != nil {
			*errs = appendErr(*errs, err)
		}
	}
}

// checkOverrideTargets reports the switch.overrides whose nodes are not
// switches of g or whose role no switch of g has.
func (s *Scenario) checkOverrideTargets(g *topo.Graph) error {
	var errs Errors
	for i := range s.Switch.Overrides {
		o := &s.Switch.Overrides[i]
		f := fmt.Sprintf("switch.overrides[%d]", i)
		for j, v := range o.Nodes {
			id := int(v)
			switch {
			case v.unresolved():
			case id < 0 || id >= g.NumNodes():
				errs = append(errs, fmt.Errorf("%s.nodes[%d] = %d: no such node (nodes are 0..%d)", f, j, id, g.NumNodes()-1))
			case g.Kinds[id] != topo.Switch:
				nm := ""
				if g.Name(id) != "" {
					nm = " (" + g.Name(id) + ")"
				}
				errs = append(errs, fmt.Errorf("%s.nodes[%d] = %d%s is a host, not a switch", f, j, id, nm))
			}
		}
		if o.Role != "" && len(g.Roles) > 0 {
			found := false
			var roles []string
			for id, r := range g.Roles {
				if g.Kinds[id] == topo.Switch && r != "" && !slices.Contains(roles, r) {
					roles = append(roles, r)
				}
				found = found || (r == o.Role && g.Kinds[id] == topo.Switch)
			}
			if !found {
				errs = append(errs, fmt.Errorf("%s.role = %q: no switch of topology.kind %s has this role (switch roles: %s)", f, o.Role, s.Topology.Kind, strings.Join(roles, ", ")))
			}
		}
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// pfcMode translates a switch.pfc value.
func pfcMode(v string) fabric.PFCMode {
	switch v {
	case "static":
		return fabric.PFCStatic
	case "off":
		return fabric.PFCOff
	}
	return fabric.PFCDynamic
}

// ecnRules translates ECN rules.
func ecnRules(rs []ECNRule) []fabric.ECNRule {
	var out []fabric.ECNRule
	for _, r := range rs {
		out = append(out, fabric.ECNRule{Bps: int64(r.LinkGbps * 1e9),
			KminBytes: int64(r.KminKB * 1000), KmaxBytes: int64(r.KmaxKB * 1000), Pmax: r.Pmax})
	}
	return out
}

// overrides translates switch.overrides for the fabric.
func (s *Scenario) overrides() []fabric.SwitchOverride {
	var out []fabric.SwitchOverride
	bytes := func(v float64, unit float64) *int64 {
		b := int64(math.Round(v * unit))
		return &b
	}
	for i := range s.Switch.Overrides {
		o := &s.Switch.Overrides[i]
		fo := fabric.SwitchOverride{Role: o.Role, Nodes: ids(o.Nodes), HeadroomRTTs: o.HeadroomRTTs, ECN: o.ECN, ECNRule: ecnRules(o.ECNRules)}
		if o.BufferMB != nil {
			fo.BufferBytes = bytes(*o.BufferMB, 1e6)
		}
		if o.BufferMiB != nil {
			fo.BufferBytes = bytes(*o.BufferMiB, 1<<20)
		}
		if o.PFC != nil {
			m := pfcMode(*o.PFC)
			fo.PFC = &m
		}
		if o.PFCStaticMB != nil {
			fo.PFCStaticBytes = bytes(*o.PFCStaticMB, 1e6)
		}
		if o.PFCStaticKB != nil {
			fo.PFCStaticBytes = bytes(*o.PFCStaticKB, 1e3)
		}
		if o.HeadroomMB != nil {
			fo.HeadroomBytes = bytes(*o.HeadroomMB, 1e6)
		}
		if o.HeadroomKB != nil {
			fo.HeadroomBytes = bytes(*o.HeadroomKB, 1e3)
		}
		if o.HeadroomExtraKB != nil {
			fo.HeadroomExtraBytes = bytes(*o.HeadroomExtraKB, 1e3)
		}
		out = append(out, fo)
	}
	return out
}

// lossy reports whether some switch drops on overflow (switch.pfc off, or
// an override's pfc off).
func (s *Scenario) lossy() bool {
	if s.Switch.PFC == "off" {
		return true
	}
	for _, o := range s.Switch.Overrides {
		if o.PFC != nil && *o.PFC == "off" {
			return true
		}
	}
	return false
}

// Loss recovery on long paths. The fabric's defaults (the reference
// simulator's) suit intra-DC RTTs of microseconds: NACKs of the same gap
// at most every 500 µs, and (lossy fabrics) a 1 ms retransmission timeout.
// On a path with a base RTT of milliseconds (cross_dc: 2.016 ms, two_site:
// 6.4 ms) a 1 ms timeout fires before the first ACK can return, rewinding
// every flow, and a 500 µs NACK interval repeats a NACK (and its
// go-back-N rewind) a dozen times per loss. So when host.rto_us or
// host.nack_interval_us is absent they scale with the topology's largest
// base RTT (topo.Graph.MaxRTT):
//
//	rto           = max(1 ms,   3 × max RTT)   (lossy fabrics only; 0 = off otherwise)
//	nack_interval = max(500 µs, 2 × max RTT)
//
// which leaves intra-DC topologies (max RTT < 166 µs) at the reference's
// values. An explicit rto_us at or below the largest base RTT of a lossy
// fabric is an error.
const (
	rtoRTTs  = 3
	nackRTTs = 2
)

// longPathTimers applies the RTT-scaled defaults to cfg for graph g.
func (s *Scenario) longPathTimers(cfg *fabric.Config, g *topo.Graph) error {
	maxRTT, _ := g.MaxRTT(cfg.PayloadBytes)
	if s.Host.NackIntervalUs == nil {
		cfg.NackInterval = max(cfg.NackInterval, nackRTTs*maxRTT)
	}
	if !s.lossy() {
		return nil
	}
	if s.Host.RTOUs == nil {
		cfg.RTO = max(cfg.RTO, rtoRTTs*maxRTT)
		return nil
	}
	if cfg.RTO > 0 && cfg.RTO <= maxRTT {
		return fmt.Errorf("host.rto_us = %v is at most the topology's largest base RTT (%.1f µs): with PFC off every flow would time out before its first ACK returns; raise it (absent = max(1000, %d × max RTT) = %.0f µs) or set 0 to disable the timeout",
			*s.Host.RTOUs, maxRTT.Microseconds(), rtoRTTs, max(sim.Millisecond, rtoRTTs*maxRTT).Microseconds())
	}
	return nil
}
