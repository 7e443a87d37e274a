package assemble_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/scenario/assemble"
	"github.com/ccsim/ccsim/sim"
)

const rateTraceIncast = `
name: ratetrace
seed: 1
stop_ms: 100
topology: {kind: star, hosts: 5, link_gbps: 100, link_delay_ns: 1000}
switch: {buffer_mib: 32, pfc: dynamic}
workload:
  incast: {senders: [0, 1, 2, 3], receiver: 4, sizes_bytes: [400000, 300000, 200000, 100000], start_ns: 0}
outputs: {rate_trace_flows: [0, 2]}
`

// rate_trace.csv replays each traced flow's pacing rate and window: its
// first row is the line rate and no window at the flow's start, every row
// changes the rate or the window, the last row holds the rate and window
// the flow ends with, and the rate's decreases are exactly the flow's rate
// cuts (QP.RateCuts counts every setting below the current rate). Untraced
// flows have no rows; tracing does not change the run. dcqcn sets its rate
// with SetRate, hpcc with SetRateRepace and its window with SetWindow.
func TestRateTrace(t *testing.T) {
	for _, alg := range []string{"dcqcn", "hpcc"} {
		s := mustParse(t, rateTraceIncast)
		b, err := assemble.Build(s, alg, scenarioRunOpts())
		if err != nil {
			t.Fatal(err)
		}
		res := b.Run()
		rows := map[int32]int{}
		last := map[int32]int64{}
		lastW := map[int32]int64{}
		cuts := map[int32]int64{}
		var prevAt sim.Time
		for i, c := range res.RateTrace {
			if c.Flow != 0 && c.Flow != 2 {
				t.Fatalf("%s: row %d traces flow %d", alg, i, c.Flow)
			}
			q := &b.Net.QPs[c.Flow]
			if c.At < prevAt {
				t.Fatalf("%s: row %d at %v before %v", alg, i, c.At, prevAt)
			}
			prevAt = c.At
			if rows[c.Flow] == 0 {
				if c.At != q.Start || c.Bps != q.LineRateBps || c.Window != 0 {
					t.Errorf("%s flow %d: first row %v %d b/s window %d, want start %v, line rate %d, no window", alg, c.Flow, c.At, c.Bps, c.Window, q.Start, q.LineRateBps)
				}
			} else {
				if c.Bps == last[c.Flow] && c.Window == lastW[c.Flow] {
					t.Errorf("%s flow %d: row %d repeats %d b/s, window %d", alg, c.Flow, i, c.Bps, c.Window)
				}
				if c.Bps < last[c.Flow] {
					cuts[c.Flow]++
				}
			}
			rows[c.Flow]++
			last[c.Flow] = c.Bps
			lastW[c.Flow] = c.Window
		}
		for _, f := range []int32{0, 2} {
			q := &b.Net.QPs[f]
			if rows[f] < 3 || last[f] != q.RateBps || lastW[f] != q.WindowBytes || cuts[f] != q.RateCuts || q.RateCuts == 0 {
				t.Errorf("%s flow %d: %d rows, last %d b/s window %d (QP %d, %d), %d decreases (rate cuts %d)", alg, f, rows[f], last[f], lastW[f], q.RateBps, q.WindowBytes, cuts[f], q.RateCuts)
			}
			if alg == "hpcc" && lastW[f] == 0 {
				t.Errorf("hpcc flow %d: no window traced", f)
			}
		}
		dir := filepath.Join(t.TempDir(), "out")
		if err := res.Write(dir); err != nil {
			t.Fatal(err)
		}
		csv, err := os.ReadFile(filepath.Join(dir, "rate_trace.csv"))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(csv)), "\n")
		if lines[0] != "flow_id,time_ns,rate_bps,window_bytes" || len(lines)-1 != len(res.RateTrace) || lines[1] != "0,0,100000000000,0" {
			t.Errorf("%s: rate_trace.csv header %q, %d rows (want %d), first %q", alg, lines[0], len(lines)-1, len(res.RateTrace), lines[1])
		}
		s2 := mustParse(t, strings.Replace(rateTraceIncast, "outputs: {rate_trace_flows: [0, 2]}", "", 1))
		b2, err := assemble.Build(s2, alg, scenarioRunOpts())
		if err != nil {
			t.Fatal(err)
		}
		if res2 := b2.Run(); res2.RateTrace != nil || res2.Summary != res.Summary || res2.Events != res.Events {
			t.Errorf("%s off: %d rows; the run must not change (%d vs %d events)", alg, len(res2.RateTrace), res2.Events, res.Events)
		}
	}
}

