package fabric

import (
	"strings"
	"testing"

	"github.com/ccsim/ccsim/sim"
	"github.com/ccsim/ccsim/topo"
	"github.com/ccsim/ccsim/workload"
)

// TestChainedFlowsStartAtPredecessorFinish: a chained flow starts exactly
// at its predecessor's completion plus its gap; one flow may start
// several; a flow whose predecessor does not complete never starts.
func TestChainedFlowsStartAtPredecessorFinish(t *testing.T) {
	const gap = 5 * sim.Microsecond
	flows := []workload.Flow{
		{Src: 0, Dst: 2, Prio: 3, SizeBytes: 50_000, Start: 3 * sim.Microsecond},
		{Src: 1, Dst: 2, Prio: 3, SizeBytes: 20_000, HasAfter: true, After: 0, Gap: gap},
		{Src: 0, Dst: 1, Prio: 3, SizeBytes: 1_000, HasAfter: true, After: 1},
		{Src: 2, Dst: 0, Prio: 3, SizeBytes: 7_500, HasAfter: true, After: 0},
		{Src: 1, Dst: 0, Prio: 3, SizeBytes: 30_000_000, Start: 0}, // long: still running at the stop
		{Src: 2, Dst: 1, Prio: 3, SizeBytes: 1_000, HasAfter: true, After: 4},
	}
	n := buildNet(t, topo.Star(3, 100e9, sim.Microsecond), DefaultConfig(), flows, noCCCtor)
	n.SetStop(200 * sim.Microsecond)
	n.Run()
	q := n.QPs
	for i, want := range []sim.Time{flows[0].Start, q[0].Finish + gap, q[1].Finish, q[0].Finish} {
		if !q[i].Done || !q[i].Started() {
			t.Fatalf("flow %d: done %v started %v", i, q[i].Done, q[i].Started())
		}
		if q[i].Start != want {
			t.Errorf("flow %d started at %v, want %v", i, q[i].Start, want)
		}
	}
	if q[4].Done || !q[4].Started() {
		t.Errorf("flow 4 (30 MB): done %v started %v, want started and unfinished at the stop", q[4].Done, q[4].Started())
	}
	if q[5].Started() || q[5].Done || q[5].TxPackets != 0 {
		t.Errorf("flow 5 (after the unfinished flow 4) started %v done %v sent %d packets, want never started", q[5].Started(), q[5].Done, q[5].TxPackets)
	}
	// the chain is really sequential: each start is after its predecessor's finish
	if !(q[1].Start > q[0].Finish && q[2].Start >= q[1].Finish) {
		t.Errorf("chain out of order: %v %v %v %v", q[0].Finish, q[1].Start, q[1].Finish, q[2].Start)
	}
}

// TestChainedFlowsErrors: invalid predecessors, cycles, negative fields.
func TestChainedFlowsErrors(t *testing.T) {
	f := func(after int, has bool) workload.Flow {
		return workload.Flow{Src: 0, Dst: 1, Prio: 3, SizeBytes: 1000, After: after, HasAfter: has}
	}
	cases := []struct {
		flows []workload.Flow
		want  string
	}{
		{[]workload.Flow{f(0, false), f(5, true)}, "flow 1: predecessor 5 is not a flow (flows 0..1)"},
		{[]workload.Flow{f(0, false), f(1, true)}, "flow 1: chained to itself"},
		{[]workload.Flow{f(0, false), f(2, true), f(3, true), f(1, true)}, "cycle"},
		{[]workload.Flow{{Src: 0, Dst: 1, Prio: 3, SizeBytes: 1, MaxInFlight: -1}}, "max in-flight -1 bytes is negative"},
		{[]workload.Flow{{Src: 0, Dst: 1, Prio: 3, SizeBytes: 1, Gap: -1}}, "gap -0.001ns is negative"},
		{[]workload.Flow{{Src: 0, Dst: 1, Prio: 3, SizeBytes: 1, Messages: -2}}, "-2 messages is negative"},
		{[]workload.Flow{{Src: 0, Dst: 1, Prio: 3, SizeBytes: 1, Until: -2}}, "until -0.002ns is negative"},
	}
	for _, c := range cases {
		n, err := New(topo.Star(2, 100e9, sim.Microsecond), DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		err = n.AddFlows(c.flows, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.flows, err, c.want)
		}
	}
	// a long acyclic chain and a tree are accepted
	var ok []workload.Flow
	ok = append(ok, f(0, false))
	for i := 1; i < 50; i++ {
		ok = append(ok, f(i/2, true))
	}
	n, _ := New(topo.Star(2, 100e9, sim.Microsecond), DefaultConfig())
	if err := n.AddFlows(ok, nil); err != nil {
		t.Fatal(err)
	}
	n.SetAlgorithm(noCCCtor)
	n.Run()
	if n.Stats.FlowsDone != 50 {
		t.Errorf("tree of 50 chained flows: %d done", n.Stats.FlowsDone)
	}
}

