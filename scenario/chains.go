package scenario

import (
	"fmt"

	"github.com/ccsim/ccsim/workload"
)

// validateChainsAndTests checks the chained explicit flows
// (workload.flows[].after, gap_ns), the sections cross_dc and perftest,
// and the outputs that cannot hold them.
func (s *Scenario) validateChainsAndTests(errs *Errors) {
	w := &s.Workload
	chained := false
	ring := false
	for i, f := range w.Flows {
		p := fmt.Sprintf("workload.flows[%d]", i)
		if f.Next != nil {
			ring = true
			if *f.Next < 0 || *f.Next >= len(w.Flows) || *f.Next == i {
				*errs = append(*errs, fmt.Errorf("%s.next = %d: want the index of another flow of workload.flows, in [0, %d]", p, *f.Next, len(w.Flows)-1))
			}
		}
		if f.AlsoAfter != nil {
			switch {
			case f.After == nil:
				*errs = append(*errs, fmt.Errorf("%s.also_after needs %s.after (a second predecessor needs a first)", p, p))
			case *f.AlsoAfter < 0 || *f.AlsoAfter >= len(w.Flows) || *f.AlsoAfter == i || *f.AlsoAfter == *f.After:
				*errs = append(*errs, fmt.Errorf("%s.also_after = %d: want the index of a flow of workload.flows other than this one and its after, in [0, %d]", p, *f.AlsoAfter, len(w.Flows)-1))
			}
		}
		if f.After == nil {
			if f.GapNs != 0 && f.Next == nil {
				*errs = append(*errs, fmt.Errorf("%s.gap_ns needs %s.after (the flow it follows) or %s.next (a message ring)", p, p, p))
			}
			if f.Next != nil {
				rangef(errs, p+".gap_ns", f.GapNs, 0, 1e12)
			}
			continue
		}
		chained = true
		if *f.After < 0 || *f.After >= len(w.Flows) || *f.After == i {
			*errs = append(*errs, fmt.Errorf("%s.after = %d: want the index of another flow of workload.flows, in [0, %d]", p, *f.After, len(w.Flows)-1))
		}
		if f.StartNs != 0 {
			*errs = append(*errs, fmt.Errorf("%s: start_ns = %v and after both given: a chained flow starts when flow %d completes (plus gap_ns)", p, f.StartNs, *f.After))
		}
		rangef(errs, p+".gap_ns", f.GapNs, 0, 1e12)
	}
	if chained || ring {
		fl := make([]workload.Flow, len(w.Flows))
		for i, f := range w.Flows {
			if f.After != nil {
				fl[i].After, fl[i].HasAfter = *f.After, true
			}
			if f.AlsoAfter != nil && f.After != nil {
				fl[i].AlsoAfter, fl[i].HasAlsoAfter = *f.AlsoAfter, true
			}
			if f.Next != nil {
				fl[i].Next, fl[i].HasNext = *f.Next, true
			}
		}
		if err := workload.CheckChains(fl); err != nil {
			*errs = append(*errs, fmt.Errorf("workload.flows: %v", err))
		} else if err := workload.CheckRings(fl); err != nil {
			*errs = append(*errs, fmt.Errorf("workload.flows (next): %v", err))
		}
	}
	if c := w.CrossDC; c != nil {
		c.validate(errs)
	}
	if p := w.Perftest; p != nil {
		p.validate(errs)
	}
	if s.Outputs.FlowFile && (chained || ring || w.Perftest != nil) {
		*errs = append(*errs, fmt.Errorf("outputs.flow_file: the reference flow file cannot hold chained flows (workload.flows[].after) or perftest's probe chain; remove one of them"))
	}
}
