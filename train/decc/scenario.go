package decc

import (
	"fmt"
	"strings"

	"github.com/ccsim/ccsim/ml/nn"
	"github.com/ccsim/ccsim/scenario"
)

// Scenario is one training (or evaluation) case: Flows long flows on the
// star, many-to-one (every flow to host 0) or many-to-many (PerHost flows
// from every host to uniformly drawn other hosts).
type Scenario struct {
	ManyToMany bool
	N          int // many-to-one: flows; many-to-many: flows per host
}

// String names the case ("m2o-16", "m2m-2").
func (s Scenario) String() string {
	if s.ManyToMany {
		return fmt.Sprintf("m2m-%d", s.N)
	}
	return fmt.Sprintf("m2o-%d", s.N)
}

// episodeScenario is the case of episode e of the run: many-to-one for
// even e, many-to-many for odd, each cycling through its list.
func (c *Config) episodeScenario(e int) Scenario {
	if e%2 == 1 {
		return Scenario{ManyToMany: true, N: c.ManyToMany[(e/2)%len(c.ManyToMany)]}
	}
	return Scenario{N: c.ManyToOne[(e/2)%len(c.ManyToOne)]}
}

// YAML is the scenario of case s for seed (the flows' start times and the
// many-to-many destinations are drawn from it): c.Hosts hosts on a star at
// c.Gbps with 1 µs links, 1,024-B payloads, PFC off with c.BufferMB of
// shared buffer (a lossy fabric with go-back-N, as paper 000's
// experiments: docs/algorithms/decc.md §10.1), long flows of 10¹² bytes
// starting uniformly in [0, StaggerUs), stopped after EpisodeUs; every flow
// runs `agent` in decc mode with alpha_act.
func (c *Config) YAML(s Scenario, seed uint64) string {
	r := nn.NewRand(seed ^ 0x5eed_decc)
	var b strings.Builder
	fmt.Fprintf(&b, "name: decc-train-%s\nseed: 1\nstop_ms: %g\ncc: [agent]\n", s, c.EpisodeUs/1000)
	fmt.Fprintf(&b, "params:\n  agent: {mode: decc, alpha: %g}\n", c.AlphaAct)
	fmt.Fprintf(&b, "topology: {kind: star, hosts: %d, link_gbps: %g, link_delay_ns: 1000}\n", c.Hosts, c.Gbps)
	fmt.Fprintf(&b, "switch: {pfc: \"off\", buffer_mb: %g}\nhost: {payload_bytes: 1024}\n", c.BufferMB)
	b.WriteString("workload:\n  flows:\n")
	flow := func(src, dst int) {
		fmt.Fprintf(&b, "    - {src: %d, dst: %d, size_bytes: 1000000000000, start_ns: %d}\n", src, dst, int64(r.Float64()*c.StaggerUs*1000))
	}
	if !s.ManyToMany {
		for i := range s.N {
			flow(1+i%(c.Hosts-1), 0)
		}
		return b.String()
	}
	for h := range c.Hosts {
		for range s.N {
			flow(h, (h+1+r.IntN(c.Hosts-1))%c.Hosts)
		}
	}
	return b.String()
}

// Parse returns case s's scenario for seed.
func (c *Config) Parse(s Scenario, seed uint64) (*scenario.Scenario, error) {
	sc, err := scenario.Parse([]byte(c.YAML(s, seed)))
	if err != nil {
		return nil, fmt.Errorf("decc: training scenario %s: %w", s, err)
	}
	return sc, nil
}
