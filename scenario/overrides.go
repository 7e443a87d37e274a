package scenario

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ccsim/ccsim/topo"
)

// Per-switch settings (switch.overrides): the schema and its checks. The
// translation for the fabric is assemble's.

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
		o.validateSettings(errs, f)
	}
	if g != nil {
		if err := s.CheckOverrideTargets(g); err != nil {
			*errs = AppendError(*errs, err)
		}
	}
}

// validateSettings checks the settings of override f (one unit per
// quantity, ranges, at least one setting).
func (o *SwitchOverride) validateSettings(errs *Errors, f string) {
	if o.BufferMB != nil && o.BufferMiB != nil {
		*errs = append(*errs, fmt.Errorf("%s.buffer_mb and %s.buffer_mib both given: give the buffer in one unit", f, f))
	}
	optf(errs, f+".buffer_mb", o.BufferMB, 0.065536, 1e9)
	optf(errs, f+".buffer_mib", o.BufferMiB, 0.0625, 1<<30)
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
	optf(errs, f+".pfc_static_mb", o.PFCStaticMB, 0.001, 1e9)
	optf(errs, f+".pfc_static_kb", o.PFCStaticKB, 1, 1e12)
	nh := o.validateHeadroom(errs, f)
	validateECNRules(errs, f, o.ECNRules)
	if o.BufferMB == nil && o.BufferMiB == nil && o.PFC == nil && o.PFCStaticMB == nil && o.PFCStaticKB == nil && nh == 0 && o.HeadroomExtraKB == nil && o.ECN == nil && len(o.ECNRules) == 0 {
		*errs = append(*errs, fmt.Errorf("%s sets nothing: give some of buffer_mb, buffer_mib, pfc, pfc_static_mb, pfc_static_kb, headroom_rtts, headroom_mb, headroom_kb, headroom_extra_kb, ecn, ecn_rules", f))
	}
}

// validateHeadroom checks the headroom fields of override f and returns
// how many of the three ways to give it are used.
func (o *SwitchOverride) validateHeadroom(errs *Errors, f string) int {
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
	optf(errs, f+".headroom_mb", o.HeadroomMB, 0, 1e9)
	optf(errs, f+".headroom_kb", o.HeadroomKB, 0, 1e12)
	if o.HeadroomExtraKB != nil {
		rangef(errs, f+".headroom_extra_kb", *o.HeadroomExtraKB, 0, 1e12)
		if o.HeadroomMB != nil || o.HeadroomKB != nil {
			*errs = append(*errs, fmt.Errorf("%s.headroom_extra_kb adds to headroom_rtts' headroom, not to an explicit headroom_mb / headroom_kb", f))
		}
	}
	return nh
}

// CheckOverrideTargets reports the switch.overrides whose nodes are not
// switches of g (the scenario's topology) or whose role no switch of g
// has. Validation checks the graphs of named kinds; assemble checks every
// graph it builds.
func (s *Scenario) CheckOverrideTargets(g *topo.Graph) error {
	var errs Errors
	for i := range s.Switch.Overrides {
		o := &s.Switch.Overrides[i]
		f := fmt.Sprintf("switch.overrides[%d]", i)
		for j, v := range o.Nodes {
			id := int(v)
			switch {
			case v.Unresolved():
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
