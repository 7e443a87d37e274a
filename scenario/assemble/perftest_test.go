package assemble_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/metrics"
	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/scenario/assemble"
	"github.com/ccsim/ccsim/scenario/result"
	"github.com/ccsim/ccsim/sim"
)

// perftestOneSender: on the two_site topology (hosts A = 0, B = 1 on SW1,
// C = 2 on SW2, 400 Gb/s links of 1 µs, SW1 – SW2 400 Gb/s and 3.2 ms), one
// bandwidth QP A → C with a 1.6-MB in-flight cap (tx depth 16 × 100 KB) and
// the 64-B probe, no congestion control, a 100-ms test.
const perftestOneSender = `name: perftest-one
cc: [none]
topology: {kind: two_site}
switch: {buffer_mb: 64, pfc: "off"}
workload:
  perftest: {duration_ms: 100, msg_size_bytes: 100000, tx_depth: 16, senders: [A], receiver: C}
`

func runPerftest(t *testing.T, src string) (*scenario.Scenario, *result.Result) {
	t.Helper()
	s, err := scenario.Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	b, err := assemble.Build(s, s.CC[0], assemble.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s, b.Run()
}

// TestPerftestCapThroughput: on the idle 6.4-ms path the bandwidth QP sends
// its 1.6-MB cap as a burst at line rate once per round trip, so the
// payload delivered by the end of the test is exactly the packets of the
// bursts that arrived by then (the 64-B probe's packets shift them by
// nanoseconds only): 16 bursts of 1,600 packets, 25.6 MB, 2.048 Gb/s over
// 100 ms; the sender saw 15 bursts acknowledged. Throughput is cap/RTT up
// to the partial last round trip. The probe's messages each take the
// 64-B round trip (6.404 ms) plus at most a few packet times, and the
// test holds 15 completed messages (the 16th is in flight at the end).
func TestPerftestCapThroughput(t *testing.T) {
	_, r := runPerftest(t, perftestOneSender)
	p := r.Perftest
	if p == nil || len(p.Bandwidth.Flows) != 1 {
		t.Fatalf("perftest summary %+v", p)
	}
	const (
		bps  = int64(400e9)
		cap_ = 1_600_000
	)
	T := sim.TxTime(1048, bps)
	oneWay := 2*sim.Microsecond + 3200*sim.Microsecond
	R := 2*oneWay + 3*T + 3*sim.TxTime(60, bps) // a data packet's round trip
	D := 100 * sim.Millisecond
	// packet i of burst j starts at j·R + i·T and arrives at j·R + (i+3)·T + one way
	var delivered, acked int64
	for j := sim.Time(0); j*R < D; j++ {
		for i := sim.Time(0); i < cap_/1000; i++ {
			if j*R+(i+3)*T+oneWay <= D {
				delivered += 1000
			}
			if j*R+i*T+R <= D {
				acked += 1000
			}
		}
	}
	f := p.Bandwidth.Flows[0]
	if delivered != 16*cap_ || acked != 15*cap_ {
		t.Fatalf("test bug: expected %d delivered, %d acked", delivered, acked)
	}
	if f.DeliveredBytes != delivered || f.AckedBytes != acked {
		t.Errorf("delivered %d acked %d bytes, want exactly %d and %d", f.DeliveredBytes, f.AckedBytes, delivered, acked)
	}
	if want := float64(delivered) * 8 / D.Seconds() / 1e9; f.Gbps != want || p.Bandwidth.TotalGbps != want || p.MeasuredMs != 100 {
		t.Errorf("%v Gb/s (total %v) over %v ms, want %v", f.Gbps, p.Bandwidth.TotalGbps, p.MeasuredMs, want)
	}
	capRate := float64(cap_) * 8 / R.Seconds() / 1e9
	if f.Gbps < capRate || f.Gbps > capRate*1.03 {
		t.Errorf("%v Gb/s, want cap/RTT = %.4f Gb/s up to the last partial round trip", f.Gbps, capRate)
	}
	base := 2*oneWay + 3*sim.TxTime(112, bps) + 3*sim.TxTime(60, bps)
	l := p.Latency
	if l.Count != 15 || l.MinUs < base.Microseconds() || l.MaxUs > (base+10*T).Microseconds() {
		t.Errorf("probe latency %+v, want 15 messages in [%v, %v] µs", l, base.Microseconds(), (base + 10*T).Microseconds())
	}
	if len(r.Messages) != 15 {
		t.Errorf("%d message records", len(r.Messages))
	}
	for k, m := range r.Messages {
		if m.Msg != int64(k) || k > 0 && m.Post != r.Messages[k-1].Done {
			t.Errorf("message %d: %+v (previous done %v): the next message is posted as the previous completes", k, m, r.Messages[max(k-1, 0)].Done)
		}
	}
}

// TestPerftestOutputs: the files and fields of a perftest run, and
// determinism (two runs, identical outputs but the wall time).
func TestPerftestOutputs(t *testing.T) {
	_, r1 := runPerftest(t, perftestOneSender)
	_, r2 := runPerftest(t, perftestOneSender)
	dirs := [2]string{t.TempDir(), t.TempDir()}
	for i, r := range []*result.Result{r1, r2} {
		r.WallSeconds, r.EventsPerS = 0, 0
		if err := r.Write(filepath.Join(dirs[i], "none")); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"summary.json", "flows.csv", "messages.csv", "flow_stats.csv"} {
		a, err1 := os.ReadFile(filepath.Join(dirs[0], "none", f))
		b, err2 := os.ReadFile(filepath.Join(dirs[1], "none", f))
		if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs between two runs (%v, %v)", f, err1, err2)
		}
	}
	flows, err := os.ReadFile(filepath.Join(dirs[0], "none", "flows.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(flows)), "\n")
	if lines[0] != metrics.FlowsCSVHeaderGroup || len(lines) != 3 || !strings.HasSuffix(lines[1], ",bw") || !strings.HasSuffix(lines[2], ",probe") {
		t.Errorf("flows.csv:\n%s", flows)
	}
	recs, err := metrics.ReadFlowsCSV(bytes.NewReader(flows))
	if err != nil || recs[1].Group != "probe" || recs[1].SizeBytes != 16*64 {
		t.Errorf("read back: %+v, %v (the probe row holds the 16 messages posted)", recs, err)
	}
	msgs, _ := os.ReadFile(filepath.Join(dirs[0], "none", "messages.csv"))
	if ml := strings.Split(strings.TrimSpace(string(msgs)), "\n"); ml[0] != metrics.MessagesCSVHeader || len(ml) != 16 || !strings.HasPrefix(ml[1], "1,0,0,") {
		t.Errorf("messages.csv:\n%s", msgs)
	}
	var js map[string]json.RawMessage
	sum, _ := os.ReadFile(filepath.Join(dirs[0], "none", "summary.json"))
	if err := json.Unmarshal(sum, &js); err != nil {
		t.Fatal(err)
	}
	var pt struct {
		DurationMs float64 `json:"duration_ms"`
		Bandwidth  struct {
			Flows []map[string]any `json:"flows"`
		} `json:"bandwidth"`
		Latency map[string]any `json:"latency"`
	}
	if err := json.Unmarshal(js["perftest"], &pt); err != nil || pt.DurationMs != 100 || len(pt.Bandwidth.Flows) != 1 || pt.Latency["count"] != 15.0 {
		t.Errorf("summary.json perftest: %s (%v)", js["perftest"], err)
	}
	var groups map[string]metrics.FCTSummary
	if err := json.Unmarshal(js["fct_groups"], &groups); err != nil || groups["bw"].Flows != 1 || groups["probe"].Flows != 1 {
		t.Errorf("fct_groups: %s", js["fct_groups"])
	}
	if !reflect.DeepEqual(r1.Perftest, r2.Perftest) {
		t.Error("perftest summaries differ between two runs")
	}
}

// TestPerftestIncast: the default 2:1 incast A, B → C (the endpoints by
// name) with DCQCN on the lossy long haul, two QPs per sender: every
// bandwidth flow gets a share, the total stays below the 400-Gb/s
// bottleneck's payload rate, the probe completes messages.
func TestPerftestIncast(t *testing.T) {
	if testing.Short() {
		t.Skip("a 20-ms two-site run at 400 Gb/s")
	}
	_, r := runPerftest(t, `cc: [dcqcn]
topology: {kind: two_site}
switch: {buffer_mb: 64, pfc: "off"}
host: {payload_bytes: 1024}
workload:
  perftest: {duration_ms: 20, flows: 2}
`)
	p := r.Perftest
	if len(p.Bandwidth.Flows) != 4 || p.Latency.Count < 1 {
		t.Fatalf("%+v", p)
	}
	payloadRate := 400.0 * 1024 / (1024 + 48)
	if p.Bandwidth.TotalGbps <= 0 || p.Bandwidth.TotalGbps > payloadRate || r.Flows[4].Src != 0 || r.Flows[4].Group != "probe" {
		t.Errorf("total %v Gb/s, want in (0, %.1f]", p.Bandwidth.TotalGbps, payloadRate)
	}
	for i, f := range p.Bandwidth.Flows {
		// the default endpoints: A, A, B, B → C
		if f.Gbps <= 0 || f.Src != i/2 || f.Dst != 2 || f.AckedBytes > f.DeliveredBytes {
			t.Errorf("flow %+v", f)
		}
	}
	t.Logf("2:1 incast, 2 QPs each, DCQCN, 20 ms: %.1f Gb/s total, Jain %.3f, probe %d messages mean %.1f µs p99 %.1f µs",
		p.Bandwidth.TotalGbps, p.Bandwidth.Jain, p.Latency.Count, p.Latency.MeanUs, p.Latency.P99Us)
}

// TestPerftestDefaultsAndErrors: defaults, the endpoints by name, and
// every invalid field named.
func TestPerftestDefaultsAndErrors(t *testing.T) {
	s := mustParse(t, `topology: {kind: star, hosts: 3}
workload:
  perftest: {senders: [0, 1], receiver: 2, prio: 5}
`)
	p := s.Workload.Perftest
	if p.DurationMs != 200 || p.MsgSizeBytes != 1_000_000 || p.TxDepth != 128 || p.Flows != 1 || p.Probe == nil || !*p.Probe ||
		p.ProbeSizeBytes != 64 || p.ProbeGapUs != 0 || p.ProbeCount != 0 || p.Prio != 5 || p.ProbePrio != 5 || s.Workload.Kind != "generated" {
		t.Errorf("defaults: %+v", p)
	}
	// endpoints by name need a topology that names A, B and C
	s = mustParse(t, "topology: {kind: star, hosts: 3}\nworkload:\n  perftest: {}\n")
	if err := assemble.CheckScenario(s); err == nil || !strings.Contains(err.Error(), "workload.perftest.senders: not given, and the topology has no node named A") {
		t.Errorf("default endpoints on a star: %v", err)
	}
	for _, c := range []struct{ yaml, want string }{
		{"duration_ms: 0", "workload.perftest.duration_ms = 0 out of range"},
		{"msg_size_bytes: 0", "workload.perftest.msg_size_bytes = 0 out of range [1, 1e+12]"},
		{"tx_depth: 0", "workload.perftest.tx_depth = 0 out of range"},
		{"flows: 5000", "workload.perftest.flows = 5000 out of range [1, 4096]"},
		{"probe_size_bytes: 0", "workload.perftest.probe_size_bytes = 0 out of range"},
		{"probe_gap_us: -1", "workload.perftest.probe_gap_us = -1 out of range"},
		{"probe_delay_us: 300000", "workload.perftest.probe_delay_us = 300000 out of range [0, duration_ms × 1000 = 200000)"},
		{"probe_count: -1", "workload.perftest.probe_count = -1 out of range"},
		{"probe_prio: 0", "workload.perftest.probe_prio = 0 out of range [1, 7]"},
		{"senders: [0, 2], receiver: 2", "workload.perftest: workload: perftest: receiver 2 is also a sender"},
		{"senders: [0, 9], receiver: 2", "workload.perftest.senders[1] = 9 is not a host of the topology"},
		{"senders: [0], receiver: 2, probe_dst: 0", "workload.perftest: workload: perftest: invalid probe 0 → 0"},
	} {
		s, err := scenario.Parse([]byte("topology: {kind: star, hosts: 3}\nworkload:\n  perftest: {" + c.yaml + "}\n"))
		if err == nil {
			err = assemble.CheckScenario(s)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.yaml, err, c.want)
		}
	}
	_, err := scenario.Parse([]byte("topology: {kind: star, hosts: 3}\noutputs: {flow_file: true}\nworkload:\n  perftest: {senders: [0], receiver: 2}\n"))
	if err == nil || !strings.Contains(err.Error(), "outputs.flow_file: the reference flow file cannot hold") {
		t.Errorf("flow_file with perftest: %v", err)
	}
}

// TestChainedFlowsScenario: workload.flows[].after starts a flow exactly
// gap_ns after its predecessor completes; flows.csv writes the actual
// start, and an empty one for a flow whose predecessor did not complete.
func TestChainedFlowsScenario(t *testing.T) {
	s := mustParse(t, `stop_ms: 1
cc: [none]
topology: {kind: star, hosts: 3}
workload:
  flows:
    - {src: 0, dst: 2, size_bytes: 100000, start_ns: 1000}
    - {src: 1, dst: 2, size_bytes: 50000, after: 0, gap_ns: 2500}
    - {src: 2, dst: 0, size_bytes: 10000, after: 1}
    - {src: 1, dst: 0, size_bytes: 100000000, start_ns: 0}
    - {src: 0, dst: 1, size_bytes: 1000, after: 3}
`)
	b, err := assemble.Build(s, "none", assemble.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := b.Run()
	f := r.Flows
	if !f[0].Done || !f[1].Done || !f[2].Done || f[3].Done || f[4].Done {
		t.Fatalf("done: %v %v %v %v %v", f[0].Done, f[1].Done, f[2].Done, f[3].Done, f[4].Done)
	}
	if f[1].Start != f[0].Finish+2500*sim.Nanosecond || f[2].Start != f[1].Finish || !f[4].NotStarted || f[3].NotStarted {
		t.Errorf("starts: %v after %v (+2.5 µs), %v after %v; flow 4 not started %v", f[1].Start, f[0].Finish, f[2].Start, f[1].Finish, f[4].NotStarted)
	}
	var buf bytes.Buffer
	if err := metrics.WriteFlowsCSV(&buf, f); err != nil {
		t.Fatal(err)
	}
	if row := strings.Split(buf.String(), "\n")[5]; !strings.HasPrefix(row, "4,0,1,1000,,,,") {
		t.Errorf("flows.csv row of the flow that never started: %q", row)
	}
	back, err := metrics.ReadFlowsCSV(&buf)
	if err != nil || !back[4].NotStarted || back[1].Start != f[1].Start {
		t.Errorf("read back: %v %+v", err, back)
	}
	for _, c := range []struct{ flows, want string }{
		{"[{src: 0, dst: 1, size_bytes: 1, after: 3}]", "workload.flows[0].after = 3: want the index of another flow"},
		{"[{src: 0, dst: 1, size_bytes: 1, after: 0}]", "workload.flows[0].after = 0"},
		{"[{src: 0, dst: 1, size_bytes: 1}, {src: 0, dst: 1, size_bytes: 1, after: 0, start_ns: 5}]", "start_ns = 5 and after both given"},
		{"[{src: 0, dst: 1, size_bytes: 1, gap_ns: 5}]", "workload.flows[0].gap_ns needs workload.flows[0].after"},
		{"[{src: 0, dst: 1, size_bytes: 1}, {src: 0, dst: 1, size_bytes: 1, after: 0, gap_ns: -1}]", "workload.flows[1].gap_ns = -1 out of range"},
		{"[{src: 0, dst: 1, size_bytes: 1, after: 1}, {src: 0, dst: 1, size_bytes: 1, after: 0}]", "workload.flows: flows chained in a cycle"},
		{"[{src: 0, dst: 1, size_bytes: 1}, {src: 0, dst: 1, size_bytes: 1, also_after: 0}]", "workload.flows[1].also_after needs workload.flows[1].after"},
		{"[{src: 0, dst: 1, size_bytes: 1}, {src: 0, dst: 1, size_bytes: 1, after: 0, also_after: 0}]", "workload.flows[1].also_after = 0: want the index of a flow of workload.flows other than this one and its after"},
		{"[{src: 0, dst: 1, size_bytes: 1}, {src: 0, dst: 1, size_bytes: 1, after: 0, also_after: 2}, {src: 0, dst: 1, size_bytes: 1, after: 1}]", "workload.flows: flows chained in a cycle"},
	} {
		_, err := scenario.Parse([]byte("topology: {kind: star, hosts: 3}\nworkload:\n  flows: " + c.flows + "\n"))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.flows, err, c.want)
		}
	}
}

