package assemble_test

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/scenario/assemble"
	"github.com/ccsim/ccsim/sim"
	"github.com/ccsim/ccsim/topo"
)

// errorsOf returns the messages of err (one per scenario.Errors entry).
func errorsOf(err error) []string {
	if err == nil {
		return nil
	}
	var errs scenario.Errors
	if errors.As(err, &errs) {
		var out []string
		for _, e := range errs {
			out = append(out, e.Error())
		}
		return out
	}
	return []string{err.Error()}
}

// wantErr fails unless some message of err contains every part of want.
func wantErr(t *testing.T, err error, want ...string) {
	t.Helper()
	for _, m := range errorsOf(err) {
		if containsAll(m, want) {
			return
		}
	}
	t.Errorf("no error contains all of %q; got:\n%v", want, err)
}

// checkDoc writes src to a file and checks it as `ccsim validate` does.
func checkDoc(t *testing.T, src string) (*scenario.Scenario, error) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return assemble.Check(p, nil)
}

// reparse parses a resolved scenario. It drops "hosts_per_edge: 0", which
// Resolved writes for every topology kind but Parse rejects when given (a
// limitation of Resolved that predates these tests).
func reparse(res []byte) (*scenario.Scenario, error) {
	return scenario.Parse(res)
}

const testbedYAML = `
name: t4
stop_ms: 5
topology: {kind: dcon_testbed, host_links: [{hosts: [R1], delay_ns: 5000}]}
workload:
  flows:
    - {src: H0, dst: R0, size_bytes: 100000, via: S1}
    - {src: 1, dst: R1, size_bytes: 100000, via: 22}
    - {src: H15, dst: R1, size_bytes: 100000}
  incast: {senders: [H8, H9], receiver: R0, sizes_bytes: [50000], via: S0}
  long_short: {long_senders: [H2], long_receivers: [R0], long_size_bytes: 100000, long_via: S1,
               short_senders: [H3, H10], receiver: R1, short_count: 2, short_min_bytes: 1000, short_max_bytes: 1000, interval_us: 10}
outputs:
  queue_sample_us: 1
  queue_ports: [{node: L2, port: 1}, {node: S1, port: 2}]
  series: {bin_us: 100, queue_ports: [{node: L2, port: 3}], link_ports: [{node: S0, port: 2}]}
`

