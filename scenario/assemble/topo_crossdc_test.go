package assemble_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/scenario/assemble"
	"github.com/ccsim/ccsim/scenario/result"
	"github.com/ccsim/ccsim/sim"
	"github.com/ccsim/ccsim/topo"
)

// crossDCYAML is T6 with paper 002's switches: 16 MB intra-DC with
// dynamic PFC, the DCI switches 250 MB with static PFC at 100 MB and
// 2 × one-way BDP + 4 KB of headroom (100 MB on the long haul).
const crossDCYAML = `
name: t6
cc: [none]
stop_ms: 50
topology: {kind: cross_dc}
switch:
  buffer_mb: 16
  pfc: dynamic
  overrides:
    - {role: dci, buffer_mb: 250, pfc: static, pfc_static_mb: 100, headroom_rtts: 2, headroom_extra_kb: 4, ecn: false}
    - {nodes: [A.core0, 101], ecn_rules: [{link_gbps: 100, kmin_kb: 100, kmax_kb: 400, pmax: 0.1}]}
workload:
  flows:
    - {src: A.h0, dst: B.h5, size_bytes: 100000}
    - {src: 33, dst: A.h31, size_bytes: 100000}
outputs:
  queue_sample_us: 100
  queue_ports: [{node: A.dci, port: 4}, {node: B.tor0, port: 0}]
`

