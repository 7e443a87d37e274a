package scenario_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/sim"
)

// DecodeFile decodes without validating; Validate then reports every field
// error and the missing files, and Sound which sections passed.
func TestDecodeFileValidateSound(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "s.yaml")
	src := "nosuch: 1\ntopology: {hosts: 3}\nhost: {payload_bytes: 1}\nworkload: {kind: ns3, file: missing.txt}\n"
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s, errs, err := scenario.DecodeFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "field nosuch not found") {
		t.Errorf("decoding errors %v, want the unknown field only", errs)
	}
	if got := s.Resolve("missing.txt"); got != filepath.Join(dir, "missing.txt") {
		t.Errorf("Resolve = %q: relative paths resolve against the file's directory", got)
	}
	verrs := s.Validate()
	var msgs []string
	for _, e := range verrs {
		msgs = append(msgs, e.Error())
	}
	if len(msgs) != 2 || !strings.Contains(msgs[0], "host.payload_bytes = 1 out of range") || !strings.Contains(msgs[1], "workload.file:") {
		t.Errorf("Validate = %q, want the payload range, then the missing workload file", msgs)
	}
	want := scenario.Soundness{Topology: true, Fabric: false, Workload: false, Outputs: true}
	if got := s.Sound(); got != want {
		t.Errorf("Sound = %+v, want %+v", got, want)
	}
	// Fixing the fields makes every section sound again.
	s.Host.PayloadBytes = 1000
	s.Workload = scenario.Workload{Kind: "flows", Flows: []scenario.FlowSpec{{Src: 0, Dst: 1, SizeBytes: 1, Prio: 3}}}
	if errs := s.Validate(); errs != nil {
		t.Errorf("Validate after the fix: %v", errs)
	}
	if got := s.Sound(); got != (scenario.Soundness{Topology: true, Fabric: true, Workload: true, Outputs: true}) {
		t.Errorf("Sound after the fix = %+v", got)
	}
	if _, _, err := scenario.DecodeFile(filepath.Join(dir, "nope.yaml")); err == nil {
		t.Error("DecodeFile of a missing file succeeded")
	}
}

// AppendError flattens nested Errors into one entry per problem.
func TestAppendError(t *testing.T) {
	a, b, c := errors.New("a"), errors.New("b"), errors.New("c")
	got := scenario.AppendError(scenario.Errors{a}, scenario.Errors{b, scenario.Errors{c}})
	if len(got) != 3 || got[0] != a || got[1] != b || got[2] != c {
		t.Errorf("AppendError = %v, want [a b c]", got)
	}
	if got := scenario.AppendError(nil, a); len(got) != 1 || got[0] != a {
		t.Errorf("AppendError(nil, a) = %v", got)
	}
	if got.Error() != "a\nb\nc" {
		t.Errorf("Errors.Error = %q, one per line", got.Error())
	}
}

// The unit conversions round to the nearest picosecond; IDs converts node
// ids; a node name left unresolved is reported as such.
func TestConversions(t *testing.T) {
	if scenario.NsTime(1.5) != 1500*sim.Picosecond || scenario.NsTime(0.0004) != 0 || scenario.NsTime(0.0006) != sim.Picosecond {
		t.Errorf("NsTime: %v %v %v", scenario.NsTime(1.5), scenario.NsTime(0.0004), scenario.NsTime(0.0006))
	}
	if scenario.UsTime(2) != 2*sim.Microsecond || scenario.MsTime(0.5) != 500*sim.Microsecond {
		t.Errorf("UsTime(2) = %v, MsTime(0.5) = %v", scenario.UsTime(2), scenario.MsTime(0.5))
	}
	if got := scenario.IDs([]scenario.NodeID{3, 1}); !slices.Equal(got, []int{3, 1}) {
		t.Errorf("IDs = %v", got)
	}
	if scenario.IDs(nil) != nil {
		t.Error("IDs(nil) is not nil")
	}
	if scenario.NodeID(0).Unresolved() || scenario.NodeID(7).Unresolved() {
		t.Error("an id is reported unresolved")
	}
}

// Topology.Generate builds the kinds given by parameters (not ns3); the
// perftest end, the series switch and the generator test follow the
// sections.
func TestSectionHelpers(t *testing.T) {
	s := mustParse(t, `
topology: {kind: leaf_spine, spines: 2, leaves: 3, hosts_per_leaf: 4, fabric_gbps: 400}
workload:
  perftest: {duration_ms: 2, start_ns: 1000, senders: [0], receiver: 5}
outputs: {series: {bin_us: 10, pfc: true}}
`)
	g, err := s.Topology.Generate()
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Hosts()) != 12 || g.NumNodes() != 17 {
		t.Errorf("leaf_spine graph: %d hosts, %d nodes", len(g.Hosts()), g.NumNodes())
	}
	if lp := s.Topology.LeafSpine(); lp.Spines != 2 || lp.FabricBps != 400e9 || lp.HostBps != 100e9 {
		t.Errorf("LeafSpine = %+v", lp)
	}
	if got := s.Workload.Perftest.TestEnd(); got != sim.Microsecond+2*sim.Millisecond {
		t.Errorf("TestEnd = %v", got)
	}
	if !s.Workload.HasGenerators() || !s.Outputs.Series.On() {
		t.Error("perftest is a generator and pfc a series")
	}
	var none *scenario.Series
	if none.On() || (&scenario.Series{BinUs: 1}).On() {
		t.Error("no series selected, yet On")
	}
	ns3 := scenario.Topology{Kind: "ns3", File: "x.txt"}
	if _, err := ns3.Generate(); err == nil {
		t.Error("Generate of kind ns3 (a file) succeeded")
	}
}