// TestDCONTestbedScenario: kind dcon_testbed builds T4 with its 40 Gb/s,
// 5 µs links; node names resolve to the documented ids in every field that
// takes a node; the resolved scenario writes ids and parses back to the
// same scenario.
func TestDCONTestbedScenario(t *testing.T) {
	s, err := checkDoc(t, testbedYAML)
	if err != nil {
		t.Fatal(err)
	}
	tp := s.Topology
	if tp.LinkGbps != 40 || tp.LinkDelayNs != 5000 {
		t.Errorf("links %v Gb/s %v ns, want the testbed's 40, 5000", tp.LinkGbps, tp.LinkDelayNs)
	}
	w := s.Workload
	f := w.Flows
	if f[0].Src != 0 || f[0].Dst != 16 || *f[0].Via != 22 || f[1].Src != 1 || f[1].Dst != 17 || *f[1].Via != 22 || f[2].Src != 15 || f[2].Via != nil {
		t.Errorf("flows %+v", f)
	}
	if !reflect.DeepEqual(w.Incast.Senders, []scenario.NodeID{8, 9}) || w.Incast.Receiver != 16 || *w.Incast.Via != 21 {
		t.Errorf("incast %+v", w.Incast)
	}
	ls := w.LongShort
	if !reflect.DeepEqual(ls.LongSenders, []scenario.NodeID{2}) || ls.Receiver != 17 || *ls.LongVia != 22 || !reflect.DeepEqual(ls.ShortSenders, []scenario.NodeID{3, 10}) {
		t.Errorf("long_short %+v", ls)
	}
	if !reflect.DeepEqual(s.Outputs.QueuePorts, []scenario.Port{{Node: 20, Port: 1}, {Node: 22, Port: 2}}) ||
		!reflect.DeepEqual(s.Outputs.Series.QueuePorts, []scenario.Port{{Node: 20, Port: 3}}) ||
		!reflect.DeepEqual(s.Outputs.Series.LinkPorts, []scenario.Port{{Node: 21, Port: 2}}) {
		t.Errorf("ports %+v %+v", s.Outputs.QueuePorts, s.Outputs.Series)
	}
	if !reflect.DeepEqual(s.Topology.HostLinks[0].Hosts, []scenario.NodeID{17}) {
		t.Errorf("host_links %+v", s.Topology.HostLinks)
	}
	g, err := assemble.Graph(s)
	if err != nil {
		t.Fatal(err)
	}
	want, _, _ := topo.DCONTestbed(topo.DefaultDCONTestbedParams())
	if !reflect.DeepEqual(g, want) {
		t.Errorf("graph differs from topo.DCONTestbed")
	}
	flows, err := assemble.Flows(s, g)
	if err != nil {
		t.Fatal(err)
	}
	pinned := 0
	for _, fl := range flows {
		if fl.HasVia {
			pinned++
			if !(fl.Via == 22 && (fl.Src <= 2) || fl.Via == 21 && (fl.Src == 8 || fl.Src == 9)) {
				t.Errorf("pinned flow %+v", fl)
			}
		}
	}
	if len(flows) != 3+2+1+4 || pinned != 5 {
		t.Errorf("%d flows, %d pinned; want 10, 5", len(flows), pinned)
	}
	res, err := s.Resolved("dcqcn")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"H0", "R1", "S1", "L2"} {
		if strings.Contains(string(res), name+"\n") || strings.Contains(string(res), " "+name+",") {
			t.Errorf("resolved scenario still names %s:\n%s", name, res)
		}
	}
	s2, err := reparse(res)
	if err != nil {
		t.Fatalf("resolved scenario: %v\n%s", err, res)
	}
	if !reflect.DeepEqual(s2.Workload, s.Workload) || !reflect.DeepEqual(s2.Outputs.QueuePorts, s.Outputs.QueuePorts) ||
		!reflect.DeepEqual(s2.Outputs.Series, s.Outputs.Series) || !reflect.DeepEqual(s2.Topology, s.Topology) {
		t.Errorf("resolved scenario parses to another scenario:\n%s", res)
	}
	// a run: the pinned flows cross S1 (S1's port to L2 carries f0, f1 and
	// the long flow), the incast crosses S0
	b, err := assemble.Build(s, "dcqcn", assemble.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := b.Run()
	if r.Summary.Finished != len(flows) {
		t.Fatalf("%d of %d flows finished", r.Summary.Finished, len(flows))
	}
	n := b.Net
	ids := topo.DCONTestbedNodes()
	p0s1 := n.Nodes[ids.P0S1.Node].FirstPort + int32(ids.P0S1.Port)
	p0s0 := n.Nodes[ids.S[0]].FirstPort + 2
	if got := n.Ports[p0s1].Stats.TxPayloadBytes; got < 300_000 {
		t.Errorf("S1 → L2 carried %d payload bytes, want at least the 300,000 of the three pinned flows", got)
	}
	if got := n.Ports[p0s0].Stats.TxPayloadBytes; got < 100_000 {
		t.Errorf("S0 → L2 carried %d payload bytes, want at least the 100,000 of the pinned incast", got)
	}
}

func TestNodeNameErrors(t *testing.T) {
	base := "topology: {kind: dcon_testbed}\n"
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"unknown name", base + "workload: {flows: [{src: X9, dst: R1, size_bytes: 1}]}\n",
			[]string{`workload.flows[0].src = "X9": not a node of topology.kind dcon_testbed (names: H0..H15, R0, R1, L0..L2, S0, S1)`}},
		{"name of another topology", "topology: {kind: star, hosts: 4}\nworkload: {flows: [{src: H0, dst: 1, size_bytes: 1}]}\n",
			[]string{`workload.flows[0].src = "H0"`, "topology.kind star has no node names; give a node id"}},
		{"name in outputs on star", "topology: {kind: star, hosts: 4}\nworkload: {flows: [{src: 0, dst: 1, size_bytes: 1}]}\noutputs: {queue_sample_us: 1, queue_ports: [{node: L2, port: 0}]}\n",
			[]string{`outputs.queue_ports[0].node = "L2"`, "has no node names"}},
		{"name in host_links on star", "topology: {kind: star, hosts: 4, host_links: [{hosts: [R0], gbps: 1}]}\nworkload: {flows: [{src: 0, dst: 1, size_bytes: 1}]}\n",
			[]string{`topology.host_links[0].hosts[0] = "R0"`, "has no node names"}},
		{"quoted id", base + "workload: {flows: [{src: \"3\", dst: R1, size_bytes: 1}]}\n",
			[]string{`node "3": not a node id`}},
		{"huge negative id", base + "workload: {flows: [{src: -2000000, dst: R1, size_bytes: 1}]}\n",
			[]string{"node id -2000000 out of range"}},
		{"negative id", base + "workload: {flows: [{src: -1, dst: R1, size_bytes: 1}]}\n",
			[]string{"workload.flows[0].src = -1 out of range"}},
		{"list entry", base + "workload: {incast: {senders: [H1, Q], receiver: R0, sizes_bytes: [1]}}\n",
			[]string{`workload.incast.senders[1] = "Q": not a node of topology.kind dcon_testbed`}},
		{"no secondary errors", base + "workload: {flows: [{src: [1], dst: X, size_bytes: 1}]}\noutputs: {series: {bin_us: 1, queue_ports: [{node: Y, port: 0}]}}\n",
			[]string{"line 2: workload.flows[0].src is a list: want a whole number"}},
		{"fixed shape", "topology: {kind: dcon_testbed, spines: 4}\nworkload: {flows: [{src: 0, dst: 1, size_bytes: 1}]}\n",
			[]string{"topology.spines = 4: kind dcon_testbed has a fixed shape"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := checkDoc(t, tc.src)
			if err == nil {
				t.Fatalf("accepted:\n%s", tc.src)
			}
			wantErr(t, err, tc.want...)
			for _, m := range errorsOf(err) {
				if strings.Contains(m, "-1048") || strings.Contains(m, "src and dst") || strings.Contains(m, "not a host") {
					t.Errorf("an error shows a name's placeholder value: %s", m)
				}
			}
		})
	}
	// names resolve on the testbed whether or not other kinds have them
	if _, err := scenario.Parse([]byte(base + "workload: {flows: [{src: H7, dst: R1, size_bytes: 1}]}\n")); err != nil {
		t.Error(err)
	}
}

