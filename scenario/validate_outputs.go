package scenario

import "fmt"

// validateOutputs checks the outputs section (its series: series.go) and
// records whether it is sound.
func (s *Scenario) validateOutputs(errs *Errors) {
	n := len(*errs)
	o := &s.Outputs
	badNodes := s.resolveNames(o, "outputs", errs)
	if o.QueueSampleUs != 0 {
		rangef(errs, "outputs.queue_sample_us", o.QueueSampleUs, 0.01, 1e6)
	}
	if o.ThroughputSampleUs != 0 {
		rangef(errs, "outputs.throughput_sample_us", o.ThroughputSampleUs, 0.01, 1e6)
	}
	if len(o.JainWindowMs) > 0 {
		if len(o.JainWindowMs) != 2 || !(o.JainWindowMs[0] >= 0 && o.JainWindowMs[1] > o.JainWindowMs[0]) {
			*errs = append(*errs, fmt.Errorf("outputs.jain_window_ms = %v: need [from, to] with 0 <= from < to", o.JainWindowMs))
		}
		if o.ThroughputSampleUs == 0 {
			*errs = append(*errs, fmt.Errorf("outputs.jain_window_ms needs outputs.throughput_sample_us in [0.01, 1e6]"))
		}
	}
	o.Series.validate(errs)
	if len(o.RTTPerRTTFlows) > 0 && !o.RTTPerRTT {
		*errs = append(*errs, fmt.Errorf("outputs.rtt_per_rtt_flows needs outputs.rtt_per_rtt: true"))
	}
	for i, f := range o.RTTPerRTTFlows {
		if f < 0 {
			*errs = append(*errs, fmt.Errorf("outputs.rtt_per_rtt_flows[%d] = %d: a flow index, >= 0", i, f))
		}
	}
	for i, f := range o.RateTraceFlows {
		if f < 0 {
			*errs = append(*errs, fmt.Errorf("outputs.rate_trace_flows[%d] = %d: a flow index, >= 0", i, f))
		}
	}
	if len(o.QueuePorts) > 0 && o.QueueSampleUs == 0 {
		*errs = append(*errs, fmt.Errorf("outputs.queue_ports needs outputs.queue_sample_us in [0.01, 1e6]"))
	}
	s.sound.Outputs = len(*errs) == n && !badNodes
}
