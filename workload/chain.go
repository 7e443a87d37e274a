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

// CheckRings validates the message rings (Flow.HasNext): every member's
// Next is another member of the flow list, no flow is the Next of two
// flows, a member carries one message at a time for ever (Messages ≤ 1, no
// Until), and each ring has exactly one head — a member with a start time
// of its own (no HasAfter) — while every other member is chained to its
// ring predecessor (HasAfter with After = the predecessor), so that a
// member is always started when its turn first comes. With in-degree at
// most one and every member's Next a member, the Next pointers form
// disjoint cycles.
func CheckRings(flows []Flow) error {
	var pred []int32
	for i := range flows {
		f := &flows[i]
		if !f.HasNext {
			continue
		}
		if pred == nil {
			pred = make([]int32, len(flows))
			for k := range pred {
				pred[k] = -1
			}
		}
		switch {
		case f.Next < 0 || f.Next >= len(flows) || f.Next == i:
			return fmt.Errorf("flow %d: ring successor %d is not another flow (flows 0..%d)", i, f.Next, len(flows)-1)
		case !flows[f.Next].HasNext:
			return fmt.Errorf("flow %d: ring successor %d is not a ring member (it has no successor)", i, f.Next)
		case f.Messages > 1 || f.Until != 0:
			return fmt.Errorf("flow %d: a ring member carries one message at a time until the run ends (messages %d, until %v)", i, f.Messages, f.Until)
		case pred[f.Next] >= 0:
			return fmt.Errorf("flow %d: ring successor %d is already the successor of flow %d", i, f.Next, pred[f.Next])
		}
		pred[f.Next] = int32(i)
	}
	if pred == nil {
		return nil
	}
	seen := make([]bool, len(flows))
	for i := range flows {
		if !flows[i].HasNext || seen[i] {
			continue
		}
		heads := 0
		for j := i; !seen[j]; j = flows[j].Next {
			seen[j] = true
			f := &flows[j]
			switch {
			case !f.HasAfter:
				heads++
			case f.After != int(pred[j]):
				return fmt.Errorf("flow %d: a ring member must be chained to its ring predecessor %d (after = %d) or start on its own", j, pred[j], f.After)
			}
		}
		if heads != 1 {
			return fmt.Errorf("flow %d: its ring has %d members with a start time of their own, want exactly 1 (the others follow their predecessor)", i, heads)
		}
	}
	return nil
}
