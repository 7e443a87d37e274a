package workload

import "fmt"

// CheckChains checks the predecessors of the chained flows of a list
// (Flow.HasAfter): each names another flow of the list, and following the
// predecessors never comes back to a flow (a cycle, whose flows could
// never start). Errors name flows by their index in the list.
func CheckChains(flows []Flow) error {
	chained := false
	for i := range flows {
		f := &flows[i]
		if !f.HasAfter {
			continue
		}
		chained = true
		switch {
		case f.After < 0 || f.After >= len(flows):
			return fmt.Errorf("flow %d: predecessor %d is not a flow (flows 0..%d)", i, f.After, len(flows)-1)
		case f.After == i:
			return fmt.Errorf("flow %d: chained to itself", i)
		}
	}
	if !chained {
		return nil
	}
	// every flow has at most one predecessor: a cycle is a walk along the
	// predecessors that comes back to a flow of the same walk
	state := make([]uint8, len(flows)) // 0 unseen, 1 on the current walk, 2 done
	for i := range flows {
		j := i
		for state[j] == 0 {
			state[j] = 1
			if !flows[j].HasAfter {
				break
			}
			j = flows[j].After
		}
		if state[j] == 1 && flows[j].HasAfter {
			return fmt.Errorf("flows chained in a cycle (the predecessors of flow %d lead back to flow %d): none of them could start", i, j)
		}
		for k := i; state[k] == 1; {
			state[k] = 2
			if !flows[k].HasAfter {
				break
			}
			k = flows[k].After
		}
	}
	return nil
}
