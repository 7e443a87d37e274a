package scenario_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/scenario/assemble"
	"github.com/ccsim/ccsim/sim"
)

// mustParse parses src and fails the test on any error.
func mustParse(t *testing.T, src string) *scenario.Scenario {
	t.Helper()
	s, err := scenario.Parse([]byte(src))
	if err != nil {
		t.Fatalf("Parse: %v\n--- input ---\n%s", err, src)
	}
	if s == nil {
		t.Fatal("Parse returned a nil scenario and no error")
	}
	return s
}

func TestParseDefaultScenario(t *testing.T) {
	s := mustParse(t, string(scenario.DefaultYAML()))

	if s.Name != "default-incast20-paper001" {
		t.Errorf("Name = %q", s.Name)
	}
	if s.Seed != 1 {
		t.Errorf("Seed = %d, want 1", s.Seed)
	}
	if s.StopMs != 1000 { // set explicitly in default.yaml
		t.Errorf("StopMs = %v, want 1000", s.StopMs)
	}
	if !slices.Equal(s.CC, []string{"dcqcn"}) {
		t.Errorf("CC = %v, want [dcqcn] (the default when absent)", s.CC)
	}
	if s.Params != nil {
		t.Errorf("Params = %v, want nil", s.Params)
	}
	wantTopo := scenario.Topology{Kind: "star", Hosts: 21, LinkGbps: 100, LinkDelayNs: 1000}
	if !reflect.DeepEqual(s.Topology, wantTopo) {
		t.Errorf("Topology = %+v, want %+v", s.Topology, wantTopo)
	}
	wantSwitch := scenario.Switch{BufferMiB: 32, PFC: "dynamic", PFCStaticKB: 512}
	if !reflect.DeepEqual(s.Switch, wantSwitch) {
		t.Errorf("Switch = %+v, want %+v", s.Switch, wantSwitch)
	}
	wantHost := scenario.Host{PayloadBytes: 1000}
	if !reflect.DeepEqual(s.Host, wantHost) {
		t.Errorf("Host = %+v, want %+v", s.Host, wantHost)
	}
	w := s.Workload
	if w.Kind != "incast" || w.File != "" || len(w.Flows) != 0 || w.Incast == nil {
		t.Fatalf("Workload = %+v, want kind incast with an incast block", w)
	}
	in := w.Incast
	if len(in.Senders) != 20 {
		t.Fatalf("len(Senders) = %d, want 20", len(in.Senders))
	}
	for i, v := range in.Senders {
		if int(v) != i {
			t.Errorf("Senders[%d] = %d, want %d", i, v, i)
		}
	}
	if in.Receiver != 20 || in.StartNs != 0 || in.Prio != 3 {
		t.Errorf("Incast receiver/start/prio = %d/%v/%d, want 20/0/3", in.Receiver, in.StartNs, in.Prio)
	}
	wantSizes := []int64{200e6, 200e6, 150e6}
	for range 17 {
		wantSizes = append(wantSizes, 5e6)
	}
	if !slices.Equal(in.SizesBytes, wantSizes) {
		t.Errorf("SizesBytes = %v, want %v", in.SizesBytes, wantSizes)
	}
	if !reflect.DeepEqual(s.Outputs, scenario.Outputs{}) {
		t.Errorf("Outputs = %+v, want zero", s.Outputs)
	}
	p, ok := s.ParamsOf("dcqcn").(*cc.DCQCNParams)
	if !ok {
		t.Fatalf("ParamsOf(dcqcn) = %T, want *cc.DCQCNParams", s.ParamsOf("dcqcn"))
	}
	if !reflect.DeepEqual(p, cc.DCQCNDefaults()) {
		t.Errorf("ParamsOf(dcqcn) = %+v, want the defaults %+v", p, cc.DCQCNDefaults())
	}

	// The fabric configuration derived from the defaults.
	c := assemble.FabricConfig(s)
	if c.PayloadBytes != 1000 || c.BufferBytes != 32<<20 || c.PFC != fabric.PFCDynamic ||
		c.PFCStaticBytes != 512_000 || c.Seed != 1 || c.RTO != 0 || c.CNPInterval != 0 {
		t.Errorf("FabricConfig = %+v", c)
	}
	def := fabric.DefaultConfig()
	if c.ReserveBytes != def.ReserveBytes || c.ResumeOffsetBytes != def.ResumeOffsetBytes ||
		c.HeadroomRTTs != def.HeadroomRTTs || c.ECN != def.ECN || !reflect.DeepEqual(c.ECNRule, def.ECNRule) ||
		c.AckHighPrio != def.AckHighPrio || c.NackInterval != def.NackInterval {
		t.Errorf("FabricConfig = %+v, want the fabric defaults for unset fields", c)
	}
}

