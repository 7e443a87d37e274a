package cc_test

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/scenario/assemble"
	"github.com/ccsim/ccsim/scenario/result"
	"github.com/ccsim/ccsim/sim"
)

// runWrappedScenario runs algorithm name on a scenario with every QP's
// algorithm wrapped by wrap (to observe what it sees).
func runWrappedScenario(t *testing.T, src, name string, wrap func(q *fabric.QP, a fabric.Algorithm) fabric.Algorithm) *result.Result {
	t.Helper()
	s, err := scenario.Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	b, err := assemble.Build(s, name, assemble.Options{})
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
	cnps         [][2]int64 // per flow: CNPs not congested, congested
}

func (m *pcnMarks) OnDataReceived(q *fabric.QP, ecn bool, payload int, mark uint8, now sim.Time) (bool, int64) {
	m.pkts[q.ID]++
	if mark&cc.PCNMark != 0 {
		m.marked[q.ID]++
	}
	notify, arg := m.Algorithm.(fabric.ReceiverAlgorithm).OnDataReceived(q, ecn, payload, mark, now)
	if notify {
		st := 0
		if _, congested := cc.DecodePCNArg(arg); congested {
			st = 1
		}
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
// (all their CNPs report congestion); NP-ECN leaves the victim's backlog
// behind a pause unmarked, so the victim gets no congested CNP. The
// incast's start-up queue drains only slowly under PCN's law (at the
// margin ω_min leaves, see TestPCNScenarioIncastConverges), so PFC still
// pauses the shared link now and then: the victim finishes at ≈ 1.6× its
// ideal FCT (np_ecn false: 2.5×, marked and cut like an incast flow), with
// a third of none's pause frames.
func TestPCNScenarioVictim(t *testing.T) {
	none := runAlgScenario(t, pcnVictimScenario(t, "{}"), "none")
	dcqcn := runAlgScenario(t, pcnVictimScenario(t, "{}"), "dcqcn")
	counts := func(np string) (*result.Result, *pcnMarks) {
		m := &pcnMarks{pkts: make([]int64, 4), marked: make([]int64, 4), cnps: make([][2]int64, 4)}
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
		r    *result.Result
	}{{"none", none}, {"dcqcn", dcqcn}, {"pcn", pcn}, {"pcn np_ecn false", pcnPlain}} {
		r := x.r
		t.Logf("%s: victim FCT %.1f µs (ideal %.1f); incast FCTs %.1f %.1f %.1f µs (serialization %.1f); pause frames %d, paused %.1f µs",
			x.name, r.Flows[0].FCT().Microseconds(), ideal, r.Flows[1].FCT().Microseconds(), r.Flows[2].FCT().Microseconds(),
			r.Flows[3].FCT().Microseconds(), serial, r.PFC.PauseFrames, r.PFC.PausedUs)
	}
	for i := 0; i < 4; i++ {
		t.Logf("pcn flow %d: %d of %d packets NP-ECN marked; CNPs not congested/congested %v (np_ecn false: %d marked, CNPs %v)",
			i, m.marked[i], m.pkts[i], m.cnps[i], plain.marked[i], plain.cnps[i])
	}

	victim := func(r *result.Result) float64 { return r.Flows[0].FCT().Microseconds() / ideal }
	if v := victim(none); v < 2 {
		t.Errorf("none: victim FCT only %.2f× ideal; the scenario does not show head-of-line blocking", v)
	}
	if v := victim(pcn); v > 1.75 || v > 0.75*victim(pcnPlain) {
		t.Errorf("pcn: victim FCT %.2f× ideal, want ≤ 1.75 and ≤ 0.75 × the %.2f× with np_ecn false", v, victim(pcnPlain))
	}
	if pcn.PFC.PauseFrames*2 > none.PFC.PauseFrames || pcn.PFC.PausedUs*3 > none.PFC.PausedUs {
		t.Errorf("pcn: %d pause frames / %.1f µs paused, want < 1/2 / 1/3 of none's %d / %.1f µs",
			pcn.PFC.PauseFrames, pcn.PFC.PausedUs, none.PFC.PauseFrames, none.PFC.PausedUs)
	}
	if m.cnps[0][1] != 0 || m.marked[0]*20 > m.pkts[0] {
		t.Errorf("NP-ECN: victim has %d congested CNPs and %d of %d packets marked, want 0 and < 5 %%",
			m.cnps[0][1], m.marked[0], m.pkts[0])
	}
	if plain.cnps[0][1] == 0 || plain.marked[0] < 4*m.marked[0] {
		t.Errorf("np_ecn false: victim has %d congested CNPs and %d marked packets; want the pause backlog marked (> 0, ≥ 4 × %d)",
			plain.cnps[0][1], plain.marked[0], m.marked[0])
	}
	for i := 1; i <= 3; i++ {
		if m.cnps[i][1] < 10 {
			t.Errorf("incast flow %d: only %d congested CNPs", i, m.cnps[i][1])
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

// The line-rate start fills the buffer and triggers PFC once (so does
// every algorithm that starts at line rate); the first CNPs then set every
// sender to its share × (1 − ω_min) and PFC stays quiet while the port is
// busy and the flows share it equally (without congestion control PFC
// pauses the senders for the whole transfer). The start-up queue is not
// drained fast: with every flow at R_recv·(1 − ω_min) the port gains only
// ω_min of its rate (0.78 Gb/s at 100 Gb/s; ≈ 3 Gb/s here, as one early
// interval measured a lower share), so ≈ 1.9 MB at 0.3 ms fall by only
// ≈ 0.8 MB by 2.5 ms — PCN's law as documented, not a quick drain.
func TestPCNScenarioIncastConverges(t *testing.T) {
	none := runAlgScenario(t, pcnIncast, "none")
	r := runAlgScenario(t, pcnIncast, "pcn")
	serial := 8 * 4e6 * 1048 / 1000 * 8 / 100e9 * 1e6
	var q300, q2500, prev int64 = -1, -1, -1
	grew := sim.Time(0)
	for _, q := range r.Queue {
		if q.At < 300*sim.Microsecond || q.At > 2500*sim.Microsecond || q.At%(100*sim.Microsecond) != 0 {
			continue
		}
		if q300 < 0 {
			q300 = q.Bytes
		}
		if prev >= 0 && q.Bytes > prev && grew == 0 {
			grew = q.At
		}
		prev, q2500 = q.Bytes, q.Bytes
	}
	t.Logf("none: pause frames %d, paused %.1f µs, RTT p50 %.1f µs", none.PFC.PauseFrames, none.PFC.PausedUs, none.RTT.P50Us)
	t.Logf("pcn: pause frames %d, paused %.1f µs; queue %.1f KB at 0.3 ms, %.1f KB at 2.5 ms (%.2f Gb/s drain); RTT p50 %.1f µs; last FCT %.1f µs (serialization %.1f); Jain %.4f",
		r.PFC.PauseFrames, r.PFC.PausedUs, float64(q300)/1e3, float64(q2500)/1e3, float64(q300-q2500)*8/2200e-6/1e9,
		r.RTT.P50Us, r.Summary.FinishTimeUs, serial, r.Jain)
	if grew != 0 {
		t.Errorf("queue grew again at %v: a sender overshot its share", grew)
	}
	if d := q300 - q2500; d <= 0 || d > 1_500_000 {
		t.Errorf("queue fell by %d B between 0.3 and 2.5 ms, want a slow drain (0, 1.5 MB]", d)
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

// pcnRates records, per flow, the rate after every CNP the sender handled.
type pcnRates struct {
	fabric.Algorithm
	at   [][]sim.Time
	rate [][]int64
}

func (r *pcnRates) OnNotice(q *fabric.QP, n *fabric.Notice, now sim.Time) {
	r.Algorithm.OnNotice(q, n, now)
	r.at[q.ID] = append(r.at[q.ID], now)
	r.rate[q.ID] = append(r.rate[q.ID], q.RateBps)
}

func (r *pcnRates) OnDataReceived(q *fabric.QP, ecn bool, payload int, mark uint8, now sim.Time) (bool, int64) {
	return r.Algorithm.(fabric.ReceiverAlgorithm).OnDataReceived(q, ecn, payload, mark, now)
}

// pcnIncastRecovery: 8:1 incast at 100 Gb/s; senders 0-6 send 1 MB, sender
// 7 sends 8 MB and is alone once the others are done.
const pcnIncastRecovery = `
name: pcn-incast-recovery
cc: [pcn]
stop_ms: 50
topology: {kind: star, hosts: 9, link_gbps: 100, link_delay_ns: 1000}
switch: {buffer_mib: 4}
workload:
  kind: incast
  incast: {senders: [0, 1, 2, 3, 4, 5, 6, 7], receiver: 8, sizes_bytes: [1000000, 1000000, 1000000, 1000000, 1000000, 1000000, 1000000, 8000000]}
`

// The receiver-driven rate adjustment in an incast: the first CNP reaches
// each sender one RTT + T after it started (the receiver's interval plus
// the path there and back) and sets its rate to its fair share, 1/8 of
// the port (12.5 Gb/s) × (1 − ω_min) = 12.40 Gb/s, in one step. When the
// seven short flows are done, the long flow is no longer congested and
// recovers: by the law (docs/algorithms/pcn.md) 17 CNPs take it from
// 12.40 Gb/s to 99 % of line rate, 850 µs at T = 50 µs.
func TestPCNScenarioIncastFairShareAndRecovery(t *testing.T) {
	rec := &pcnRates{at: make([][]sim.Time, 8), rate: make([][]int64, 8)}
	r := runWrappedScenario(t, pcnIncastRecovery, "pcn", func(q *fabric.QP, a fabric.Algorithm) fabric.Algorithm {
		return &pcnRates{Algorithm: a, at: rec.at, rate: rec.rate}
	})
	fair := 12.5e9 * 127 / 128
	for i := 0; i < 8; i++ {
		if len(rec.at[i]) == 0 {
			t.Fatalf("flow %d: no CNP", i)
		}
		first, rate := rec.at[i][0]-r.Flows[i].Start, rec.rate[i][0]
		t.Logf("flow %d: first CNP after %v, rate %.3f Gb/s; %d CNPs; FCT %.1f µs",
			i, first, float64(rate)/1e9, len(rec.at[i]), r.Flows[i].FCT().Microseconds())
		// T = 50 µs plus a base RTT of ≈ 4.2 µs (4 × 1 µs links, one
		// packet's serialization); 60 µs leaves room for the CNP's queueing
		if first > 60*sim.Microsecond {
			t.Errorf("flow %d: first CNP %v after the start, want ≤ T + RTT (60 µs)", i, first)
		}
		if math.Abs(float64(rate)-fair) > 0.01*fair {
			t.Errorf("flow %d: rate after the first CNP %.3f Gb/s, want the fair share × (1 − ω_min) = %.3f Gb/s ± 1 %%",
				i, float64(rate)/1e9, fair/1e9)
		}
	}
	var shortDone sim.Time
	for i := 0; i < 7; i++ {
		shortDone = max(shortDone, r.Flows[i].Finish)
	}
	reached := sim.Never
	for k, at := range rec.at[7] {
		if at > shortDone && rec.rate[7][k] >= 99e9 {
			reached = at
			break
		}
	}
	t.Logf("short flows done at %v; long flow at ≥ 99 Gb/s from %v (%v later); long FCT %.1f µs (ideal %.1f)",
		shortDone, reached, reached-shortDone, r.Flows[7].FCT().Microseconds(), r.Flows[7].IdealFCT.Microseconds())
	// 850 µs of increases plus the drain of the queue left behind
	if reached-shortDone > 1100*sim.Microsecond {
		t.Errorf("long flow reached 99 Gb/s %v after the short flows finished, want ≤ 1.1 ms", reached-shortDone)
	}
}
