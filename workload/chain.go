package workload

import "fmt"

// CheckChains checks the predecessors of the chained flows of a list
// (Flow.HasAfter, Flow.HasAlsoAfter): each names another flow of the list
// (the second not the first), and following the predecessors never comes
// back to a flow (a cycle, whose flows could never start). Errors name
// flows by their index in the list.
func CheckChains(flows []Flow) error {
	chained := false
	for i := range flows {
		f := &flows[i]
		if f.HasAlsoAfter && !f.HasAfter {
			return fmt.Errorf("flow %d: a second predecessor (%d) needs a first", i, f.AlsoAfter)
		}
		if !f.HasAfter {
			continue
		}
		chained = true
		switch {
		case f.After < 0 || f.After >= len(flows):
			return fmt.Errorf("flow %d: predecessor %d is not a flow (flows 0..%d)", i, f.After, len(flows)-1)
		case f.After == i:
			return fmt.Errorf("flow %d: chained to itself", i)
		case f.HasAlsoAfter && (f.AlsoAfter < 0 || f.AlsoAfter >= len(flows)):
			return fmt.Errorf("flow %d: second predecessor %d is not a flow (flows 0..%d)", i, f.AlsoAfter, len(flows)-1)
		case f.HasAlsoAfter && f.AlsoAfter == i:
			return fmt.Errorf("flow %d: chained to itself", i)
		case f.HasAlsoAfter && f.AlsoAfter == f.After:
			return fmt.Errorf("flow %d: second predecessor %d is also its first", i, f.AlsoAfter)
		}
	}
	if !chained {
		return nil
	}
	// Kahn's algorithm over the predecessor edges: the flows left with an
	// unstarted predecessor when nothing more can start lie on a cycle or
	// after one
	succ, off := Successors(flows)
	left := make([]int8, len(flows))
	queue := make([]int32, 0, len(flows))
	for i := range flows {
		left[i] = predCount(&flows[i])
		if left[i] == 0 {
			queue = append(queue, int32(i))
		}
	}
	for k := 0; k < len(queue); k++ {
		i := queue[k]
		for _, s := range succ[off[i]:off[i+1]] {
			if left[s]--; left[s] == 0 {
				queue = append(queue, s)
			}
		}
	}
	if len(queue) < len(flows) {
		for i := range flows {
			if left[i] > 0 {
				return fmt.Errorf("flows chained in a cycle (flow %d waits for itself through its predecessors, or for a flow that does): none of them could start", i)
			}
		}
	}
	return nil
}

// predCount is the number of predecessors of a flow.
func predCount(f *Flow) int8 {
	switch {
	case f.HasAlsoAfter:
		return 2
	case f.HasAfter:
		return 1
	}
	return 0
}

// Successors lists, for each flow, the flows chained to it (as first or
// second predecessor) in ascending index order: the successors of flow i
// are succ[off[i]:off[i+1]].
func Successors(flows []Flow) (succ, off []int32) {
	off = make([]int32, len(flows)+1)
	for i := range flows {
		f := &flows[i]
		if f.HasAfter && f.After >= 0 && f.After < len(flows) {
			off[f.After+1]++
		}
		if f.HasAlsoAfter && f.AlsoAfter >= 0 && f.AlsoAfter < len(flows) {
			off[f.AlsoAfter+1]++
		}
	}
	for i := range flows {
		off[i+1] += off[i]
	}
	succ = make([]int32, off[len(flows)])
	fill := append([]int32(nil), off[:len(flows)]...)
	for i := range flows {
		f := &flows[i]
		if f.HasAfter && f.After >= 0 && f.After < len(flows) {
			succ[fill[f.After]] = int32(i)
			fill[f.After]++
		}
		if f.HasAlsoAfter && f.AlsoAfter >= 0 && f.AlsoAfter < len(flows) {
			succ[fill[f.AlsoAfter]] = int32(i)
			fill[f.AlsoAfter]++
		}
	}
	return succ, off
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