func TestDefault(t *testing.T) {
	s, err := scenario.Default()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.CC, cc.Compared()) {
		t.Errorf("Default().CC = %v, want every registered algorithm but the harnesses %v", s.CC, cc.Compared())
	}
	// agent is a training harness (docs/env.md): registered, runnable when
	// named, but not one of the default comparison's algorithms.
	// decc-nn and decc-binary are DECC's ablation variants: decc (DECC as
	// deployed) stands for the mechanism.
	if !slices.Contains(cc.Names(), "agent") || slices.Contains(s.CC, "agent") || !slices.Contains(s.CC, "decc") ||
		slices.Contains(s.CC, "decc-nn") || slices.Contains(s.CC, "decc-binary") || len(s.CC) != len(cc.Names())-3 {
		t.Errorf("Default().CC = %v: want every registered algorithm but agent, decc-nn and decc-binary (%v)", s.CC, cc.Names())
	}
	for _, n := range cc.Compared() {
		if s.ParamsOf(n) == nil {
			t.Errorf("Default(): no validated parameters for %q", n)
		}
	}
	// WithCC copies: the parsed default keeps its own list.
	s2, err := s.WithCC([]string{"none"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s2.CC, []string{"none"}) || !slices.Equal(s.CC, cc.Compared()) {
		t.Errorf("WithCC: got %v (original now %v)", s2.CC, s.CC)
	}
	if _, err := s.WithCC([]string{"dcqcn", "bogus"}); err == nil || !strings.Contains(err.Error(), `cc[1]: unknown algorithm "bogus"`) {
		t.Errorf("WithCC(bogus) error = %v", err)
	}
}

