// Package env runs the simulator as a training environment for ml/rl
// (issue 17 §1, docs/env.md): a scenario built with a seed, one `agent`
// controller (cc/agent.go) per flow, observations at each flow's
// monitoring boundary handed to a policy, actions applied at once or after
// a modelled decision latency, rewards from the same interval's counters,
// and K environments run in parallel whose transitions merge in
// environment order.
package env

import (
	"fmt"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/sim"
)

// Config describes one environment (an episode = one run of Scenario).
type Config struct {
	// Scenario is the simulation; its workload's flows become the agents.
	// Its params.agent section (or cc.AgentDefaults) sets the monitoring
	// interval and the action's meaning.
	Scenario *scenario.Scenario
	// Seed is the simulation's seed (environment k of Run uses Seed + k).
	Seed uint64
	// History is the number of past observations in the policy's window
	// (decc.md §1.4: w = 5); 1 = the current observation only.
	History int
	// Global appends DECC's global state (decc.md §1.4, Table 1) to every
	// observation: docs/env.md §3.
	Global bool
	// Reward computes each transition's reward; nil = ThrLat{Delta: 1}.
	Reward Reward
	// Latency is the decision-latency model; the zero value decides at
	// once.
	Latency Latency
}

// Latency is the decision-latency model of controllers that run on a host
// processor (a DPU, decc.md §1.10; docs/env.md §5).
type Latency struct {
	// Cost is the time one decision occupies a core (0 = instantaneous:
	// the action applies at the boundary itself).
	Cost sim.Time
	// Cores is the number of decision cores per sending host (0 = 1).
	Cores int
	// Queue is what a decision finds when every core is busy: "wait"
	// (the default, FIFO: it starts when a core frees) or "skip" (it is
	// dropped and the flow keeps its rate).
	Queue string
}

// Validate checks every field's range; errors name the field.
func (c *Config) Validate() error {
	switch {
	case c.Scenario == nil:
		return fmt.Errorf("env: scenario is nil")
	case c.History < 0 || c.History > 1024:
		return fmt.Errorf("env: history = %d out of range [1, 1024] (0 = 1)", c.History)
	case c.Latency.Cost < 0 || c.Latency.Cost > sim.Second:
		return fmt.Errorf("env: latency.cost = %v out of range [0, 1 s]", c.Latency.Cost)
	case c.Latency.Cores < 0 || c.Latency.Cores > 1024:
		return fmt.Errorf("env: latency.cores = %d out of range [1, 1024] (0 = 1)", c.Latency.Cores)
	case c.Latency.Queue != "" && c.Latency.Queue != "wait" && c.Latency.Queue != "skip":
		return fmt.Errorf("env: latency.queue = %q: allowed values wait, skip", c.Latency.Queue)
	}
	if r, ok := c.Reward.(interface{ Validate() error }); ok {
		if err := r.Validate(); err != nil {
			return err
		}
	}
	if _, err := c.agentParams(); err != nil {
		return err
	}
	return nil
}

// agentParams is the scenario's params.agent section or the defaults.
func (c *Config) agentParams() (*cc.AgentParams, error) {
	p, _ := c.Scenario.ParamsOf("agent").(*cc.AgentParams)
	if p == nil {
		p = cc.AgentDefaults()
	}
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("env: params.agent: %w", err)
	}
	return p, nil
}

// ObsDim is the length of one observation: the local features (docs/env.md
// §3), plus the global ones with Global.
func (c *Config) ObsDim() int {
	if c.Global {
		return NumLocal + NumGlobal
	}
	return NumLocal
}
