package assemble

import (
	"errors"
	"fmt"
	"slices"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/topo"
	"github.com/ccsim/ccsim/workload"
)

// algorithmNetwork builds the network of algorithm ccName on graph g with
// flows: the fabric configuration completed by the algorithm's reference
// preset, the flows, the algorithm's switch features and its per-QP
// instances.
func algorithmNetwork(s *scenario.Scenario, ccName string, opt Options, g *topo.Graph, flows []workload.Flow) (*fabric.Network, error) {
	spec, err := cc.Lookup(ccName)
	if err != nil {
		return nil, err
	}
	p := s.ParamsOf(ccName)
	if p == nil {
		p = spec.Defaults()
		if err := p.Validate(); err != nil {
			return nil, err
		}
	}
	cfg := FabricConfig(s)
	cfg.Routes = opt.routes
	if opt.Seed != 0 || opt.SeedSet {
		cfg.Seed = opt.Seed
	}
	ctor, req := spec.New(p)
	// the algorithm's reference preset decides what the scenario leaves open
	if s.Host.AckHighPrio == nil && req.AckPrio != 0 {
		cfg.AckHighPrio = req.AckPrio > 0
	}
	if len(s.Switch.ECNRules) == 0 && req.ECN != nil {
		cfg.ECNRule = req.ECN
	}
	if s.Host.CNPIntervalUs == nil && req.CNPInterval != 0 {
		cfg.CNPInterval = req.CNPInterval
	}
	net, err := newNetwork(s, g, cfg)
	if err != nil {
		return nil, err
	}
	net.SetRequirements(req)
	if err := net.AddFlows(flows, func(int) fabric.Algorithm { return nil }); err != nil {
		return nil, err
	}
	// switch features after the flows, so that they can size per-flow state
	addSwitchFeatures(net, spec, p)
	net.SetAlgorithm(ctor)
	return net, nil
}

// addSwitchFeatures installs the switch-side part of the algorithm (PCN,
// Bolt, DCON, WRCC, ...), if it has one, on every switch of net.
func addSwitchFeatures(net *fabric.Network, spec *cc.Spec, p cc.Params) {
	if spec.Switch == nil {
		return
	}
	mk, period := spec.Switch(p)
	for i := range net.Nodes {
		if net.Nodes[i].Switch {
			net.AddFeature(i, mk(net.SwitchView(i)))
		}
	}
	net.SetFeaturePeriod(period)
}

// newNetwork is fabric.New with its errors in the scenario's terms. It
// checks the switch.overrides against g and scales the loss-recovery
// timers to g's longest path first (longPathTimers).
func newNetwork(s *scenario.Scenario, g *topo.Graph, cfg fabric.Config) (*fabric.Network, error) {
	if err := s.CheckOverrideTargets(g); err != nil {
		return nil, err
	}
	if err := longPathTimers(s, &cfg, g); err != nil {
		return nil, err
	}
	net, err := fabric.New(g, cfg)
	var he *fabric.HeadroomError
	if errors.As(err, &he) {
		return nil, headroomError(s, g, he)
	}
	return net, err
}

// headroomError explains a buffer too small for PFC's headroom, naming
// the fields that set the buffer, the headroom, the link delays and PFC.
func headroomError(s *scenario.Scenario, g *topo.Graph, he *fabric.HeadroomError) error {
	t := &s.Topology
	delays := fmt.Sprintf("topology.link_delay_ns = %v", t.LinkDelayNs)
	switch {
	case t.Kind == "ns3":
		delays = "the link delays of topology.file"
	case t.FabricDelayNs != nil:
		delays += fmt.Sprintf(", topology.fabric_delay_ns = %v", *t.FabricDelayNs)
	}
	if t.Kind == "cross_dc" || t.Kind == "two_site" {
		delays += fmt.Sprintf(", the long haul's topology.%s.long_haul_delay_ns (or long_haul_km)", t.Kind)
	}
	for _, hl := range t.HostLinks {
		if hl.DelayNs != nil {
			delays += ", topology.host_links delay_ns"
			break
		}
	}
	bufField, headField, pfcField := switchFields(s, g, he.Node)
	headroom := fmt.Sprintf("%s = %d × one-way BDP of its link (%s)", headField, he.HeadroomRTTs, delays)
	if he.PortHeadroom > 0 {
		headroom = fmt.Sprintf("%s = %d B", headField, he.PortHeadroom)
	}
	return fmt.Errorf("%s (%d B) is too small for PFC: %v; headroom per port = %s; "+
		"raise %s, lower %s or the link delays, or set %s: off",
		bufField, he.BufferBytes, he, headroom, bufField, headField, pfcField)
}

// switchFields names the fields that set switch sw's buffer, headroom
// and PFC mode: the last override of switch.overrides that selects sw and
// sets each, else the switch section's field, with the buffer's value.
func switchFields(s *scenario.Scenario, g *topo.Graph, sw int) (buf, head, pfc string) {
	sec := &s.Switch
	buf = fmt.Sprintf("switch.buffer_mib = %v", sec.BufferMiB)
	if sec.BufferMB != nil {
		buf = fmt.Sprintf("switch.buffer_mb = %v", *sec.BufferMB)
	}
	head, pfc = "switch.headroom_rtts", "switch.pfc"
	for i := range sec.Overrides {
		o := &sec.Overrides[i]
		if !slices.Contains(o.Nodes, scenario.NodeID(sw)) && (o.Role == "" || g.Role(sw) != o.Role) {
			continue
		}
		f := fmt.Sprintf("switch.overrides[%d]", i)
		switch {
		case o.BufferMB != nil:
			buf = fmt.Sprintf("%s.buffer_mb = %v", f, *o.BufferMB)
		case o.BufferMiB != nil:
			buf = fmt.Sprintf("%s.buffer_mib = %v", f, *o.BufferMiB)
		}
		switch {
		case o.HeadroomMB != nil:
			head = f + ".headroom_mb"
		case o.HeadroomKB != nil:
			head = f + ".headroom_kb"
		case o.HeadroomRTTs != nil:
			head = f + ".headroom_rtts"
		case o.HeadroomExtraKB != nil:
			head = f + ".headroom_extra_kb"
		}
		if o.PFC != nil {
			pfc = f + ".pfc"
		}
	}
	return buf, head, pfc
}