func TestParseAppliesDefaults(t *testing.T) {
	// The documented defaults.
	if scenario.DefaultSeed != 1 || scenario.DefaultStopMs != 10_000 || scenario.DefaultLinkGbps != 100 ||
		scenario.DefaultLinkDelayNs != 1000 || scenario.DefaultBufferMiB != 32 ||
		scenario.DefaultPayloadBytes != 1000 || scenario.DefaultPrio != 3 {
		t.Error("default constants changed")
	}
	s := mustParse(t, `
topology: {hosts: 3}
workload:
  flows:
    - {src: 0, dst: 1, size_bytes: 1000}
    - {src: 1, dst: 2, size_bytes: 5, prio: 6, start_ns: 10}
`)
	if s.Seed != 1 {
		t.Errorf("Seed = %d, want 1", s.Seed)
	}
	if s.StopMs != 10_000 {
		t.Errorf("StopMs = %v, want 10000", s.StopMs)
	}
	if !slices.Equal(s.CC, []string{"dcqcn"}) {
		t.Errorf("CC = %v, want [dcqcn]", s.CC)
	}
	wantTopo := scenario.Topology{Kind: "star", Hosts: 3, LinkGbps: 100, LinkDelayNs: 1000}
	if !reflect.DeepEqual(s.Topology, wantTopo) {
		t.Errorf("Topology = %+v, want %+v", s.Topology, wantTopo)
	}
	if s.Switch.BufferMiB != 32 || s.Switch.PFC != "dynamic" || s.Switch.PFCStaticKB != 512 {
		t.Errorf("Switch = %+v", s.Switch)
	}
	if s.Host.PayloadBytes != 1000 {
		t.Errorf("PayloadBytes = %d, want 1000", s.Host.PayloadBytes)
	}
	want := []scenario.FlowSpec{
		{Src: 0, Dst: 1, SizeBytes: 1000, Prio: 3},
		{Src: 1, Dst: 2, SizeBytes: 5, StartNs: 10, Prio: 6},
	}
	if s.Workload.Kind != "flows" || !slices.Equal(s.Workload.Flows, want) {
		t.Errorf("Workload = %+v, want kind flows with %+v", s.Workload, want)
	}

	// Zero means "default" for these fields; explicit values are kept.
	// Explicit zeros are values, not "absent": TestExplicitZeroIsNotTheDefault.
	s = mustParse(t, `
seed: 42
stop_ms: 2.5
cc: [none, dcqcn]
topology: {hosts: 2, link_gbps: 25, link_delay_ns: 0.5}
switch: {buffer_mib: 0.0625, pfc: "off", pfc_static_kb: 1, reserve_bytes: 0, ecn: false,
         ecn_rules: [{link_gbps: 25, kmin_kb: 5, kmax_kb: 5, pmax: 1}]}
host: {payload_bytes: 64, rto_us: 0}
workload: {flows: [{src: 1, dst: 0, size_bytes: 1, prio: 7}]}
outputs: {queue_sample_us: 1e6, queue_ports: [{node: 2, port: 1}]}
`)
	if s.Seed != 42 || s.StopMs != 2.5 || !slices.Equal(s.CC, []string{"none", "dcqcn"}) ||
		s.Topology.LinkGbps != 25 || s.Topology.LinkDelayNs != 0.5 || s.Switch.BufferMiB != 0.0625 ||
		s.Switch.PFC != "off" || s.Host.PayloadBytes != 64 || *s.Switch.ReserveBytes != 0 || *s.Switch.ECN {
		t.Errorf("explicit values not kept: %+v", s)
	}
	c := assemble.FabricConfig(s)
	if c.PFC != fabric.PFCOff || c.RTO != 0 || c.ECN || c.ReserveBytes != 0 || c.BufferBytes != 64<<10 ||
		!reflect.DeepEqual(c.ECNRule, []fabric.ECNRule{{Bps: 25e9, KminBytes: 5000, KmaxBytes: 5000, Pmax: 1}}) {
		t.Errorf("FabricConfig = %+v", c)
	}
	// rto_us absent with PFC off: 1 ms (auto).
	s = mustParse(t, "switch: {pfc: \"off\"}\ntopology: {hosts: 2}\nworkload: {flows: [{src: 0, dst: 1, size_bytes: 1}]}\n")
	if c := assemble.FabricConfig(s); c.RTO != sim.Millisecond {
		t.Errorf("pfc off, rto absent: RTO = %v, want 1ms", c.RTO)
	}

	// The workload kind is inferred from what is given.
	s = mustParse(t, "topology: {hosts: 3}\nworkload: {incast: {senders: [0, 1], receiver: 2, sizes_bytes: [100]}}\n")
	if s.Workload.Kind != "incast" || s.Workload.Incast.Prio != 3 {
		t.Errorf("incast inferred: %+v", s.Workload)
	}
	s = mustParse(t, "topology: {hosts: 3}\nworkload: {file: flows.txt}\n")
	if s.Workload.Kind != "ns3" {
		t.Errorf("ns3 inferred: %+v", s.Workload)
	}

	// Algorithm parameters override the defaults field by field.
	s = mustParse(t, `
cc: [dcqcn, dcqcn_paper]
params:
  dcqcn: {g: 0.5, mode: canonical, byte_counter_bytes: 10000000}
  dcqcn_paper: {}
topology: {hosts: 2}
workload: {flows: [{src: 0, dst: 1, size_bytes: 1}]}
`)
	wantP := cc.DCQCNDefaults()
	wantP.G, wantP.Mode, wantP.ByteCounter = 0.5, "canonical", 10_000_000
	if got := s.ParamsOf("dcqcn"); !reflect.DeepEqual(got, wantP) {
		t.Errorf("ParamsOf(dcqcn) = %+v, want %+v", got, wantP)
	}
	if got := s.ParamsOf("dcqcn_paper"); !reflect.DeepEqual(got, cc.DCQCNPaperDefaults()) {
		t.Errorf("ParamsOf(dcqcn_paper) = %+v, want %+v", got, cc.DCQCNPaperDefaults())
	}
}