func TestRateTraceValidation(t *testing.T) {
	if _, err := scenarioParse(strings.Replace(rateTraceIncast, "[0, 2]", "[0, -3]", 1)); err == nil || !strings.Contains(err.Error(), "outputs.rate_trace_flows[1] = -3: a flow index, >= 0") {
		t.Errorf("error %v", err)
	}
	s := mustParse(t, strings.Replace(rateTraceIncast, "[0, 2]", "[4]", 1))
	if _, err := assemble.Build(s, "dcqcn", scenarioRunOpts()); err == nil || !strings.Contains(err.Error(), "outputs.rate_trace_flows[0] = 4: the workload has flows 0..3") {
		t.Errorf("build error %v", err)
	}
}

// flow_stats.csv's decisions are the algorithm's own count (cc.DecisionCounter):
// decc's policy runs, HPCC's per-ACK updates (at most one per ACK), an
// agent's boundaries; dcqcn counts none.
func TestFlowStatsDecisions(t *testing.T) {
	for _, alg := range []string{"decc", "hpcc", "adpg", "dcqcn"} {
		s := mustParse(t, strings.Replace(rateTraceIncast, "outputs: {rate_trace_flows: [0, 2]}", "", 1))
		b, err := assemble.Build(s, alg, scenarioRunOpts())
		if err != nil {
			t.Fatal(err)
		}
		res := b.Run()
		for i, st := range res.FlowStats {
			q := &b.Net.QPs[i]
			var want int64
			switch c := q.CC.(type) {
			case *cc.DECC:
				want = c.Decisions
			case *cc.HPCC:
				want = c.Updates
				if want > q.TxPackets {
					t.Errorf("hpcc flow %d: %d updates for %d packets", i, want, q.TxPackets)
				}
			case cc.DecisionCounter:
				want = c.DecisionCount()
			}
			if st.Decisions != want || (alg == "dcqcn") != (want == 0) {
				t.Errorf("%s flow %d: decisions %d, want %d", alg, i, st.Decisions, want)
			}
		}
	}
}

// A DECC sender takes no decision in the MTPs of an idle flow (I26): a
// message ring of two queue pairs on the 3-host star, 10-KB messages 40 µs
// apart; between its turns each queue pair idles for about 80 µs, some 19
// MTPs of 4.2 µs, neither observed nor decided; every other MTP decides.
func TestDECCIdleMTPs(t *testing.T) {
	s := mustParse(t, `cc: [decc]
stop_ms: 0.3
topology: {kind: star, hosts: 3, link_gbps: 100, link_delay_ns: 1000}
workload:
  flows:
    - {src: 0, dst: 1, size_bytes: 10000, start_ns: 0, next: 1, gap_ns: 40000}
    - {src: 0, dst: 2, size_bytes: 10000, after: 0, next: 0, gap_ns: 40000}
`)
	b, err := assemble.Build(s, "decc", scenarioRunOpts())
	if err != nil {
		t.Fatal(err)
	}
	res := b.Run()
	for i := range b.Net.QPs {
		d := b.Net.QPs[i].CC.(*cc.DECC)
		if d.Idle < 30 || d.Decisions < 3 || d.Decisions != d.MTPs || d.Decisions > d.Idle || res.FlowStats[i].Decisions != d.Decisions {
			t.Errorf("flow %d: %d MTPs observed, %d decisions, %d idle MTPs (flow_stats %d)", i, d.MTPs, d.Decisions, d.Idle, res.FlowStats[i].Decisions)
		}
	}
}
