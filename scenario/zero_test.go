package scenario_test

import (
	"strings"
	"testing"

	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/scenario/assemble"
	"github.com/ccsim/ccsim/sim"
	"github.com/ccsim/ccsim/topo"
)

// An explicit 0 is a value, not "absent": it is kept where the documented
// range allows it and rejected, naming the field and range, where not.
func TestExplicitZeroIsNotTheDefault(t *testing.T) {
	const flows = "workload: {flows: [{src: 0, dst: 1, size_bytes: 1}]}\n"
	// Allowed zeros are kept.
	s := mustParse(t, "seed: 0\ntopology: {hosts: 3, link_delay_ns: 0}\n"+flows)
	if s.Seed != 0 || s.Topology.LinkDelayNs != 0 {
		t.Errorf("seed %d, link_delay_ns %v; want 0, 0", s.Seed, s.Topology.LinkDelayNs)
	}
	if c := assemble.FabricConfig(s); c.Seed != 0 {
		t.Errorf("fabric seed %d, want 0", c.Seed)
	}
	g, err := assemble.Graph(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range g.Links {
		if l.Delay != 0 {
			t.Errorf("link %d-%d delay %v, want 0", l.A, l.B, l.Delay)
		}
	}
	// fabric_delay_ns: 0 gives zero-delay switch links (absent: link_delay_ns).
	for _, c := range []struct {
		extra  string
		fabric sim.Time
	}{{"", 1000 * sim.Nanosecond}, {", fabric_delay_ns: 0", 0}} {
		s = mustParse(t, "topology: {kind: leaf_spine, spines: 1, leaves: 2, hosts_per_leaf: 1"+c.extra+"}\n"+flows)
		g, err := assemble.Graph(s)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range g.Links {
			want := 1000 * sim.Nanosecond
			if g.Kinds[l.A] == topo.Switch && g.Kinds[l.B] == topo.Switch {
				want = c.fabric
			}
			if l.Delay != want {
				t.Errorf("%q: link %d-%d delay %v, want %v", c.extra, l.A, l.B, l.Delay, want)
			}
		}
	}
	// Absent and null take the defaults.
	s = mustParse(t, "seed: ~\nstop_ms: null\ntopology: {hosts: 3}\n"+flows)
	if s.Seed != scenario.DefaultSeed || s.StopMs != scenario.DefaultStopMs || s.Topology.LinkGbps != 100 || s.Topology.LinkDelayNs != 1000 {
		t.Errorf("defaults not applied: %+v", s)
	}
	// Zeros outside the range are errors naming the field and the range.
	for _, c := range []struct{ src, want string }{
		{"stop_ms: 0\ntopology: {hosts: 3}\n" + flows, "stop_ms = 0 out of range [1e-06, 1e+06]"},
		{"topology: {hosts: 3, link_gbps: 0}\n" + flows, "topology.link_gbps = 0 out of range [0.001, 10000]"},
		{"topology: {kind: leaf_spine, spines: 1, leaves: 2, hosts_per_leaf: 1, fabric_gbps: 0}\n" + flows, "topology.fabric_gbps = 0 out of range [0.001, 10000]"},
		{"topology: {kind: fat_tree, k: 4, hosts_per_edge: 0}\n" + flows, "topology.hosts_per_edge = 0 out of range [1, 512]"},
		{"topology: {hosts: 3, host_links: [{hosts: [1], gbps: 0}]}\n" + flows, "topology.host_links[0].gbps = 0 out of range [0.001, 10000]"},
		{"topology: {hosts: 3}\nswitch: {buffer_mib: 0}\n" + flows, "switch.buffer_mib = 0 out of range"},
		{"topology: {hosts: 3}\nswitch: {pfc_static_kb: 0}\n" + flows, "switch.pfc_static_kb = 0 out of range"},
		{"topology: {hosts: 3}\nswitch: {pfc: \"\"}\n" + flows, `switch.pfc = ""`},
		{"topology: {kind: \"\", hosts: 3}\n" + flows, `topology.kind = ""`},
		{"topology: {hosts: 3}\nhost: {payload_bytes: 0}\n" + flows, "host.payload_bytes = 0 out of range [64, 9000]"},
		{"cc: []\ntopology: {hosts: 3}\n" + flows, "cc: at least one algorithm"},
		{"topology: {hosts: 3}\nworkload: {flows: [{src: 0, dst: 1, size_bytes: 1, prio: 0}]}\n", "workload.flows[0].prio = 0 out of range [1, 7]"},
		{"topology: {hosts: 3}\nworkload: {incast: {senders: [0], receiver: 1, sizes_bytes: [5], prio: 0}}\n", "workload.incast.prio = 0 out of range [1, 7]"},
		{"topology: {hosts: 3}\nworkload: {incast: {senders: [0], receiver: 1, sizes_bytes: [5], qps_per_sender: 0}}\n", "workload.incast.qps_per_sender = 0 out of range [1, 4096]"},
		{"topology: {hosts: 3}\nworkload: {poisson: {cdf: websearch, load: 0.1, duration_ms: 1, prio: 0}}\n", "workload.poisson.prio = 0 out of range [1, 7]"},
		{"topology: {hosts: 3}\nworkload: {many_to_many: {senders: [0], receivers: [1], size_bytes: 5, count: 1, per_sender: 0}}\n", "workload.many_to_many.per_sender = 0 out of range"},
	} {
		_, err := scenario.Parse([]byte(c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.src, err, c.want)
		}
	}
}