// windowCC gives every QP a fixed window (an algorithm's window).
type windowCC struct{ w int64 }

func (c windowCC) Start(q *QP, now sim.Time)              { q.SetWindow(c.w) }
func (windowCC) OnAck(q *QP, a *AckInfo, now sim.Time)    {}
func (windowCC) OnNotice(q *QP, nt *Notice, now sim.Time) {}
func (windowCC) OnTimer(q *QP, id int, now sim.Time)      {}
func (windowCC) OnSend(q *QP, size int, now sim.Time)     {}

// TestInFlightCapExact: on a long-delay link a flow capped at c bytes in
// flight sends c bytes per round trip. With 1000-B packets of T = 83.84 ns
// at 100 Gb/s, one-way link delay d = 1 ms and 60-B ACKs of A = 4.8 ns, a
// packet's round trip (send start → its ACK processed) is R = 2T + 4d + 2A
// on the idle two-hop path. With a cap of k packets, packet j = k·m + i
// starts at m·R + i·T (i < k, k·T < R), so a flow of k·M packets completes
// at M·R + (k−1)·T exactly: throughput c/R. The algorithm's window, when
// smaller, binds instead (the cap is min of both).
func TestInFlightCapExact(t *testing.T) {
	const (
		bps = int64(100e9)
		d   = sim.Millisecond
	)
	T := sim.TxTime(1048, bps)
	A := sim.TxTime(60, bps)
	R := 2*T + 4*d + 2*A
	cases := []struct {
		name   string
		cap    int64
		window int64 // the algorithm's window, 0 = none
		k      int64 // packets per round trip
	}{
		{"cap 10 packets", 10_000, 0, 10},
		{"cap 9.5 packets (a packet may start below the cap)", 9_500, 0, 10},
		{"cap 10, larger window", 10_000, 50_000, 10},
		{"cap 10, window 5 binds", 10_000, 5_000, 5},
		{"window 4 alone", 0, 4_000, 4},
	}
	for _, c := range cases {
		const packets = 100
		flows := []workload.Flow{{Src: 0, Dst: 1, Prio: 3, SizeBytes: packets * 1000, MaxInFlight: c.cap}}
		ctor := noCCCtor
		if c.window > 0 {
			ctor = func(*QP) Algorithm { return windowCC{c.window} }
		}
		cfg := DefaultConfig()
		cfg.PFC = PFCOff // no PFC headroom for the 1-ms links (nothing queues)
		n := buildNet(t, topo.Star(2, bps, d), cfg, flows, ctor)
		n.Run()
		q := &n.QPs[0]
		if n.Stats.DataDropPackets != 0 {
			t.Fatalf("%s: %d drops", c.name, n.Stats.DataDropPackets)
		}
		M := sim.Time(packets / c.k)
		want := M*R + sim.Time(c.k-1)*T
		if !q.Done || q.Finish-q.Start != want {
			t.Errorf("%s: FCT %v (done %v), want exactly %v = %d RTTs of %v + %d packets", c.name, q.Finish-q.Start, q.Done, want, M, R, c.k-1)
		}
		if got, wantBps := float64(packets*1000*8)/(q.Finish-q.Start).Seconds(), float64(c.k*1000*8)/R.Seconds(); got > wantBps*1.001 || got < wantBps*0.99 {
			t.Errorf("%s: goodput %.4g b/s, want about k·1000 B / R = %.4g b/s", c.name, got, wantBps)
		}
	}
}

