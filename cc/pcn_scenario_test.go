package cc_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/sim"
)

// runWrappedScenario runs algorithm name on a scenario with every QP's
// algorithm wrapped by wrap (to observe what it sees).
func runWrappedScenario(t *testing.T, src, name string, wrap func(q *fabric.QP, a fabric.Algorithm) fabric.Algorithm) *scenario.Result {
	t.Helper()
	s, err := scenario.Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Build(name, scenario.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	spec, err := cc.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	ctor, _ := spec.New(s.ParamsOf(name))
	b.Net.SetAlgorithm(func(q *fabric.QP) fabric.Algorithm { return wrap(q, ctor(q)) })
	r := b.Run()
	for _, f := range r.Flows {
		if !f.Done {
			t.Fatalf("%s: flow %d did not finish", name, f.ID)
		}
	}
	return r
}

// pcnMarks counts, per flow, the data packets the receiver saw, those
// NP-ECN marked, and the receiver's CNPs by reported state.
type pcnMarks struct {
	fabric.Algorithm
	pkts, marked []int64
	cnps         [][3]int64
}

func (m *pcnMarks) OnDataReceived(q *fabric.QP, ecn bool, payload int, mark uint8, now sim.Time) (bool, int64) {
	m.pkts[q.ID]++
	if mark&cc.PCNMark != 0 {
		m.marked[q.ID]++
	}
	notify, arg := m.Algorithm.(fabric.ReceiverAlgorithm).OnDataReceived(q, ecn, payload, mark, now)
	if notify {
		_, st := cc.DecodePCNArg(arg)
		m.cnps[q.ID][st]++
	}
	return notify, arg
}

// pcnVictimScenario: hosts 0-3 on switch 6, hosts 4 and 5 on switch 7;
// 100 Gb/s links but 400 Gb/s between the switches and to host 4, and a
// 1 MiB buffer per switch. Hosts 1-3 send 8 MB each to host 5 (a 3:1
// incast at switch 7's port to 5); host 0 sends 8 MB to host 4 on a path
// without a congested port, but it shares switch 6's port to switch 7,
// which switch 7 pauses when the incast fills its buffer: the victim of
// PFC head-of-line blocking.
func pcnVictimScenario(t *testing.T, params string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "victim.txt")
	topo := "8 2 7\n6 7\n" +
		"0 6 100Gbps 1000ns 0\n1 6 100Gbps 1000ns 0\n2 6 100Gbps 1000ns 0\n3 6 100Gbps 1000ns 0\n" +
		"6 7 400Gbps 1000ns 0\n4 7 400Gbps 1000ns 0\n5 7 100Gbps 1000ns 0\n"
	if err := os.WriteFile(path, []byte(topo), 0o644); err != nil {
		t.Fatal(err)
	}
	return `
name: pcn-victim
stop_ms: 50
cc: [none, dcqcn, pcn]
topology: {kind: ns3, file: ` + path + `}
switch: {buffer_mib: 1}
params: {pcn: ` + params + `}
workload:
  kind: flows
  flows:
    - {src: 0, dst: 4, size_bytes: 8000000}
    - {src: 1, dst: 5, size_bytes: 8000000}
    - {src: 2, dst: 5, size_bytes: 8000000}
    - {src: 3, dst: 5, size_bytes: 8000000}
`
}