func TestCrossDCScenario(t *testing.T) {
	s, err := checkDoc(t, crossDCYAML)
	if err != nil {
		t.Fatal(err)
	}
	w := s.Workload.Flows
	if w[0].Src != 0 || w[0].Dst != 37 || w[1].Dst != 31 {
		t.Errorf("flows %+v: A.h0 = 0, B.h5 = 37, A.h31 = 31", w)
	}
	if q := s.Outputs.QueuePorts; q[0].Node != 84 || q[1].Node != 85 {
		t.Errorf("queue ports %+v: A.dci = 84, B.tor0 = 85", q)
	}
	if n := s.Switch.Overrides[1].Nodes; !reflect.DeepEqual(n, []scenario.NodeID{80, 101}) {
		t.Errorf("override nodes %v, want [80 101]", n)
	}
	c := assemble.FabricConfig(s)
	if c.BufferBytes != 16e6 || c.PFC != fabric.PFCDynamic || len(c.Switches) != 2 || *c.Switches[0].BufferBytes != 250e6 ||
		*c.Switches[0].PFCStaticBytes != 100e6 || *c.Switches[0].PFC != fabric.PFCStatic || *c.Switches[0].ECN ||
		c.Switches[1].ECNRule[0].KminBytes != 100_000 {
		t.Errorf("fabric config %+v / %+v", c, c.Switches)
	}
	b, err := assemble.Build(s, "none", assemble.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for sw, want := range map[int]fabric.SwitchSettings{
		64:  {BufferBytes: 16e6, PFC: fabric.PFCDynamic, PFCStaticBytes: 512_000, ECN: true, HeadroomBytes: 6 * 37_500, ReserveBytes: 6 * 4096},
		84:  {BufferBytes: 250e6, PFC: fabric.PFCStatic, PFCStaticBytes: 100e6, HeadroomBytes: 4*29_000 + 100_004_000, ReserveBytes: 5 * 4096},
		105: {BufferBytes: 250e6, PFC: fabric.PFCStatic, PFCStaticBytes: 100e6, HeadroomBytes: 4*29_000 + 100_004_000, ReserveBytes: 5 * 4096},
	} {
		if got := b.Net.Switch(sw); got != want {
			t.Errorf("switch %d: %+v, want %+v", sw, got, want)
		}
	}
	// the paper's timers: no loss, so no timeout; NACKs at most every
	// 2 × 2.01666 ms
	if c := b.Net.Config(); c.RTO != 0 || c.NackInterval != 2*2_016_660*sim.Nanosecond {
		t.Errorf("rto %v nack interval %v", c.RTO, c.NackInterval)
	}
	r := b.Run()
	if r.Summary.Finished != 2 || r.Drops != 0 {
		t.Errorf("%d flows finished, %d drops", r.Summary.Finished, r.Drops)
	}
	// resolved: ids, and the same scenario back
	res, err := s.Resolved("none")
	if err != nil {
		t.Fatal(err)
	}
	s2, err := reparse(res)
	if err != nil {
		t.Fatalf("%v\n%s", err, res)
	}
	// (nil and empty lists differ after a round trip: compare what they build)
	if !reflect.DeepEqual(assemble.FabricConfig(s2), assemble.FabricConfig(s)) || !reflect.DeepEqual(s2.Topology.CrossDC, s.Topology.CrossDC) ||
		!reflect.DeepEqual(s2.Workload.Flows, s.Workload.Flows) || !reflect.DeepEqual(s2.Outputs.QueuePorts, s.Outputs.QueuePorts) {
		t.Errorf("resolved scenario parses to another scenario:\n%s", res)
	}
	if res2, _ := s2.Resolved("none"); string(res2) != string(res) {
		t.Errorf("resolving twice differs")
	}
	if !strings.Contains(string(res), "nodes:\n            - 80\n            - 101") {
		t.Errorf("resolved overrides do not hold the ids:\n%s", res)
	}
}

// The names follow the parameters: with 8 pods a datacenter has 64 hosts.
func TestCrossDCNamesFollowParameters(t *testing.T) {
	src := "cc: [none]\ntopology: {kind: cross_dc, cross_dc: {pods: 8}, link_delay_ns: 1000}\nswitch: {pfc: off}\nworkload: {flows: [{src: A.h63, dst: B.h63, size_bytes: 1000}]}\n"
	s, err := checkDoc(t, src)
	if err != nil {
		t.Fatal(err)
	}
	if f := s.Workload.Flows[0]; f.Src != 63 || f.Dst != 127 {
		t.Errorf("A.h63 = %d, B.h63 = %d; want 63, 127", f.Src, f.Dst)
	}
	_, err = checkDoc(t, strings.Replace(src, "pods: 8", "pods: 4", 1))
	wantErr(t, err, `workload.flows[0].src = "A.h63": not a node of topology.kind cross_dc (names: A.h0..A.h31, B.h0..B.h31, A.tor0..A.tor7, A.agg0..A.agg7, A.core0..A.core3, A.dci, B.tor0..B.tor7`)
	// invalid parameters: the parameter's error, no name errors
	_, err = checkDoc(t, strings.Replace(src, "pods: 8", "pods: 0", 1))
	wantErr(t, err, "topology.cross_dc.pods = 0 out of range [1, 64]")
	for _, m := range errorsOf(err) {
		if strings.Contains(m, "A.h63") {
			t.Errorf("secondary error: %s", m)
		}
	}
}

func TestCrossDCScenarioErrors(t *testing.T) {
	head := "cc: [none]\ntopology: {kind: cross_dc}\n"
	flows := "workload: {flows: [{src: A.h0, dst: B.h0, size_bytes: 1000}]}\n"
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"default buffers", head + flows, []string{"switch.buffer_mib = 32 (33554432 B) is too small for PFC: switch 84 (A.dci, role dci): PFC headroom 150150000 B",
			"headroom per port = switch.headroom_rtts = 3 × one-way BDP", "topology.cross_dc.long_haul_delay_ns (or long_haul_km)", "or set switch.pfc: off"}},
		{"DCI buffer too small", head + "switch: {overrides: [{role: dci, buffer_mb: 50, headroom_rtts: 2}]}\n" + flows,
			[]string{"switch.overrides[0].buffer_mb = 50 (50000000 B) is too small for PFC: switch 84 (A.dci, role dci)", "lower switch.overrides[0].headroom_rtts", "set switch.pfc: off"}},
		{"explicit headroom", head + "switch: {overrides: [{role: dci, buffer_mb: 250, headroom_mb: 60}]}\n" + flows,
			[]string{"headroom per port = switch.overrides[0].headroom_mb = 60000000 B"}},
		{"unknown role", head + "switch: {overrides: [{role: spine, ecn: false}]}\n" + flows,
			[]string{`switch.overrides[0].role = "spine": no switch of topology.kind cross_dc has this role (switch roles: tor, agg, core, dci)`}},
		{"host role", head + "switch: {overrides: [{role: host, ecn: false}]}\n" + flows, []string{`role = "host": no switch`}},
		{"host node", head + "switch: {overrides: [{nodes: [A.h3], ecn: false}]}\n" + flows,
			[]string{"switch.overrides[0].nodes[0] = 3 (A.h3) is a host, not a switch"}},
		{"no such node", head + "switch: {overrides: [{nodes: [500], ecn: false}]}\n" + flows,
			[]string{"switch.overrides[0].nodes[0] = 500: no such node (nodes are 0..105)"}},
		{"unknown name", head + "switch: {overrides: [{nodes: [C.dci], ecn: false}]}\n" + flows,
			[]string{`switch.overrides[0].nodes[0] = "C.dci": not a node of topology.kind cross_dc`}},
		{"role on star", "topology: {hosts: 3}\nswitch: {overrides: [{role: dci, ecn: false}]}\nworkload: {flows: [{src: 0, dst: 1, size_bytes: 1}]}\n",
			[]string{`switch.overrides[0].role = "dci": topology.kind star gives its nodes no roles`}},
		{"host on star", "topology: {hosts: 3}\nswitch: {overrides: [{nodes: [1], ecn: false}]}\nworkload: {flows: [{src: 0, dst: 1, size_bytes: 1}]}\n",
			[]string{"switch.overrides[0].nodes[0] = 1 is a host, not a switch"}},
		{"nothing selected", head + "switch: {overrides: [{ecn: false}]}\n" + flows, []string{"switch.overrides[0]: give the switches it sets"}},
		{"nothing set", head + "switch: {overrides: [{role: dci}]}\n" + flows, []string{"switch.overrides[0] sets nothing"}},
		{"ranges", head + "switch: {overrides: [{role: dci, buffer_mb: 0, pfc: lossy, pfc_static_kb: 0, headroom_rtts: -1, ecn_rules: [{link_gbps: 100, kmin_kb: 5, kmax_kb: 1, pmax: 2}]}]}\n" + flows,
			[]string{"switch.overrides[0].buffer_mb = 0 out of range [0.065536, 1e+09]", `switch.overrides[0].pfc = "lossy": allowed values dynamic, static, off`,
				"switch.overrides[0].pfc_static_kb = 0 out of range [1, 1e+12]", "switch.overrides[0].headroom_rtts = -1 out of range [0, 1000]",
				"switch.overrides[0].ecn_rules[0].kmax_kb = 1 out of range [5,", "switch.overrides[0].ecn_rules[0].pmax = 2 out of range [0, 1]"}},
		{"two units", head + "switch: {overrides: [{role: dci, buffer_mb: 10, buffer_mib: 10, pfc_static_mb: 1, pfc_static_kb: 1, headroom_rtts: 1, headroom_kb: 1}]}\n" + flows,
			[]string{"switch.overrides[0].buffer_mb and switch.overrides[0].buffer_mib both given", "pfc_static_mb and switch.overrides[0].pfc_static_kb both given",
				"switch.overrides[0]: give one of headroom_rtts, headroom_mb, headroom_kb"}},
		{"params", "topology: {kind: cross_dc, hosts: 4, cross_dc: {hosts_per_tor: 0, tors_per_pod: 65, dci_gbps: 0, long_haul_km: 1, long_haul_delay_ns: 5, long_haul_links: 2}}\nswitch: {pfc: off}\n" + flows,
			[]string{"topology.hosts = 4: kind cross_dc takes its shape from topology.cross_dc", "topology.cross_dc.hosts_per_tor = 0 out of range [1, 512]",
				"topology.cross_dc.tors_per_pod = 65 out of range [1, 64]", "topology.cross_dc.dci_gbps = 0 out of range [0.001, 10000]",
				"topology.cross_dc.long_haul_delay_ns and topology.cross_dc.long_haul_km both given", "topology.cross_dc.long_haul_links = 2 out of range [1, 1]"}},
		{"block of another kind", "topology: {kind: star, hosts: 3, two_site: {long_haul_km: 1}, cross_dc: {pods: 1}}\nworkload: {flows: [{src: 0, dst: 1, size_bytes: 1}]}\n",
			[]string{"topology.two_site is only valid with kind two_site", "topology.cross_dc is only valid with kind cross_dc"}},
		{"rto below the RTT", "topology: {kind: two_site}\nswitch: {pfc: off}\nhost: {rto_us: 1000}\nworkload: {flows: [{src: A, dst: C, size_bytes: 1000}]}\n",
			[]string{"host.rto_us = 1000 is at most the topology's largest base RTT (6404.1 µs)", "absent = max(1000, 3 × max RTT) = 19212 µs"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := checkDoc(t, tc.src)
			if err == nil {
				t.Fatalf("accepted:\n%s", tc.src)
			}
			for _, w := range tc.want {
				wantErr(t, err, w)
			}
		})
	}
}