// TestMessageChainExact: a message chain on an idle path: every message
// takes exactly the lone-message FCT (each message segmented on its own:
// 2500 B = 1000 + 1000 + 500), the next is posted exactly gap after the
// previous completes, Until stops the posts, and the QP finishes with the
// last message. A chain without a gap posts at the completion itself.
func TestMessageChainExact(t *testing.T) {
	const (
		bps  = int64(100e9)
		d    = sim.Microsecond
		size = 2500
	)
	lone := analyticFCT(size, 1000, bps, d)
	for _, gap := range []sim.Time{0, 3 * sim.Microsecond} {
		for _, c := range []struct {
			messages int64
			until    sim.Time
		}{{7, 0}, {workload.MessagesUnlimited, 100 * sim.Microsecond}} {
			start := 2 * sim.Microsecond
			flows := []workload.Flow{{Src: 0, Dst: 1, Prio: 3, SizeBytes: size, Start: start, Messages: c.messages, Until: c.until, Gap: gap}}
			n := buildNet(t, topo.Star(2, bps, d), DefaultConfig(), flows, noCCCtor)
			type msg struct {
				i          int64
				post, done sim.Time
			}
			var got []msg
			n.OnMessageDone = func(q *QP, i int64, post, done sim.Time) { got = append(got, msg{i, post, done}) }
			n.Run()
			q := &n.QPs[0]
			want := c.messages
			if c.until > 0 {
				// message k is posted at start + k·(lone + gap) while that is before until
				want = int64((c.until-start-1)/(lone+gap)) + 1
			}
			if int64(len(got)) != want || !q.Done {
				t.Fatalf("gap %v messages %d until %v: %d messages completed, done %v; want %d", gap, c.messages, c.until, len(got), q.Done, want)
			}
			for k, m := range got {
				wantPost := start + sim.Time(k)*(lone+gap)
				if m.i != int64(k) || m.post != wantPost || m.done-m.post != lone {
					t.Errorf("gap %v: message %d (index %d) posted %v latency %v; want posted %v latency %v", gap, k, m.i, m.post, m.done-m.post, wantPost, lone)
				}
			}
			if q.Finish != got[len(got)-1].done || q.SizeBytes != want*size || q.TxPackets != 3*want {
				t.Errorf("gap %v: finish %v (last message %v), size %d, %d packets; want %d B in %d packets", gap, q.Finish, got[len(got)-1].done, q.SizeBytes, q.TxPackets, want*size, 3*want)
			}
			if posted, done, ok := n.MessageChain(q); !ok || posted != want || done != want {
				t.Errorf("MessageChain: %d posted %d done %v", posted, done, ok)
			}
		}
	}
}

// TestMessageChainMemory: a chain of many messages keeps one QP and does
// not grow the network's state with the messages sent.
func TestMessageChainMemory(t *testing.T) {
	flows := []workload.Flow{{Src: 0, Dst: 1, Prio: 3, SizeBytes: 64, Messages: 20_000}}
	n := buildNet(t, topo.Star(2, 100e9, sim.Microsecond), DefaultConfig(), flows, noCCCtor)
	count := 0
	n.OnMessageDone = func(*QP, int64, sim.Time, sim.Time) { count++ }
	n.Run()
	if count != 20_000 || len(n.QPs) != 1 || len(n.chains) != 1 || !n.QPs[0].Done {
		t.Fatalf("%d messages, %d QPs, %d chains", count, len(n.QPs), len(n.chains))
	}
	if live := n.PacketsLive(); live != 0 || len(n.pkts) > 4 {
		t.Errorf("%d packets live, pool of %d after 20,000 messages", live, len(n.pkts))
	}
}

