package scenario

import "fmt"

// Series selects binned time series of a run (outputs.series). Bins are
// [first flow start + k·bin_us, first flow start + (k+1)·bin_us); the last
// bin ends at the end of the run and may be shorter (its length is written).
// The files and their definitions are in docs/outputs.md §13.
type Series struct {
	// BinUs is the bin width in µs ([0.01, 1e6]); required when any series
	// is on.
	BinUs float64 `yaml:"bin_us,omitempty"`
	// FlowRate writes flow_rate.csv: the delivered (in-order payload) rate
	// per bin of every flow ("flow"), or summed over the flows of each
	// sender ("src") or receiver ("dst"). "" = off. A flow (group) has a row
	// for every bin that overlaps its active interval [start, finish].
	FlowRate string `yaml:"flow_rate,omitempty"`
	// FlowRateBinUs is the bin of flow_rate.csv when it should differ from
	// bin_us (a multiple of it is not required); absent = bin_us.
	FlowRateBinUs *float64 `yaml:"flow_rate_bin_us,omitempty"`
	// LinkPorts writes link_rate.csv: per bin, the bytes each listed port
	// started transmitting (wire bytes, all packets) and the data payload
	// among them, as rates. Empty with link_rate true = every switch port.
	LinkPorts []Port `yaml:"link_ports,omitempty"`
	LinkRate  bool   `yaml:"link_rate,omitempty"`
	// PFC writes pfc_bins.csv: PFC PAUSE frames per link direction per bin
	// (from = the port that sent the pause, to = the transmitter it paused).
	PFC bool `yaml:"pfc,omitempty"`
	// QueuePorts writes queue_series.csv: the egress queue length (bytes,
	// all classes) of each listed port, sampled every queue_sample_us
	// ([0.01, 1e6], default 1) and summarised per bin as min, mean and max.
	QueuePorts    []Port   `yaml:"queue_ports,omitempty"`
	QueueSampleUs *float64 `yaml:"queue_sample_us,omitempty"`
	// QueueBinUs is the bin of queue_series.csv when it should differ from
	// bin_us; absent = bin_us.
	QueueBinUs *float64 `yaml:"queue_bin_us,omitempty"`
	// IngressPorts adds to queue_series.csv the ingress queue of these
	// switch ports (bytes held that entered on the port, all classes: what
	// PFC watches), rows with dir = ingress; egress rows have dir = egress.
	IngressPorts []Port `yaml:"ingress_ports,omitempty"`
}

// On reports whether any series is selected (nil: none).
func (sr *Series) On() bool {
	return sr != nil && (sr.FlowRate != "" || sr.LinkRate || len(sr.LinkPorts) > 0 || sr.PFC || len(sr.QueuePorts) > 0 || len(sr.IngressPorts) > 0)
}

// validate checks outputs.series.
func (sr *Series) validate(errs *Errors) {
	if sr == nil {
		return
	}
	if sr.On() || sr.BinUs != 0 {
		rangef(errs, "outputs.series.bin_us", sr.BinUs, 0.01, 1e6)
	}
	switch sr.FlowRate {
	case "", "flow", "src", "dst":
	default:
		*errs = append(*errs, fmt.Errorf("outputs.series.flow_rate = %q: allowed values flow, src, dst (or absent)", sr.FlowRate))
	}
	for _, f := range []struct {
		name string
		v    *float64
	}{{"flow_rate_bin_us", sr.FlowRateBinUs}, {"queue_bin_us", sr.QueueBinUs}, {"queue_sample_us", sr.QueueSampleUs}} {
		if f.v != nil {
			rangef(errs, "outputs.series."+f.name, *f.v, 0.01, 1e6)
		}
	}
	for i, p := range append(append(append([]Port{}, sr.LinkPorts...), sr.QueuePorts...), sr.IngressPorts...) {
		if p.Node < 0 && !p.Node.Unresolved() || p.Port < 0 {
			*errs = append(*errs, fmt.Errorf("outputs.series ports[%d]: node %d port %d must not be negative", i, p.Node, p.Port))
		}
	}
}
