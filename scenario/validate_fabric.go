package scenario

import (
	"fmt"

	"github.com/ccsim/ccsim/topo"
)

// validateFabric checks the sections that configure the fabric, switch
// (with its overrides, checked against named, the graph of a named
// topology kind or nil) and host, and records whether they are sound.
func (s *Scenario) validateFabric(named *topo.Graph, errs *Errors) {
	n := len(*errs)
	sw := &s.Switch
	sw.validate(errs)
	badNodes := s.resolveNames(&sw.Overrides, "switch.overrides", errs)
	s.validateOverrides(named, errs)
	validateECNRules(errs, "switch", sw.ECNRules)
	s.Host.validate(errs)
	s.sound.Fabric = len(*errs) == n && !badNodes
}

// validate checks the switch settings (without overrides and ECN rules).
func (sw *Switch) validate(errs *Errors) {
	if sw.BufferMB != nil {
		if sw.BufferMiB != 0 {
			*errs = append(*errs, fmt.Errorf("switch.buffer_mb and switch.buffer_mib both given: give the buffer in one unit"))
		}
		rangef(errs, "switch.buffer_mb", *sw.BufferMB, 0.065536, 1099511.627776) // = buffer_mib's range in bytes
	} else {
		rangef(errs, "switch.buffer_mib", sw.BufferMiB, 0.0625, 1<<20)
	}
	switch sw.PFC {
	case "dynamic", "static", "off":
	default:
		*errs = append(*errs, fmt.Errorf("switch.pfc = %q: allowed values dynamic, static, off", sw.PFC))
	}
	rangef(errs, "switch.pfc_static_kb", sw.PFCStaticKB, 1, 1<<30)
	if sw.ReserveBytes != nil {
		rangef(errs, "switch.reserve_bytes", float64(*sw.ReserveBytes), 0, 1<<30)
	}
	if sw.ResumeOffsetBytes != nil {
		rangef(errs, "switch.resume_offset_bytes", float64(*sw.ResumeOffsetBytes), 0, 1<<30)
	}
	if sw.HeadroomRTTs != nil {
		rangef(errs, "switch.headroom_rtts", float64(*sw.HeadroomRTTs), 0, 1000)
	}
}

// validateECNRules checks the ECN rules of field prefix (switch, or one
// of switch.overrides).
func validateECNRules(errs *Errors, prefix string, rules []ECNRule) {
	for i, r := range rules {
		f := fmt.Sprintf("%s.ecn_rules[%d]", prefix, i)
		rangef(errs, f+".link_gbps", r.LinkGbps, 0.001, 10_000)
		rangef(errs, f+".kmin_kb", r.KminKB, 0, 1<<30)
		rangef(errs, f+".kmax_kb", r.KmaxKB, r.KminKB, 1<<30)
		rangef(errs, f+".pmax", r.Pmax, 0, 1)
	}
}

// validate checks the NIC settings.
func (h *Host) validate(errs *Errors) {
	rangef(errs, "host.payload_bytes", float64(h.PayloadBytes), 64, 9000)
	if h.CNPIntervalUs != nil {
		rangef(errs, "host.cnp_interval_us", *h.CNPIntervalUs, 0, 1e6)
	}
	if h.NackIntervalUs != nil {
		rangef(errs, "host.nack_interval_us", *h.NackIntervalUs, 0, 1e6)
	}
	if h.RTOUs != nil {
		rangef(errs, "host.rto_us", *h.RTOUs, 0, 1e7)
	}
}