// TestMessageRingExact: a process on host 0 posts 2,500-B messages round
// robin to hosts 1, 2 and 3 over three queue pairs (a message ring), each
// message gap after the previous one completed. On the idle star every
// message takes the lone-flow time, so message k (of the process) is
// posted at start + k·(lone + gap) on queue pair k mod 3, which is its
// (k div 3)-th message; members 1 and 2 start at their first turn; no
// member completes; each queue pair's bytes are its messages'.
func TestMessageRingExact(t *testing.T) {
	const (
		bps  = int64(100e9)
		d    = sim.Microsecond
		size = 2500
		stop = 100 * sim.Microsecond
	)
	lone := analyticFCT(size, 1000, bps, d)
	for _, gap := range []sim.Time{0, 3 * sim.Microsecond} {
		start := 2 * sim.Microsecond
		flows := []workload.Flow{
			{Src: 0, Dst: 1, Prio: 3, SizeBytes: size, Start: start, HasNext: true, Next: 1, Gap: gap},
			{Src: 0, Dst: 2, Prio: 3, SizeBytes: size, HasAfter: true, After: 0, Gap: gap, HasNext: true, Next: 2},
			{Src: 0, Dst: 3, Prio: 3, SizeBytes: size, HasAfter: true, After: 1, Gap: gap, HasNext: true, Next: 0},
		}
		n := buildNet(t, topo.Star(4, bps, d), DefaultConfig(), flows, noCCCtor)
		n.SetStop(stop)
		type msg struct {
			qp         int32
			i          int64
			post, done sim.Time
		}
		var got []msg
		n.OnMessageDone = func(q *QP, i int64, post, done sim.Time) { got = append(got, msg{q.ID, i, post, done}) }
		n.Run()
		want := int((stop-start-lone)/(lone+gap)) + 1 // messages completed by the stop
		if len(got) != want {
			t.Fatalf("gap %v: %d messages completed, want %d", gap, len(got), want)
		}
		per := [3]int64{}
		for k, m := range got {
			wantPost := start + sim.Time(k)*(lone+gap)
			if m.qp != int32(k%3) || m.i != int64(k/3) || m.post != wantPost || m.done-m.post != lone {
				t.Errorf("gap %v: message %d on QP %d (index %d) posted %v latency %v; want QP %d index %d posted %v latency %v",
					gap, k, m.qp, m.i, m.post, m.done-m.post, k%3, k/3, wantPost, lone)
			}
			per[m.qp]++
		}
		for i := range n.QPs {
			q := &n.QPs[i]
			wantStart := start + sim.Time(i)*(lone+gap)
			if q.Done || q.Start != wantStart || q.SizeBytes < per[i]*size || q.SizeBytes > (per[i]+1)*size {
				t.Errorf("gap %v: QP %d done %v start %v (want %v) size %d for %d messages completed", gap, i, q.Done, q.Start, wantStart, q.SizeBytes, per[i])
			}
		}
	}
}

// TestMessageRingErrors: the ring rules of workload.CheckRings.
func TestMessageRingErrors(t *testing.T) {
	m := func(next int, after int, hasAfter bool) workload.Flow {
		return workload.Flow{Src: 0, Dst: 1, Prio: 3, SizeBytes: 1000, HasNext: true, Next: next, After: after, HasAfter: hasAfter}
	}
	plain := workload.Flow{Src: 0, Dst: 1, Prio: 3, SizeBytes: 1000}
	withMsgs := m(0, 0, true)
	withMsgs.Messages = 3
	cases := []struct {
		flows []workload.Flow
		want  string
	}{
		{[]workload.Flow{m(1, 0, false), plain}, "flow 0: ring successor 1 is not a ring member"},
		{[]workload.Flow{m(0, 0, false)}, "flow 0: ring successor 0 is not another flow"},
		{[]workload.Flow{m(7, 0, false)}, "flow 0: ring successor 7 is not another flow (flows 0..0)"},
		{[]workload.Flow{m(1, 0, false), withMsgs}, "flow 1: a ring member carries one message at a time"},
		{[]workload.Flow{m(2, 0, false), m(2, 0, true), m(0, 1, true)}, "flow 1: ring successor 2 is already the successor of flow 0"},
		{[]workload.Flow{m(1, 0, false), m(2, 0, true), m(0, 0, true)}, "flow 2: a ring member must be chained to its ring predecessor 1 (after = 0)"},
		{[]workload.Flow{m(1, 0, false), m(0, 0, false)}, "its ring has 2 members with a start time of their own, want exactly 1"},
	}
	for _, c := range cases {
		n, err := New(topo.Star(2, 100e9, sim.Microsecond), DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		err = n.AddFlows(c.flows, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.flows, err, c.want)
		}
	}
}

