package env

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/scenario"
)

// starYAML is a star of hosts hosts at gbps with flows flows (flow i from
// host i mod hosts to host (i + 1 + i/hosts) mod hosts, size bytes, all at
// t = 0), stop after stopUs µs, the agent's parameters given by params
// (YAML flow mapping, "" = defaults).
func starYAML(hosts, flows int, gbps float64, size int64, stopUs float64, params string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "name: envtest\nseed: 1\nstop_ms: %g\ncc: [agent]\n", stopUs/1000)
	if params != "" {
		fmt.Fprintf(&b, "params:\n  agent: %s\n", params)
	}
	fmt.Fprintf(&b, "topology: {kind: star, hosts: %d, link_gbps: %g, link_delay_ns: 1000}\n", hosts, gbps)
	b.WriteString("workload:\n  flows:\n")
	for i := range flows {
		src := i % hosts
		dst := (src + 1 + i/hosts) % hosts
		fmt.Fprintf(&b, "    - {src: %d, dst: %d, size_bytes: %d, start_ns: 0}\n", src, dst, size)
	}
	return b.String()
}

func mustScenario(t testing.TB, yaml string) *scenario.Scenario {
	t.Helper()
	s, err := scenario.Parse([]byte(yaml))
	if err != nil {
		t.Fatalf("scenario: %v\n%s", err, yaml)
	}
	return s
}

func mustEnv(t testing.TB, cfg Config) *Env {
	t.Helper()
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return e
}