// Sections of the base scenario that the error cases override.
var baseSections = []struct{ key, text string }{
	{"cc", "cc: [dcqcn]"},
	{"topology", "topology: {kind: star, hosts: 4}"},
	{"switch", "switch: {pfc: dynamic}"},
	{"host", "host: {payload_bytes: 1000}"},
	{"workload", "workload: {kind: flows, flows: [{src: 0, dst: 1, size_bytes: 1000}]}"},
}

// doc builds a scenario from the base sections, replacing those named in
// set (an empty replacement drops the section) and appending extra.
func doc(set map[string]string, extra string) string {
	var b strings.Builder
	b.WriteString("name: t\n")
	for _, s := range baseSections {
		text, ok := set[s.key]
		if !ok {
			text = s.text
		}
		if text != "" {
			b.WriteString(text + "\n")
		}
	}
	b.WriteString(extra)
	return b.String()
}

type badCase struct {
	name  string
	set   map[string]string
	extra string
	want  []string // every string must appear in one single error message
}

var badCases = []badCase{
	{name: "unknown top-level field", extra: "bogus_field: 1\n", want: []string{"bogus_field", "not found"}},
	{name: "unknown topology field", set: map[string]string{"topology": "topology: {hosts: 4, bogus_nested: 2}"}, want: []string{"bogus_nested", "not found"}},
	{name: "unknown switch field", set: map[string]string{"switch": "switch: {pfc_mode: static}"}, want: []string{"pfc_mode"}},
	{name: "unknown flow field", set: map[string]string{"workload": "workload: {flows: [{src: 0, dst: 1, size_bytes: 1, colour: red}]}"}, want: []string{"colour"}},
	{name: "unknown ecn rule field", set: map[string]string{"switch": "switch: {ecn_rules: [{link_gbps: 100, kmin: 1}]}"}, want: []string{"kmin"}},
	{name: "unknown outputs field", extra: "outputs: {queue_sample_ns: 5}\n", want: []string{"queue_sample_ns"}},
	{name: "wrong type", set: map[string]string{"topology": "topology: {hosts: four}"}, want: []string{"topology.hosts = four", "want a whole number"}},
	{name: "negative seed", extra: "seed: -1\n", want: []string{"-1"}},

	{name: "unknown algorithm", set: map[string]string{"cc": "cc: [bogus]"}, want: []string{"cc[0]", `unknown algorithm "bogus"`, "dcqcn", "none"}},
	{name: "unknown second algorithm", set: map[string]string{"cc": "cc: [dcqcn, nope]"}, want: []string{"cc[1]", `"nope"`, "known:"}},
	{name: "algorithm twice", set: map[string]string{"cc": "cc: [none, dcqcn, none]"}, want: []string{"cc[2]", `"none" listed twice`}},
	{name: "bad parameter name", extra: "params: {dcqcn: {bogus_param: 1}}\n", want: []string{"params.dcqcn", "bogus_param", "not found"}},
	{name: "parameter g too large", extra: "params: {dcqcn: {g: 2}}\n", want: []string{"params.dcqcn.g = 2", "[0 (exclusive), 1]"}},
	{name: "parameter g zero", extra: "params: {dcqcn: {g: 0}}\n", want: []string{"params.dcqcn.g = 0", "[0 (exclusive), 1]"}},
	{name: "parameter mode", extra: "params: {dcqcn: {mode: fast}}\n", want: []string{"params.dcqcn.mode", "reference, canonical"}},
	{name: "parameter min rate", extra: "params: {dcqcn: {min_rate_mbps: -5}}\n", want: []string{"params.dcqcn.min_rate_mbps = -5", "[0 (exclusive), 1e7]"}},
	{name: "parameter wrong type", extra: "params: {dcqcn: {g: high}}\n", want: []string{"params.dcqcn", "high"}},
	{name: "parameters not a map", extra: "params: {dcqcn: 5}\n", want: []string{"params.dcqcn"}},
	{name: "parameters of unknown algorithm", extra: "params: {nosuch: {g: 1}}\n", want: []string{"params.nosuch", `unknown algorithm "nosuch"`}},

	{name: "stop_ms negative", extra: "stop_ms: -1\n", want: []string{"stop_ms = -1", "[1e-06, 1e+06]"}},
	{name: "stop_ms too large", extra: "stop_ms: 2e6\n", want: []string{"stop_ms = 2e+06", "[1e-06, 1e+06]"}},
	{name: "stop_ms NaN", extra: "stop_ms: .nan\n", want: []string{"stop_ms = NaN", "[1e-06, 1e+06]"}},

	{name: "topology kind", set: map[string]string{"topology": "topology: {kind: ring, hosts: 4}"}, want: []string{`topology.kind = "ring"`, "star, ns3"}},
	{name: "hosts 1", set: map[string]string{"topology": "topology: {hosts: 1}"}, want: []string{"topology.hosts = 1", "[2, 4096]"}},
	{name: "hosts absent", set: map[string]string{"topology": "topology: {kind: star}"}, want: []string{"topology.hosts = 0", "[2, 4096]"}},
	{name: "hosts too many", set: map[string]string{"topology": "topology: {hosts: 100001}"}, want: []string{"topology.hosts = 100001", "[2, 4096]"}},
	{name: "link_gbps negative", set: map[string]string{"topology": "topology: {hosts: 4, link_gbps: -100}"}, want: []string{"topology.link_gbps = -100", "[0.001, 10000]"}},
	{name: "link_gbps too small", set: map[string]string{"topology": "topology: {hosts: 4, link_gbps: 0.0001}"}, want: []string{"topology.link_gbps = 0.0001", "[0.001, 10000]"}},
	{name: "link_gbps infinite", set: map[string]string{"topology": "topology: {hosts: 4, link_gbps: .inf}"}, want: []string{"topology.link_gbps = +Inf", "[0.001, 10000]"}},
	{name: "link_delay_ns negative", set: map[string]string{"topology": "topology: {hosts: 4, link_delay_ns: -1}"}, want: []string{"topology.link_delay_ns = -1", "[0, 1e+09]"}},
	{name: "file with star", set: map[string]string{"topology": "topology: {hosts: 4, file: topo.txt}"}, want: []string{"topology.file", "only valid with kind ns3"}},
	{name: "ns3 without file", set: map[string]string{"topology": "topology: {kind: ns3}"}, want: []string{"topology.file", "required"}},

	{name: "pfc mode", set: map[string]string{"switch": "switch: {pfc: bogus}"}, want: []string{`switch.pfc = "bogus"`, "dynamic, static, off"}},
	{name: "buffer negative", set: map[string]string{"switch": "switch: {buffer_mib: -1}"}, want: []string{"switch.buffer_mib = -1", "[0.0625, 1.048576e+06]"}},
	{name: "buffer too small", set: map[string]string{"switch": "switch: {buffer_mib: 0.01}"}, want: []string{"switch.buffer_mib = 0.01", "[0.0625, 1.048576e+06]"}},
	{name: "pfc static negative", set: map[string]string{"switch": "switch: {pfc: static, pfc_static_kb: -5}"}, want: []string{"switch.pfc_static_kb = -5", "[1, 1.073741824e+09]"}},
	{name: "reserve negative", set: map[string]string{"switch": "switch: {reserve_bytes: -1}"}, want: []string{"switch.reserve_bytes = -1", "[0, 1.073741824e+09]"}},
	{name: "resume offset negative", set: map[string]string{"switch": "switch: {resume_offset_bytes: -1}"}, want: []string{"switch.resume_offset_bytes = -1", "[0, 1.073741824e+09]"}},
	{name: "headroom too large", set: map[string]string{"switch": "switch: {headroom_rtts: 1001}"}, want: []string{"switch.headroom_rtts = 1001", "[0, 1000]"}},
	{name: "ecn kmax < kmin", set: map[string]string{"switch": "switch: {ecn_rules: [{link_gbps: 100, kmin_kb: 400, kmax_kb: 100, pmax: 0.2}]}"}, want: []string{"switch.ecn_rules[0].kmax_kb = 100", "[400, 1.073741824e+09]"}},
	{name: "ecn pmax 2", set: map[string]string{"switch": "switch: {ecn_rules: [{link_gbps: 100, kmin_kb: 1, kmax_kb: 2, pmax: 0.2}, {link_gbps: 400, kmin_kb: 1, kmax_kb: 2, pmax: 2}]}"}, want: []string{"switch.ecn_rules[1].pmax = 2", "[0, 1]"}},
	{name: "ecn kmin negative", set: map[string]string{"switch": "switch: {ecn_rules: [{link_gbps: 100, kmin_kb: -1, kmax_kb: 2, pmax: 0.2}]}"}, want: []string{"switch.ecn_rules[0].kmin_kb = -1", "[0, 1.073741824e+09]"}},
	{name: "ecn rule without speed", set: map[string]string{"switch": "switch: {ecn_rules: [{kmin_kb: 1, kmax_kb: 2, pmax: 0.2}]}"}, want: []string{"switch.ecn_rules[0].link_gbps = 0", "[0.001, 10000]"}},

	{name: "payload 10", set: map[string]string{"host": "host: {payload_bytes: 10}"}, want: []string{"host.payload_bytes = 10", "[64, 9000]"}},
	{name: "payload 9001", set: map[string]string{"host": "host: {payload_bytes: 9001}"}, want: []string{"host.payload_bytes = 9001", "[64, 9000]"}},
	{name: "cnp interval negative", set: map[string]string{"host": "host: {cnp_interval_us: -1}"}, want: []string{"host.cnp_interval_us = -1", "[0, 1e+06]"}},
	{name: "nack interval negative", set: map[string]string{"host": "host: {nack_interval_us: -1}"}, want: []string{"host.nack_interval_us = -1", "[0, 1e+06]"}},
	{name: "rto too large", set: map[string]string{"host": "host: {rto_us: 1e8}"}, want: []string{"host.rto_us = 1e+08", "[0, 1e+07]"}},

	{name: "no flows", set: map[string]string{"workload": "workload: {kind: flows}"}, want: []string{"workload.flows", "at least one flow"}},
	{name: "no workload", set: map[string]string{"workload": ""}, want: []string{"workload.flows", "at least one flow"}},
	{name: "flow src == dst", set: map[string]string{"workload": "workload: {flows: [{src: 0, dst: 1, size_bytes: 1}, {src: 2, dst: 2, size_bytes: 1}]}"}, want: []string{"workload.flows[1]", "src and dst are both 2"}},
	{name: "flow prio 9", set: map[string]string{"workload": "workload: {flows: [{src: 0, dst: 1, size_bytes: 1, prio: 9}]}"}, want: []string{"workload.flows[0].prio = 9", "[1, 7]"}},
	{name: "flow prio negative", set: map[string]string{"workload": "workload: {flows: [{src: 0, dst: 1, size_bytes: 1, prio: -1}]}"}, want: []string{"workload.flows[0].prio = -1", "[1, 7]"}},
	{name: "flow size 0", set: map[string]string{"workload": "workload: {flows: [{src: 0, dst: 1, size_bytes: 0}]}"}, want: []string{"workload.flows[0].size_bytes = 0", "[1, 1e+15]"}},
	{name: "flow size absent", set: map[string]string{"workload": "workload: {flows: [{src: 0, dst: 1}]}"}, want: []string{"workload.flows[0].size_bytes = 0", "[1, 1e+15]"}},
	{name: "flow start negative", set: map[string]string{"workload": "workload: {flows: [{src: 0, dst: 1, size_bytes: 1, start_ns: -1}]}"}, want: []string{"workload.flows[0].start_ns = -1", "[0, 1e+12]"}},
	{name: "flow src negative", set: map[string]string{"workload": "workload: {flows: [{src: -1, dst: 1, size_bytes: 1}]}"}, want: []string{"workload.flows[0].src = -1", "[0, 1e+07]"}},
	{name: "flow dst too large", set: map[string]string{"workload": "workload: {flows: [{src: 0, dst: 20000000, size_bytes: 1}]}"}, want: []string{"workload.flows[0].dst = 2e+07", "[0, 1e+07]"}},
	{name: "workload kind", set: map[string]string{"workload": "workload: {kind: poisson}"}, want: []string{`workload.kind = "poisson"`, "flows, ns3, incast"}},
	{name: "ns3 workload without file", set: map[string]string{"workload": "workload: {kind: ns3}"}, want: []string{"workload.file", "required"}},
	{name: "incast block missing", set: map[string]string{"workload": "workload: {kind: incast}"}, want: []string{"workload.incast", "required"}},
	{name: "incast sizes mismatch", set: map[string]string{"workload": "workload: {incast: {senders: [0, 1, 2], receiver: 3, sizes_bytes: [1, 2]}}"}, want: []string{"workload.incast.sizes_bytes", "need 1 or len(senders) = 3", "got 2"}},
	{name: "incast no sizes", set: map[string]string{"workload": "workload: {incast: {senders: [0, 1], receiver: 3}}"}, want: []string{"workload.incast.sizes_bytes", "got 0"}},
	{name: "incast no senders", set: map[string]string{"workload": "workload: {incast: {receiver: 3, sizes_bytes: [1]}}"}, want: []string{"workload.incast.senders", "at least one sender"}},
	{name: "incast sender is receiver", set: map[string]string{"workload": "workload: {incast: {senders: [0, 3], receiver: 3, sizes_bytes: [1]}}"}, want: []string{"workload.incast.senders[1] = 3", "receiver"}},
	{name: "incast size 0", set: map[string]string{"workload": "workload: {incast: {senders: [0, 1], receiver: 3, sizes_bytes: [5, 0]}}"}, want: []string{"workload.incast.sizes_bytes[1] = 0", "[1, 1e+15]"}},
	{name: "incast prio 8", set: map[string]string{"workload": "workload: {incast: {senders: [0], receiver: 3, sizes_bytes: [1], prio: 8}}"}, want: []string{"workload.incast.prio = 8", "[1, 7]"}},
	{name: "incast start negative", set: map[string]string{"workload": "workload: {incast: {senders: [0], receiver: 3, sizes_bytes: [1], start_ns: -5}}"}, want: []string{"workload.incast.start_ns = -5", "[0, 1e+12]"}},

	{name: "queue sample negative", extra: "outputs: {queue_sample_us: -1}\n", want: []string{"outputs.queue_sample_us = -1", "[0.01, 1e+06]"}},
}