// Later overrides win over earlier ones, field by field.
func TestSwitchOverridesLaterWin(t *testing.T) {
	s, err := checkDoc(t, `cc: [none]
topology: {kind: two_site}
switch:
  pfc: off
  overrides:
    - {role: dci, buffer_mb: 20, ecn: false}
    - {nodes: [SW2], buffer_mib: 1, pfc: static, pfc_static_kb: 300, headroom_kb: 10}
workload: {flows: [{src: A, dst: C, size_bytes: 1000}]}
`)
	if err != nil {
		t.Fatal(err)
	}
	b, err := assemble.Build(s, "none", assemble.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := b.Net.Switch(3), (fabric.SwitchSettings{BufferBytes: 20e6, PFC: fabric.PFCOff, PFCStaticBytes: 512_000, ReserveBytes: 3 * 4096}); got != want {
		t.Errorf("SW1 %+v, want %+v", got, want)
	}
	if got, want := b.Net.Switch(4), (fabric.SwitchSettings{BufferBytes: 1 << 20, PFC: fabric.PFCStatic, PFCStaticBytes: 300_000, HeadroomBytes: 2 * 10_000, ReserveBytes: 2 * 4096}); got != want {
		t.Errorf("SW2 %+v, want %+v", got, want)
	}
	// lossy (SW1): the timeout scales with the 6.404 ms RTT
	if c := b.Net.Config(); c.RTO != 3*6_404_060*sim.Nanosecond || c.NackInterval != 2*6_404_060*sim.Nanosecond {
		t.Errorf("rto %v nack %v", c.RTO, c.NackInterval)
	}
}

func TestTwoSiteScenario(t *testing.T) {
	s, err := checkDoc(t, "cc: [none]\ntopology: {kind: two_site, two_site: {long_haul_km: 100}}\nswitch: {pfc: off}\nworkload: {flows: [{src: B, dst: C, size_bytes: 1000}]}\n")
	if err != nil {
		t.Fatal(err)
	}
	g, err := assemble.Graph(s)
	if err != nil {
		t.Fatal(err)
	}
	if l := g.Links[3]; l.Delay != 500*sim.Microsecond || l.Bps != 400e9 || g.Links[0].Bps != 400e9 {
		t.Errorf("links %+v: 100 km = 500 µs, 400 Gb/s", g.Links)
	}
	if f := s.Workload.Flows[0]; f.Src != 1 || f.Dst != 2 {
		t.Errorf("B, C = %d, %d", f.Src, f.Dst)
	}
	s, err = checkDoc(t, "cc: [none]\ntopology: {kind: two_site, two_site: {single_switch: true}}\nworkload: {flows: [{src: A, dst: C, size_bytes: 1000}]}\n")
	if err != nil {
		t.Fatal(err)
	}
	if g, _ := assemble.Graph(s); g.NumNodes() != 4 || g.Name(3) != "SW1" {
		t.Errorf("short distance: %+v", g)
	}
	_, err = checkDoc(t, "cc: [none]\ntopology: {kind: two_site, two_site: {single_switch: true}}\nworkload: {flows: [{src: A, dst: SW2, size_bytes: 1000}]}\n")
	wantErr(t, err, `workload.flows[0].dst = "SW2": not a node of topology.kind two_site (names: A, B, C, SW1)`)
}

// One flow over the two-site long haul (400 Gb/s, 3.2 ms) runs at line
// rate less the headers: goodput over its transfer time = 400 Gb/s ×
// 1000 / 1048.
func TestTwoSiteLongHaulLineRate(t *testing.T) {
	const size = 40_000_000
	s := mustParse(t, "cc: [none]\ntopology: {kind: two_site}\nswitch: {pfc: off}\nworkload: {flows: [{src: A, dst: C, size_bytes: 40000000}]}\n")
	b, err := assemble.Build(s, "none", assemble.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := b.Run()
	f := r.Flows[0]
	if !f.Done || r.Drops != 0 {
		t.Fatalf("done %v drops %d", f.Done, r.Drops)
	}
	pi := b.Net.PathInfo(0, 2)
	// the transfer: the FCT less the base RTT (the first packet's trip and
	// the last ACK's)
	transfer := (f.Finish - f.Start - pi.BaseRTT()).Seconds()
	gbps := size * 8 / transfer / 1e9
	want := 400 * 1000.0 / 1048
	if gbps < want*0.9999 || gbps > want*1.0001 {
		t.Errorf("goodput %.4f Gb/s, want %.4f (FCT %v, base RTT %v)", gbps, want, f.Finish-f.Start, pi.BaseRTT())
	}
}

// Lossy long haul: two 400 Gb/s senders share SW1's 400 Gb/s long haul
// with PFC off and a small buffer, so SW1 drops; go-back-N (NACKs and the
// RTT-scaled timeout) delivers every byte, and every byte sent is
// delivered, dropped or still in flight.
func TestTwoSiteLossyDeliversEverything(t *testing.T) {
	s := mustParse(t, `cc: [dcqcn]
topology: {kind: two_site}
switch: {pfc: off, buffer_mb: 4}
workload: {flows: [{src: A, dst: C, size_bytes: 6000000}, {src: B, dst: C, size_bytes: 6000000}]}
`)
	b, err := assemble.Build(s, "dcqcn", assemble.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := b.Run()
	if r.Summary.Finished != 2 {
		t.Fatalf("%d of 2 flows finished", r.Summary.Finished)
	}
	for i := range b.Net.QPs {
		if q := &b.Net.QPs[i]; q.SndUna != q.SizeBytes || q.Delivered() != q.SizeBytes {
			t.Errorf("flow %d: acked %d delivered %d of %d", i, q.SndUna, q.Delivered(), q.SizeBytes)
		}
	}
	by := r.Bytes
	if r.Drops == 0 || by.Dropped == 0 || b.Net.Stats.Retransmits == 0 && b.Net.Stats.Timeouts == 0 {
		t.Errorf("drops %d (%d B), retransmits %d: the test needs losses", r.Drops, by.Dropped, b.Net.Stats.Retransmits)
	}
	if by.Sent != by.Delivered+by.Dropped+by.InFlight {
		t.Errorf("bytes: sent %d != delivered %d + dropped %d + in flight %d", by.Sent, by.Delivered, by.Dropped, by.InFlight)
	}
	if by.Delivered < 12_000_000 {
		t.Errorf("delivered %d < the 12 MB of the flows", by.Delivered)
	}
	t.Logf("drops %d (%d B), sent %d B, delivered %d B, timeouts %d, FCTs %v %v", r.Drops, by.Dropped, by.Sent, by.Delivered,
		b.Net.Stats.Timeouts, r.Flows[0].Finish-r.Flows[0].Start, r.Flows[1].Finish-r.Flows[1].Start)
}

// Lossless cross-DC: a cross-DC incast without congestion control backs
// up into the DCI switch of B, which pauses the long haul at its static
// threshold; its headroom absorbs what the long haul holds, and nothing is
// dropped anywhere.
func TestCrossDCLosslessLongHaulPaused(t *testing.T) {
	s := mustParse(t, `cc: [none]
topology: {kind: cross_dc}
switch:
  buffer_mb: 16
  overrides:
    - {role: dci, buffer_mb: 250, pfc: static, pfc_static_mb: 5, headroom_rtts: 2, headroom_extra_kb: 4, ecn: false}
workload:
  incast: {senders: [A.h0, A.h8, A.h16, A.h24], receiver: B.h0, sizes_bytes: [20000000]}
`)
	b, err := assemble.Build(s, "none", assemble.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var maxHead int64
	n := b.Net
	lh := n.Nodes[105].FirstPort + 4 // B.dci's long-haul port
	n.Monitor(10*sim.Microsecond, func(n *fabric.Network, now sim.Time) {
		maxHead = max(maxHead, n.Ports[lh].IngressBytes())
	})
	r := b.Run()
	if r.Summary.Finished != 4 || r.Drops != 0 || r.Bytes.Dropped != 0 {
		t.Fatalf("%d of 4 flows finished, %d drops", r.Summary.Finished, r.Drops)
	}
	aLH := &n.Ports[n.Nodes[84].FirstPort+4] // A.dci's long-haul transmitter
	if aLH.Stats.PauseRx == 0 || aLH.Stats.PausedTime == 0 {
		t.Errorf("the long haul was never paused (pause frames %d)", aLH.Stats.PauseRx)
	}
	// B.dci held more than its 5 MB threshold (the long haul's in-flight
	// bytes land in the headroom) but less than threshold + headroom
	if maxHead <= 5e6 || maxHead > 5e6+100_004_000 {
		t.Errorf("B.dci long-haul ingress peaked at %d B", maxHead)
	}
	if r.Bytes.Sent != r.Bytes.Delivered+r.Bytes.InFlight {
		t.Errorf("bytes %+v", r.Bytes)
	}
	t.Logf("long haul paused %v (%d frames), B.dci ingress peak %d B", aLH.Stats.PausedTime, aLH.Stats.PauseRx, maxHead)
	_ = topo.RoleDCI
}

// Same scenario and seed, same run: the lossy two-site run (drops, NACKs,
// timeouts) twice gives identical flows and counters.
func TestTwoSiteLossyDeterministic(t *testing.T) {
	src := "cc: [dcqcn]\ntopology: {kind: two_site}\nswitch: {pfc: off, buffer_mb: 4}\nworkload: {flows: [{src: A, dst: C, size_bytes: 3000000}, {src: B, dst: C, size_bytes: 3000000}]}\n"
	run := func() *result.Result {
		b, err := assemble.Build(mustParse(t, src), "dcqcn", assemble.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return b.Run()
	}
	r1, r2 := run(), run()
	if !reflect.DeepEqual(r1.Flows, r2.Flows) || r1.Drops != r2.Drops || r1.Bytes != r2.Bytes || r1.Events != r2.Events || r1.Drops == 0 {
		t.Errorf("two runs differ (or had no drops): %+v %+v / %d %d", r1.Bytes, r2.Bytes, r1.Drops, r2.Drops)
	}
}
