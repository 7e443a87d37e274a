package cc

// DecisionCounter is an algorithm that counts its control decisions: the
// runs of its control law (an agent's interval boundaries, a learned
// policy's inferences, HPCC's per-ACK updates). scenario/assemble writes
// the count to flow_stats.csv (docs/outputs.md §12); paper 000's DPU-load
// proxy (E9) multiplies it by a cost per decision.
type DecisionCounter interface {
	DecisionCount() int64
}

// DecisionCount is the number of interval boundaries the agent closed (one
// policy decision each, applied or not).
func (a *Agent) DecisionCount() int64 { return a.Boundaries }

// DecisionCount is the number of monitoring intervals closed.
func (a *Aurora) DecisionCount() int64 { return a.Decisions }

// DecisionCount is the number of the agent's decisions.
func (s *Spine) DecisionCount() int64 { return s.Decisions }

// DecisionCount is the number of policy runs (one per MTP unless skipped).
func (d *DECC) DecisionCount() int64 { return d.Decisions }

// DecisionCount is the number of ACKs that ran Algorithm 1.
func (h *HPCC) DecisionCount() int64 { return h.Updates }