func TestParseErrors(t *testing.T) {
	if s := mustParse(t, doc(nil, "")); s.Topology.Hosts != 4 {
		t.Fatalf("base scenario: hosts = %d", s.Topology.Hosts)
	}
	for _, tc := range badCases {
		t.Run(tc.name, func(t *testing.T) {
			src := doc(tc.set, tc.extra)
			_, err := scenario.Parse([]byte(src))
			if err == nil {
				t.Fatalf("Parse succeeded, want an error containing %q\n--- input ---\n%s", tc.want, src)
			}
			msgs := []string{err.Error()}
			var errs scenario.Errors
			if errors.As(err, &errs) {
				msgs = msgs[:0]
				for _, e := range errs {
					if e == nil {
						t.Fatalf("Errors holds a nil error: %v", errs)
					}
					msgs = append(msgs, e.Error())
				}
			}
			for _, m := range msgs {
				if containsAll(m, tc.want) {
					return
				}
			}
			t.Errorf("no error contains all of %q; got:\n%s", tc.want, err)
		})
	}
}

func containsAll(s string, subs []string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

func TestParseReportsAllErrors(t *testing.T) {
	src := `
name: many-errors
bogus_top: 1
stop_ms: -3
cc: [dcqcn, bogus_cc]
params:
  dcqcn: {g: 7}
topology: {kind: star, hosts: 1, link_gbps: -1, bogus_nested: x}
switch: {pfc: sometimes, buffer_mib: -2, ecn_rules: [{link_gbps: 100, kmin_kb: 10, kmax_kb: 5, pmax: 2}]}
host: {payload_bytes: 10}
workload:
  kind: flows
  flows:
    - {src: 1, dst: 1, size_bytes: 0, prio: 9}
outputs: {queue_sample_us: -1}
`
	fields := []string{
		"bogus_top", "stop_ms", "cc[1]", "params.dcqcn.g", "topology.hosts", "topology.link_gbps", "bogus_nested",
		"switch.pfc", "switch.buffer_mib", "switch.ecn_rules[0].kmax_kb", "switch.ecn_rules[0].pmax",
		"host.payload_bytes", "workload.flows[0]: src and dst", "workload.flows[0].size_bytes",
		"workload.flows[0].prio", "outputs.queue_sample_us",
	}
	_, err := scenario.Parse([]byte(src))
	var errs scenario.Errors
	if !errors.As(err, &errs) {
		t.Fatalf("error %T %v, want scenario.Errors", err, err)
	}
	if len(errs) < len(fields) {
		t.Errorf("got %d errors, want at least %d:\n%v", len(errs), len(fields), err)
	}
	for _, f := range fields {
		found := false
		for _, e := range errs {
			if strings.Contains(e.Error(), f) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("no error names %q; got:\n%v", f, err)
		}
	}
	// The combined message lists every error, one per line, in a stable order.
	if got := strings.Count(err.Error(), "\n") + 1; got < len(errs) {
		t.Errorf("Error() has %d lines for %d errors", got, len(errs))
	}
	for range 5 {
		_, err2 := scenario.Parse([]byte(src))
		if err2.Error() != err.Error() {
			t.Fatalf("error text not deterministic:\n%v\n---\n%v", err, err2)
		}
	}
}

func TestParseMalformed(t *testing.T) {
	for _, src := range []string{"", "\n", "# only a comment\n"} {
		if _, err := scenario.Parse([]byte(src)); err == nil || !strings.Contains(err.Error(), "empty document") {
			t.Errorf("Parse(%q) error = %v, want empty document", src, err)
		}
	}
	for _, src := range []string{"topology: [", "- 1\n- 2\n", "just a string", "topology: {hosts: 4}\n  bad indent: x\n", "\t"} {
		if _, err := scenario.Parse([]byte(src)); err == nil {
			t.Errorf("Parse(%q) succeeded", src)
		}
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	p := write("ok.yaml", doc(nil, ""))
	s, err := scenario.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.Resolve("x.txt"), filepath.Join(dir, "x.txt"); got != want {
		t.Errorf("Resolve = %q, want %q", got, want)
	}
	if got := s.Resolve("/abs/x.txt"); got != "/abs/x.txt" {
		t.Errorf("Resolve(abs) = %q", got)
	}
	// Missing referenced files are reported, both at once, naming the field.
	p = write("ns3.yaml", "topology: {kind: ns3, file: missing-topo.txt}\nworkload: {kind: ns3, file: missing-flows.txt}\n")
	_, err = scenario.Load(p)
	var errs scenario.Errors
	if !errors.As(err, &errs) || len(errs) != 2 ||
		!strings.Contains(errs[0].Error(), "topology.file") || !strings.Contains(errs[1].Error(), "workload.file") {
		t.Errorf("Load with missing files: %v", err)
	}
	if _, err := scenario.Load(filepath.Join(dir, "nope.yaml")); err == nil {
		t.Error("Load of a missing scenario file succeeded")
	}
	// Validation errors come back from Load too.
	p = write("bad.yaml", doc(map[string]string{"host": "host: {payload_bytes: 1}"}, ""))
	if _, err := scenario.Load(p); err == nil || !strings.Contains(err.Error(), "host.payload_bytes") {
		t.Errorf("Load(bad) error = %v", err)
	}
}

// The file `ccsim default` prints runs what `ccsim` runs: the default
// scenario with every compared algorithm (issue 19 §3.7: the printed
// template had no cc list, so running it ran dcqcn alone).
func TestDefaultTemplateRunsTheDefault(t *testing.T) {
	tmpl, err := scenario.Parse(scenario.DefaultTemplate())
	if err != nil {
		t.Fatal(err)
	}
	def, err := scenario.Default()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(tmpl.CC, def.CC) {
		t.Errorf("template cc = %v, want Default's %v", tmpl.CC, def.CC)
	}
	bare, err := scenario.Parse(scenario.DefaultYAML())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual([]any{tmpl.Name, tmpl.Seed, tmpl.StopMs, tmpl.Topology, tmpl.Switch, tmpl.Host, tmpl.Workload, tmpl.Outputs},
		[]any{bare.Name, bare.Seed, bare.StopMs, bare.Topology, bare.Switch, bare.Host, bare.Workload, bare.Outputs}) {
		t.Errorf("the template changes more than the cc list")
	}
}
