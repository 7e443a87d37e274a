package assemble

import (
	"math"

	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/scenario"
)

// Per-switch settings (switch.overrides; validated by package scenario)
// for the fabric: fabric.SwitchOverride, later entries winning field by
// field.

// overrides translates switch.overrides for the fabric.
func overrides(s *scenario.Scenario) []fabric.SwitchOverride {
	var out []fabric.SwitchOverride
	bytes := func(v float64, unit float64) *int64 {
		b := int64(math.Round(v * unit))
		return &b
	}
	for i := range s.Switch.Overrides {
		o := &s.Switch.Overrides[i]
		fo := fabric.SwitchOverride{Role: o.Role, Nodes: scenario.IDs(o.Nodes), HeadroomRTTs: o.HeadroomRTTs, ECN: o.ECN, ECNRule: ecnRules(o.ECNRules)}
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
