package scenario_test

import (
	"errors"
	"testing"

	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/scenario/assemble"
)

// incastYAML seeds the fuzzer with the end-to-end scenario of the
// assemble tests: a star of 5 hosts, hosts 0-3 each send 200 KB to host 4.
const incastYAML = `
name: e2e-incast4
stop_ms: 100
cc: [dcqcn]
topology: {kind: star, hosts: 5, link_gbps: 100, link_delay_ns: 1000}
workload:
  incast:
    senders: [0, 1, 2, 3]
    receiver: 4
    sizes_bytes: [200000]
`

// FuzzParse checks that Parse never panics, that every error it reports is
// well formed, and that an accepted scenario re-validates and builds (for
// star topologies small enough to build quickly) without panicking.
//
//	go test ./scenario -run XXX -fuzz FuzzParse -fuzztime 60s
func FuzzParse(f *testing.F) {
	f.Add(scenario.DefaultYAML())
	f.Add([]byte(incastYAML))
	f.Add([]byte(doc(nil, "")))
	for _, tc := range badCases {
		f.Add([]byte(doc(tc.set, tc.extra)))
	}
	for _, s := range []string{
		"", "null", "topology: [", "- 1\n- 2\n",
		"cc: [dcqcn, dcqcn_paper, none]\nparams: {dcqcn: {mode: canonical, byte_counter_bytes: 1000}, none: {}}\ntopology: {hosts: 3}\nworkload: {flows: [{src: 0, dst: 2, size_bytes: 10}]}\n",
		"topology: {hosts: 3}\nworkload: {kind: flows, flows: [{src: 0, dst: 1, size_bytes: 1}], incast: {senders: [1], receiver: 2, sizes_bytes: [1]}}\n",
		"topology: {hosts: 3}\nswitch: {pfc: static, ecn: true, ecn_rules: [{link_gbps: 100, kmin_kb: 1, kmax_kb: 1, pmax: 0}]}\nworkload: {flows: [{src: 0, dst: 1, size_bytes: 1}]}\noutputs: {ref_pfc: true, queue_sample_us: 1, queue_ports: [{node: 3, port: 0}]}\n",
		"a: &a [1, 2]\nb: *a\n",
		"topology: {kind: dcon_testbed}\nswitch: {buffer_mb: 22}\nworkload: {flows: [{src: H0, dst: R0, size_bytes: 1, via: S1}], incast: {senders: [H1], receiver: R1, sizes_bytes: [1], via: 21}}\noutputs: {queue_sample_us: 1, queue_ports: [{node: L2, port: 1}]}\n",
		"topology: {kind: star, hosts: 3}\nworkload: {flows: [{src: R1, dst: 1, size_bytes: 1, via: 3}]}\n",
		"topology: {kind: leaf_spine, spines: 2, leaves: 2, hosts_per_leaf: 2}\nworkload: {poisson: {cdf: websearch, core_load: 0.5, duration_ms: 1}}\n",
		"topology: {kind: star, hosts: 4}\nworkload: {cross_dc: {load: 0.5, incast_fanin: 2, incast_events: 1, duration_ms: 0.01, domain_a: [0, 1], domain_b: [2, 3], longhaul_gbps: 100, longhaul_delay_us: 1}}\n",
		"topology: {kind: star, hosts: 3}\nworkload: {perftest: {duration_ms: 0.01, msg_size_bytes: 1000, tx_depth: 2, senders: [0, 1], receiver: 2, probe_gap_us: 1}, flows: [{src: 0, dst: 1, size_bytes: 1}, {src: 1, dst: 0, size_bytes: 1, after: 0, gap_ns: 5}]}\n",
	} {
		f.Add([]byte(s))
	}

	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := scenario.Parse(data)
		// Parse is deterministic, errors included (their order too).
		if _, err2 := scenario.Parse(data); (err == nil) != (err2 == nil) || (err != nil && err.Error() != err2.Error()) {
			t.Fatalf("Parse not deterministic: %v / %v", err, err2)
		}
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error message")
			}
			var errs scenario.Errors
			if errors.As(err, &errs) {
				if len(errs) == 0 {
					t.Fatal("empty scenario.Errors returned as an error")
				}
				for i, e := range errs {
					if e == nil || e.Error() == "" {
						t.Fatalf("Errors[%d] is nil or empty: %q", i, errs)
					}
				}
				if s == nil {
					t.Fatal("validation errors without the scenario")
				}
			}
			return
		}
		if s == nil {
			t.Fatal("nil scenario without an error")
		}
		// An accepted scenario re-validates as it is.
		if _, err := s.WithCC(s.CC); err != nil {
			t.Fatalf("accepted scenario fails re-validation: %v", err)
		}
		for _, name := range s.CC {
			if s.ParamsOf(name) == nil {
				t.Fatalf("no validated parameters for %q", name)
			}
		}
		// Its fabric configuration is one the fabric accepts.
		c := assemble.FabricConfig(s)
		if err := c.Validate(); err != nil {
			t.Fatalf("accepted scenario gives an invalid fabric config: %v", err)
		}
		// Build (without running) small star scenarios: errors are allowed
		// (e.g. a flow to a host the topology lacks), panics are not.
		w := s.Workload
		if s.Topology.Kind != "star" || s.Topology.Hosts > 64 || len(w.Flows) > 256 ||
			(w.Incast != nil && len(w.Incast.Senders) > 256) || len(s.Outputs.QueuePorts) > 256 {
			return
		}
		// Check builds everything; it must not panic either.
		_ = assemble.CheckScenario(s)
		for _, name := range s.CC {
			b, err := assemble.Build(s, name, assemble.Options{})
			if err != nil {
				continue
			}
			if b.CC != name || b.Net == nil || b.Graph == nil {
				t.Fatalf("Build(%q) = %+v", name, b)
			}
			if w.Kind == "flows" && len(b.Flows) != len(w.Flows) {
				t.Fatalf("built %d flows from %d", len(b.Flows), len(w.Flows))
			}
		}
	})
}