// TestTwoPredecessors: a flow with a second predecessor starts its gap
// after the later of the two completes (an MPI round waiting for its send
// and its receive), whichever of the two is named first; a flow one of
// whose predecessors never completes never starts; bad second
// predecessors and cycles through them are refused.
func TestTwoPredecessors(t *testing.T) {
	const gap = 2 * sim.Microsecond
	flows := []workload.Flow{
		{Src: 0, Dst: 2, Prio: 3, SizeBytes: 50_000, Start: 0},
		{Src: 1, Dst: 2, Prio: 3, SizeBytes: 20_000, Start: 4 * sim.Microsecond},
		{Src: 2, Dst: 0, Prio: 3, SizeBytes: 1_000, HasAfter: true, After: 0, HasAlsoAfter: true, AlsoAfter: 1, Gap: gap},
		{Src: 2, Dst: 1, Prio: 3, SizeBytes: 1_000, HasAfter: true, After: 1, HasAlsoAfter: true, AlsoAfter: 0, Gap: gap},
		{Src: 1, Dst: 0, Prio: 3, SizeBytes: 30_000_000, Start: 0}, // still running at the stop
		{Src: 0, Dst: 1, Prio: 3, SizeBytes: 1_000, HasAfter: true, After: 2, HasAlsoAfter: true, AlsoAfter: 4},
	}
	n := buildNet(t, topo.Star(3, 100e9, sim.Microsecond), DefaultConfig(), flows, noCCCtor)
	n.SetStop(200 * sim.Microsecond)
	n.Run()
	q := n.QPs
	later := max(q[0].Finish, q[1].Finish)
	if !q[0].Done || !q[1].Done || q[0].Finish == q[1].Finish {
		t.Fatalf("flows 0 and 1: done %v %v, finish %v %v", q[0].Done, q[1].Done, q[0].Finish, q[1].Finish)
	}
	for _, i := range []int{2, 3} {
		if !q[i].Started() || q[i].Start != later+gap {
			t.Errorf("flow %d started %v at %v, want %v (the later predecessor %v + gap)", i, q[i].Started(), q[i].Start, later+gap, later)
		}
	}
	if q[5].Started() {
		t.Errorf("flow 5 started at %v although flow 4 never completed", q[5].Start)
	}
	f := func(after int, hasAlso bool, also int) workload.Flow {
		return workload.Flow{Src: 0, Dst: 1, Prio: 3, SizeBytes: 1000, After: after, HasAfter: after >= 0, AlsoAfter: also, HasAlsoAfter: hasAlso}
	}
	for _, c := range []struct {
		flows []workload.Flow
		want  string
	}{
		{[]workload.Flow{f(-1, false, 0), f(-1, true, 0)}, "flow 1: a second predecessor (0) needs a first"},
		{[]workload.Flow{f(-1, false, 0), f(0, true, 0)}, "flow 1: second predecessor 0 is also its first"},
		{[]workload.Flow{f(-1, false, 0), f(0, true, 9)}, "flow 1: second predecessor 9 is not a flow (flows 0..1)"},
		{[]workload.Flow{f(-1, false, 0), f(0, true, 1)}, "flow 1: chained to itself"},
		{[]workload.Flow{f(-1, false, 0), f(0, true, 2), f(1, false, 0)}, "flows chained in a cycle"},
	} {
		n, err := New(topo.Star(2, 100e9, sim.Microsecond), DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		if err := n.AddFlows(c.flows, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.flows, err, c.want)
		}
	}
}