// TestCrossDCWorkloadRun: a small cross-DC mix on a small cross_dc topology (one
// pod of 2 ToRs × 2 hosts per datacenter; the DCI switches with paper 002's
// settings) runs to completion, lossless, every flow tagged, fct_groups per
// class; the domains and the long haul come from the topology (the default
// 100-MB incast size from it is checked in TestCrossDCWorkloadFromTopology; 2 MB
// here keeps the run short).
func TestCrossDCWorkloadRun(t *testing.T) {
	s := mustParse(t, `cc: [dcqcn]
topology:
  kind: cross_dc
  cross_dc: {pods: 1, hosts_per_tor: 2}
switch:
  buffer_mb: 16
  overrides: [{role: dci, buffer_mb: 250, pfc: static, pfc_static_mb: 100, headroom_rtts: 2, headroom_extra_kb: 4}]
workload:
  cross_dc: {load: 0.5, incast_events: 1, incast_size_bytes: 2000000, duration_ms: 0.5}
`)
	b, err := assemble.Build(s, "dcqcn", assemble.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := b.Run()
	if r.Summary.Unfinished != 0 || r.Drops != 0 || r.Bytes.Delivered != r.Bytes.Sent {
		t.Errorf("%d unfinished, %d drops, bytes %+v", r.Summary.Unfinished, r.Drops, r.Bytes)
	}
	n := 0
	for g, sum := range r.FCTGroups {
		n += sum.Flows
		if g != "cross" && g != "intra" && g != "incast" {
			t.Errorf("group %q", g)
		}
	}
	if n != len(r.Flows) || r.FCTGroups["incast"].Flows != 8 || r.FCTGroups["cross"].Flows == 0 {
		t.Errorf("fct_groups cover %d of %d flows: %v", n, len(r.Flows), r.FCTGroups)
	}
	for _, f := range r.Flows {
		if f.Group == "incast" && (f.SizeBytes != 2_000_000 || (f.Src < 4) == (f.Dst < 4)) {
			t.Errorf("incast flow %+v: want 2 MB between the datacenters (hosts 0-3, 4-7)", f)
		}
	}
}

// TestMessageRingScenario: workload.flows[].next builds a message ring (a
// process on host 0 posting 4-KB messages round robin to hosts 1 and 2):
// both queue pairs run for the whole run, none completes, flow 1 starts
// at flow 0's first completion plus the gap, the delivered bytes are
// whole messages but for the one in flight, and the bytes balance; bad
// rings are refused naming the field.
func TestMessageRingScenario(t *testing.T) {
	s := mustParse(t, `cc: [dcqcn]
stop_ms: 0.2
topology: {kind: star, hosts: 3, link_gbps: 100, link_delay_ns: 1000}
workload:
  flows:
    - {src: 0, dst: 1, size_bytes: 4096, start_ns: 1000, next: 1, gap_ns: 500}
    - {src: 0, dst: 2, size_bytes: 4096, after: 0, next: 0, gap_ns: 500}
`)
	b, err := assemble.Build(s, "dcqcn", assemble.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := b.Run()
	q := b.Net.QPs
	if q[0].Done || q[1].Done || !q[1].Started() || r.Summary.Unfinished != 2 {
		t.Fatalf("done %v %v, flow 1 started %v, unfinished %d: want two unfinished flows", q[0].Done, q[1].Done, q[1].Started(), r.Summary.Unfinished)
	}
	sent, msgs := r.Bytes.Delivered, r.Bytes.Delivered/4096
	if msgs < 20 || r.Bytes.Sent != r.Bytes.Delivered+r.Bytes.InFlight+r.Bytes.Dropped || sent-msgs*4096 > 4096 {
		t.Errorf("delivered %d B (%d messages), bytes %+v", sent, msgs, r.Bytes)
	}
	if q[1].Start <= q[0].Start || q[1].SizeBytes > q[0].SizeBytes || q[0].SizeBytes-q[1].SizeBytes > 4096 {
		t.Errorf("flow 1 start %v (flow 0 %v); posted %d and %d B: the ring alternates", q[1].Start, q[0].Start, q[0].SizeBytes, q[1].SizeBytes)
	}
	for _, c := range []struct{ flows, want string }{
		{"[{src: 0, dst: 1, size_bytes: 1, next: 3}]", "workload.flows[0].next = 3: want the index of another flow"},
		{"[{src: 0, dst: 1, size_bytes: 1, next: 1}, {src: 0, dst: 2, size_bytes: 1, after: 0}]", "workload.flows (next): flow 0: ring successor 1 is not a ring member"},
		{"[{src: 0, dst: 1, size_bytes: 1, next: 1}, {src: 0, dst: 2, size_bytes: 1, next: 0, start_ns: 5}]", "its ring has 2 members with a start time of their own"},
		{"[{src: 0, dst: 1, size_bytes: 1, next: 1, gap_ns: -2}, {src: 0, dst: 2, size_bytes: 1, after: 0, next: 0}]", "workload.flows[0].gap_ns = -2 out of range"},
	} {
		_, err := scenario.Parse([]byte("topology: {kind: star, hosts: 3}\nworkload:\n  flows: " + c.flows + "\n"))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.flows, err, c.want)
		}
	}
}