func TestRoutePinningErrors(t *testing.T) {
	head := "topology: {kind: dcon_testbed}\n"
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"detour", head + "workload: {flows: [{src: H0, dst: R0, size_bytes: 1000, via: L1}]}\n",
			[]string{"workload.flows[0].via = 19: cannot pin the flow 0 → 16 through it", "not on a shortest path", "6 hops through it, 4 on a shortest path"}},
		{"host", head + "workload: {flows: [{src: H0, dst: R0, size_bytes: 1000, via: H3}]}\n",
			[]string{"workload.flows[0].via = 3", "node 3 is a host, not a switch"}},
		{"no such node", head + "workload: {flows: [{src: H0, dst: R0, size_bytes: 1000, via: 40}]}\n",
			[]string{"workload.flows[0].via = 40", "node 40 does not exist"}},
		{"same leaf", head + "workload: {flows: [{src: H0, dst: H1, size_bytes: 1000, via: S1}]}\n",
			[]string{"workload.flows[0].via = 22", "not on a shortest path from host 0 to host 1"}},
		{"incast", head + "workload: {incast: {senders: [H0, H9], receiver: H10, sizes_bytes: [1000], via: S0}}\n",
			[]string{"workload.incast.via = 21: cannot pin the flow 9 → 10"}},
		{"long_short", head + "workload: {long_short: {long_senders: [H0, H1], long_receivers: [R0, H2], long_size_bytes: 1000, long_via: S0}}\n",
			[]string{"workload.long_short.long_via = 21: cannot pin the flow 1 → 2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := checkDoc(t, tc.src)
			if err == nil {
				t.Fatalf("accepted:\n%s", tc.src)
			}
			wantErr(t, err, tc.want...)
		})
	}
}

const t5Topology = "topology: {kind: leaf_spine, spines: 8, leaves: 10, hosts_per_leaf: 24, link_gbps: 40, link_delay_ns: 5000}\n"