// PCN against PFC head-of-line blocking. Without congestion control the
// victim is paused with the incast and finishes ~3× its ideal FCT; DCQCN
// never sees a mark (its 400 KB K_min is more than a 1 MiB buffer queues
// before PFC pauses) and behaves the same. PCN cuts only the incast flows
// (most of their CNPs report congestion); NP-ECN leaves the victim's
// backlog behind a pause unmarked, so the victim gets no congested CNP and
// finishes near its ideal FCT, and PFC pauses fall by an order of
// magnitude. Marking the pause backlog like plain ECN (np_ecn false)
// marks the victim and makes it "congested".
func TestPCNScenarioVictim(t *testing.T) {
	none := runAlgScenario(t, pcnVictimScenario(t, "{}"), "none")
	dcqcn := runAlgScenario(t, pcnVictimScenario(t, "{}"), "dcqcn")
	counts := func(np string) (*scenario.Result, *pcnMarks) {
		m := &pcnMarks{pkts: make([]int64, 4), marked: make([]int64, 4), cnps: make([][3]int64, 4)}
		r := runWrappedScenario(t, pcnVictimScenario(t, np), "pcn", func(q *fabric.QP, a fabric.Algorithm) fabric.Algorithm {
			return &pcnMarks{Algorithm: a, pkts: m.pkts, marked: m.marked, cnps: m.cnps}
		})
		return r, m
	}
	pcn, m := counts("{}")
	pcnPlain, plain := counts("{np_ecn: false}")

	ideal := pcn.Flows[0].IdealFCT.Microseconds()
	serial := 3 * 8e6 * 1048 / 1000 * 8 / 100e9 * 1e6 // incast: 24 MB through one 100 Gb/s port
	for _, x := range []struct {
		name string
		r    *scenario.Result
	}{{"none", none}, {"dcqcn", dcqcn}, {"pcn", pcn}, {"pcn np_ecn false", pcnPlain}} {
		r := x.r
		t.Logf("%s: victim FCT %.1f µs (ideal %.1f); incast FCTs %.1f %.1f %.1f µs (serialization %.1f); pause frames %d, paused %.1f µs",
			x.name, r.Flows[0].FCT().Microseconds(), ideal, r.Flows[1].FCT().Microseconds(), r.Flows[2].FCT().Microseconds(),
			r.Flows[3].FCT().Microseconds(), serial, r.PFC.PauseFrames, r.PFC.PausedUs)
	}
	for i := 0; i < 4; i++ {
		t.Logf("pcn flow %d: %d of %d packets NP-ECN marked; CNPs clean/partial/congested %v (np_ecn false: %d marked, CNPs %v)",
			i, m.marked[i], m.pkts[i], m.cnps[i], plain.marked[i], plain.cnps[i])
	}

	victim := func(r *scenario.Result) float64 { return r.Flows[0].FCT().Microseconds() / ideal }
	if v := victim(none); v < 2 {
		t.Errorf("none: victim FCT only %.2f× ideal; the scenario does not show head-of-line blocking", v)
	}
	if v := victim(pcn); v > 1.35 || v > 0.8*victim(pcnPlain) {
		t.Errorf("pcn: victim FCT %.2f× ideal, want ≤ 1.35 and ≤ 0.8 × the %.2f× with np_ecn false", v, victim(pcnPlain))
	}
	if pcn.PFC.PauseFrames*10 > none.PFC.PauseFrames || pcn.PFC.PausedUs*10 > none.PFC.PausedUs {
		t.Errorf("pcn: %d pause frames / %.1f µs paused, want < 1/10 of none's %d / %.1f µs",
			pcn.PFC.PauseFrames, pcn.PFC.PausedUs, none.PFC.PauseFrames, none.PFC.PausedUs)
	}
	if m.cnps[0][cc.PCNCongested] != 0 || m.marked[0]*20 > m.pkts[0] {
		t.Errorf("NP-ECN: victim has %d congested CNPs and %d of %d packets marked, want 0 and < 5 %%",
			m.cnps[0][cc.PCNCongested], m.marked[0], m.pkts[0])
	}
	if plain.cnps[0][cc.PCNCongested] == 0 || plain.marked[0] < 4*m.marked[0] {
		t.Errorf("np_ecn false: victim has %d congested CNPs and %d marked packets; want the pause backlog marked (> 0, ≥ 4 × %d)",
			plain.cnps[0][cc.PCNCongested], plain.marked[0], m.marked[0])
	}
	for i := 1; i <= 3; i++ {
		if m.cnps[i][cc.PCNCongested] < 10 {
			t.Errorf("incast flow %d: only %d congested CNPs", i, m.cnps[i][cc.PCNCongested])
		}
		if fct := pcn.Flows[i].FCT().Microseconds(); fct > 1.15*serial {
			t.Errorf("incast flow %d: FCT %.1f µs > 1.15 × serialization %.1f µs", i, fct, serial)
		}
	}
}

// pcnIncast: 8 senders × 4 MB to one receiver on a 100 Gb/s switch with a
// 4 MiB buffer; the bottleneck queue (switch 9, port 8) sampled every µs.
const pcnIncast = `
name: pcn-incast8
stop_ms: 50
topology: {kind: star, hosts: 9, link_gbps: 100, link_delay_ns: 1000}
switch: {buffer_mib: 4}
workload:
  kind: incast
  incast: {senders: [0, 1, 2, 3, 4, 5, 6, 7], receiver: 8, sizes_bytes: [4000000]}
outputs: {queue_sample_us: 1, queue_ports: [{node: 9, port: 8}]}
`

// Flows converge without a long PFC-induced collapse: the line-rate start
// fills the buffer and triggers PFC once (so does every algorithm that
// starts at line rate), then PCN drains the queue and holds it small
// while the port stays busy and the flows share it equally; without
// congestion control PFC pauses the senders for the whole transfer.
func TestPCNScenarioIncastConverges(t *testing.T) {
	none := runAlgScenario(t, pcnIncast, "none")
	r := runAlgScenario(t, pcnIncast, "pcn")
	serial := 8 * 4e6 * 1048 / 1000 * 8 / 100e9 * 1e6
	drained := sim.Never
	var sum, n float64
	var maxQ int64
	for _, q := range r.Queue {
		if drained == sim.Never && q.At > 50*sim.Microsecond && q.Bytes < 10_000 {
			drained = q.At
		}
		if q.At > drained && q.At < 2500*sim.Microsecond {
			sum += float64(q.Bytes)
			n++
			maxQ = max(maxQ, q.Bytes)
		}
	}
	t.Logf("none: pause frames %d, paused %.1f µs, RTT p50 %.1f µs", none.PFC.PauseFrames, none.PFC.PausedUs, none.RTT.P50Us)
	t.Logf("pcn: pause frames %d, paused %.1f µs; queue drained at %v, then mean %.1f KB max %.1f KB; RTT p50 %.1f µs; last FCT %.1f µs (serialization %.1f); Jain %.4f",
		r.PFC.PauseFrames, r.PFC.PausedUs, drained, sum/n/1e3, float64(maxQ)/1e3, r.RTT.P50Us, r.Summary.FinishTimeUs, serial, r.Jain)
	if drained > 800*sim.Microsecond {
		t.Errorf("start-up queue drained only at %v, want ≤ 800 µs", drained)
	}
	if sum/n > 100e3 || maxQ > 300e3 {
		t.Errorf("queue after draining: mean %.0f B max %d B, want ≤ 100 KB and ≤ 300 KB", sum/n, maxQ)
	}
	if r.PFC.PausedUs*20 > none.PFC.PausedUs {
		t.Errorf("paused %.1f µs, want < 1/20 of none's %.1f µs", r.PFC.PausedUs, none.PFC.PausedUs)
	}
	if r.Summary.FinishTimeUs > 1.12*serial {
		t.Errorf("last FCT %.1f µs > 1.12 × serialization %.1f µs", r.Summary.FinishTimeUs, serial)
	}
	if r.Jain < 0.99 {
		t.Errorf("Jain %.4f < 0.99", r.Jain)
	}
}