// TestPoissonCoreLoad: core_load 0.8 on T5 is the per-host load
// 0.8 · 8 / (24 · 216/239) ≈ 0.295 (the same flows as load: that), and
// the option's misuses are errors naming the fields.
func TestPoissonCoreLoad(t *testing.T) {
	s, err := scenario.Parse([]byte(t5Topology + "workload: {poisson: {cdf: websearch, core_load: 0.8, duration_ms: 2}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	hostLoad := 0.8 * 8 / (24 * 216.0 / 239.0)
	if math.Abs(hostLoad-0.29506172839506173) > 1e-15 {
		t.Fatalf("host load %v", hostLoad)
	}
	ref, err := scenario.Parse([]byte(t5Topology + "workload: {poisson: {cdf: websearch, load: 0.29506172839506173, duration_ms: 2}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	g, err := assemble.Graph(s)
	if err != nil {
		t.Fatal(err)
	}
	got, err := assemble.Flows(s, g)
	if err != nil {
		t.Fatal(err)
	}
	want, err := assemble.Flows(ref, g)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) < 100 || !reflect.DeepEqual(got, want) {
		t.Errorf("core_load 0.8: %d flows; load 0.29506: %d flows; want the same flows", len(got), len(want))
	}
	// the resolved scenario keeps core_load and omits load
	res, err := s.Resolved("dcqcn")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(res), "core_load: 0.8") || strings.Contains(string(res), "load: 0\n") {
		t.Errorf("resolved:\n%s", res)
	}
	if _, err := reparse(res); err != nil {
		t.Errorf("resolved scenario: %v", err)
	}

	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"both", t5Topology + "workload: {poisson: {cdf: websearch, load: 0.3, core_load: 0.8, duration_ms: 1}}\n",
			[]string{"workload.poisson.load and workload.poisson.core_load both given"}},
		{"both, load 0", t5Topology + "workload: {poisson: {cdf: websearch, load: 0, core_load: 0.8, duration_ms: 1}}\n",
			[]string{"workload.poisson.load and workload.poisson.core_load both given"}},
		{"neither", t5Topology + "workload: {poisson: {cdf: websearch, duration_ms: 1}}\n",
			[]string{"workload.poisson.load is required", "or workload.poisson.core_load"}},
		{"load 0", t5Topology + "workload: {poisson: {cdf: websearch, load: 0, duration_ms: 1}}\n",
			[]string{"workload.poisson.load = 0 out of range"}},
		{"range", t5Topology + "workload: {poisson: {cdf: websearch, core_load: 1.5, duration_ms: 1}}\n",
			[]string{"workload.poisson.core_load = 1.5 out of range"}},
		{"star", "topology: {kind: star, hosts: 4}\nworkload: {poisson: {cdf: websearch, core_load: 0.5, duration_ms: 1}}\n",
			[]string{"workload.poisson.core_load needs topology.kind leaf_spine", "not star"}},
		{"testbed", "topology: {kind: dcon_testbed}\nworkload: {poisson: {cdf: websearch, core_load: 0.5, duration_ms: 1}}\n",
			[]string{"workload.poisson.core_load needs topology.kind leaf_spine", "not dcon_testbed"}},
		{"hosts", t5Topology + "workload: {poisson: {cdf: websearch, core_load: 0.5, duration_ms: 1, hosts: [0, 1]}}\n",
			[]string{"workload.poisson.core_load assumes every host", "workload.poisson.hosts"}},
		{"host links", "topology: {kind: leaf_spine, spines: 2, leaves: 2, hosts_per_leaf: 2, host_links: [{hosts: [0], gbps: 10}]}\nworkload: {poisson: {cdf: websearch, core_load: 0.5, duration_ms: 1}}\n",
			[]string{"workload.poisson.core_load assumes equal host links", "topology.host_links[0].gbps"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := scenario.Parse([]byte(tc.src))
			if err == nil {
				t.Fatalf("accepted:\n%s", tc.src)
			}
			wantErr(t, err, tc.want...)
		})
	}
	// per-host load above 1: reported when the workload is built
	_, err = checkDoc(t, "topology: {kind: leaf_spine, spines: 8, leaves: 2, hosts_per_leaf: 1}\nworkload: {poisson: {cdf: websearch, core_load: 0.5, duration_ms: 1}}\n")
	wantErr(t, err, "workload.poisson.core_load = 0.5 needs a per-host load of 4 > 1")
	_, err = checkDoc(t, "topology: {kind: leaf_spine, spines: 8, leaves: 1, hosts_per_leaf: 4}\nworkload: {poisson: {cdf: websearch, core_load: 0.5, duration_ms: 1}}\n")
	wantErr(t, err, "workload.poisson.core_load", "leaves = 1")
}

// TestPoissonFlowCountsE3: nothing caps a Poisson workload at the E3
// scale (T5, ≥ 10,000 flows per load point) with either CDF.
func TestPoissonFlowCountsE3(t *testing.T) {
	if testing.Short() {
		t.Skip("generates ~10^4 flows")
	}
	for _, tc := range []struct {
		cdf string
		ms  float64
	}{{"websearch", 50}, {"datamining", 400}} {
		s, err := scenario.Parse([]byte(t5Topology + "workload: {poisson: {cdf: " + tc.cdf + ", core_load: 0.8, duration_ms: " + strconv.FormatFloat(tc.ms, 'f', -1, 64) + "}}\n"))
		if err != nil {
			t.Fatal(err)
		}
		g, _ := assemble.Graph(s)
		flows, err := assemble.Flows(s, g)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s, core load 0.8, %v ms: %d flows", tc.cdf, tc.ms, len(flows))
		if len(flows) < 10_000 {
			t.Errorf("%s, core load 0.8, %v ms: %d flows, want ≥ 10,000", tc.cdf, tc.ms, len(flows))
		}
		if last := flows[len(flows)-1].Start; last > sim.Time(tc.ms*float64(sim.Millisecond)) {
			t.Errorf("%s: a flow starts at %v, after the window", tc.cdf, last)
		}
	}
}

// TestBufferMB: switch.buffer_mb gives the buffer in decimal MB, exactly
// (22 MB = 22,000,000 B), instead of buffer_mib.
func TestBufferMB(t *testing.T) {
	s, err := scenario.Parse([]byte("topology: {kind: dcon_testbed}\nswitch: {buffer_mb: 22, pfc: static, pfc_static_kb: 320}\nworkload: {flows: [{src: 0, dst: 16, size_bytes: 1}]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	c := assemble.FabricConfig(s)
	if c.BufferBytes != 22_000_000 || c.PFCStaticBytes != 320_000 {
		t.Errorf("buffer %d B, PFC %d B; want 22,000,000 and 320,000", c.BufferBytes, c.PFCStaticBytes)
	}
	if s.Switch.BufferMiB != 0 {
		t.Errorf("buffer_mib = %v with buffer_mb", s.Switch.BufferMiB)
	}
	// the headroom of T4's largest switch (10 ports × 3 × 25 KB) fits
	if err := assemble.CheckScenario(s); err != nil {
		t.Error(err)
	}
	res, _ := s.Resolved("dcqcn")
	if !strings.Contains(string(res), "buffer_mb: 22") || strings.Contains(string(res), "buffer_mib") {
		t.Errorf("resolved:\n%s", res)
	}
	if s2, err := reparse(res); err != nil || assemble.FabricConfig(s2).BufferBytes != 22_000_000 {
		t.Errorf("resolved scenario: %v", err)
	}
	_, err = scenario.Parse([]byte("topology: {kind: star, hosts: 2}\nswitch: {buffer_mb: 22, buffer_mib: 21}\nworkload: {flows: [{src: 0, dst: 1, size_bytes: 1}]}\n"))
	wantErr(t, err, "switch.buffer_mb and switch.buffer_mib both given")
	_, err = scenario.Parse([]byte("topology: {kind: star, hosts: 2}\nswitch: {buffer_mb: 0.01}\nworkload: {flows: [{src: 0, dst: 1, size_bytes: 1}]}\n"))
	wantErr(t, err, "switch.buffer_mb = 0.01 out of range")
	_, err = checkDoc(t, "topology: {kind: star, hosts: 3, link_delay_ns: 10000000}\nswitch: {buffer_mb: 1}\nworkload: {flows: [{src: 0, dst: 1, size_bytes: 1000}]}\n")
	wantErr(t, err, "switch.buffer_mb = 1 (1000000 B) is too small for PFC", "raise switch.buffer_mb")
}

// TestDCONBurstScenario: the checked-in E0 scenario validates as `ccsim
// validate` checks it, with f0, f1 pinned via S1 and the 14 × 35 burst.
func TestDCONBurstScenario(t *testing.T) {
	s, err := assemble.Check("../../scenarios/behaviour/dcon-testbed-burst.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	g, err := assemble.Graph(s)
	if err != nil {
		t.Fatal(err)
	}
	flows, err := assemble.Flows(s, g)
	if err != nil {
		t.Fatal(err)
	}
	if len(flows) != 2+14*35 {
		t.Fatalf("%d flows, want 492", len(flows))
	}
	var pinned, short int
	for _, f := range flows {
		switch {
		case f.HasVia:
			pinned++
			if f.Via != 22 || f.SizeBytes != 200e6 || f.Dst != 16+f.Src {
				t.Errorf("long flow %+v", f)
			}
		default:
			short++
			if f.Dst != 17 || f.SizeBytes != 64_000 || f.Src < 2 || f.Src > 15 || f.Start < 10*sim.Millisecond || f.Start >= 18*sim.Millisecond {
				t.Errorf("short flow %+v", f)
			}
		}
	}
	if pinned != 2 || short != 490 {
		t.Errorf("%d pinned, %d short", pinned, short)
	}
	c := assemble.FabricConfig(s)
	if c.BufferBytes != 22e6 || c.PFCStaticBytes != 320e3 {
		t.Errorf("buffer %d, PFC %d", c.BufferBytes, c.PFCStaticBytes)
	}
}
