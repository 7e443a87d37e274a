package fabric

// PFC, shared-buffer and loss-recovery tests: lossless incast under dynamic
// PFC, lossy incast recovered by go-back-N/NACK/RTO, byte conservation, the
// exact pause/resume rule of the reference MMU (docs/reference-simulator.md §7.3–7.5) and the
// guarantee that a paused transmitter sends nothing of the paused class.

import (
	"fmt"
	"testing"

	"github.com/ccsim/ccsim/sim"
	"github.com/ccsim/ccsim/topo"
	"github.com/ccsim/ccsim/workload"
)

// conservation checks that every data byte put on a host wire is either
// delivered to its destination host, still queued or on a wire, or dropped.
func conservation(n *Network) error {
	fp, fb := n.DataInFlight()
	s := &n.Stats
	if s.DataTxBytes != s.DataRxBytes+fb+s.DataDropBytes {
		return fmt.Errorf("bytes: tx %d != rx %d + in flight %d + dropped %d (diff %d)",
			s.DataTxBytes, s.DataRxBytes, fb, s.DataDropBytes, s.DataTxBytes-s.DataRxBytes-fb-s.DataDropBytes)
	}
	if s.DataTxPackets != s.DataRxPackets+fp+s.DataDropPackets {
		return fmt.Errorf("packets: tx %d != rx %d + in flight %d + dropped %d",
			s.DataTxPackets, s.DataRxPackets, fp, s.DataDropPackets)
	}
	return nil
}

// runChecked runs n, checking conservation every period (and calling also,
// if set), and returns the number of intermediate checks made.
func runChecked(t *testing.T, n *Network, period sim.Time, also func(n *Network, now sim.Time)) int {
	t.Helper()
	checks, fails := 0, 0
	n.Monitor(period, func(n *Network, now sim.Time) {
		checks++
		if also != nil {
			also(n, now)
		}
		if err := conservation(n); err != nil && fails < 5 {
			fails++
			t.Errorf("at %v: %v", now, err)
		}
	})
	n.Run()
	if err := conservation(n); err != nil {
		t.Errorf("at end (%v): %v", n.Now(), err)
	}
	return checks
}

func checkAllDone(t *testing.T, n *Network) {
	t.Helper()
	if n.Stats.FlowsDone != len(n.QPs) {
		t.Errorf("%d of %d flows done", n.Stats.FlowsDone, len(n.QPs))
	}
	for i := range n.QPs {
		q := &n.QPs[i]
		if !q.Done || q.SndUna != q.SizeBytes || q.rcvNxt != q.SizeBytes {
			t.Errorf("flow %d: done %v snd_una %d rcv_nxt %d size %d", i, q.Done, q.SndUna, q.rcvNxt, q.SizeBytes)
		}
	}
}

// TestIncastPFCLossless: 20-to-1 incast of 2 MB flows at line rate (no CC)
// on the reference incast20 star with dynamic PFC. The buffer must absorb
// the burst without a single drop, pausing the senders instead.
func TestIncastPFCLossless(t *testing.T) {
	g := topo.Star(21, 100e9, sim.Microsecond)
	n := buildNet(t, g, DefaultConfig(), incastFlows(20, 20, 2_000_000, 0), noCCCtor)
	// Sampled pause check: a sender port that is paused at two consecutive
	// samples without having received another pause frame in between was
	// paused throughout, so it must not have started any packet (the
	// senders transmit only data; the receiver's ACKs leave host 20).
	type snap struct {
		paused     bool
		pauseRx    int64
		tx, sndNxt int64
	}
	prev := make([]snap, 20)
	held := 0
	sample := func(n *Network, now sim.Time) {
		for h := range 20 {
			p := &n.Ports[n.Nodes[h].FirstPort]
			cur := snap{p.paused[3], p.Stats.PauseRx, p.Stats.TxPackets, n.QPs[h].SndNxt}
			if pr := prev[h]; pr.paused && cur.paused && pr.pauseRx == cur.pauseRx {
				held++
				if cur.tx != pr.tx || cur.sndNxt != pr.sndNxt {
					t.Errorf("%v: host %d paused since the last sample but sent %d packets (snd_nxt %d → %d)",
						now, h, cur.tx-pr.tx, pr.sndNxt, cur.sndNxt)
				}
			}
			prev[h] = cur
		}
	}
	checks := runChecked(t, n, 2*sim.Microsecond, sample)
	if held < 100 {
		t.Errorf("only %d sample pairs with a host paused throughout", held)
	}
	t.Logf("%d conservation checks, %d sample pairs with a sender paused throughout", checks, held)
	if checks < 100 {
		t.Errorf("only %d intermediate conservation checks", checks)
	}
	checkAllDone(t, n)
	s := &n.Stats
	if s.DataDropPackets != 0 || s.CtrlDrops != 0 || n.Nodes[21].Drops != 0 {
		t.Errorf("lossless fabric dropped: %d data, %d control, switch %d", s.DataDropPackets, s.CtrlDrops, n.Nodes[21].Drops)
	}
	if s.PauseFrames == 0 {
		t.Errorf("no PFC pause frames in a 20:1 line-rate incast")
	}
	if s.Retransmits != 0 || s.NackPackets != 0 || s.Timeouts != 0 {
		t.Errorf("lossless run retransmitted: retx %d nacks %d timeouts %d", s.Retransmits, s.NackPackets, s.Timeouts)
	}
	if want := int64(20 * 2000); s.DataTxPackets != want || s.DataRxPackets != want {
		t.Errorf("data packets tx %d rx %d, want %d", s.DataTxPackets, s.DataRxPackets, want)
	}
	// every pause is eventually followed by a resume (flows all finished);
	// frames alternate per (port, class), so counts match per port
	var paused, rx int64
	for p := n.Nodes[21].FirstPort; p < n.Nodes[21].FirstPort+21; p++ {
		ps := &n.Ports[p].Stats
		if ps.PauseSent != ps.ResumeSent {
			t.Errorf("switch port %d: %d pauses, %d resumes", p, ps.PauseSent, ps.ResumeSent)
		}
		paused += ps.PauseSent
		rx += n.Ports[n.Ports[p].Peer].Stats.PauseRx
	}
	if paused != s.PauseFrames || rx != s.PauseFrames {
		t.Errorf("pause frames: stats %d, sent by ports %d, received by hosts %d", s.PauseFrames, paused, rx)
	}
	// the bottleneck stayed busy: 40 MB at 100 Gb/s with 1048-B packets
	// takes 40000·83.84 ns = 3.3536 ms; allow the first packet's 2 hops and
	// the last ACK's return (< 10 µs).
	last := sim.Time(0)
	for i := range n.QPs {
		last = max(last, n.QPs[i].Finish)
	}
	if busy := 40_000 * sim.TxTime(1048, 100e9); last < busy || last > busy+10*sim.Microsecond {
		t.Errorf("last flow finished at %v, want within 10 µs after %v", last, busy)
	}
}

// TestIncastLossyRecovery: the same incast with PFC off, a 256 KiB switch
// buffer and a 1 ms RTO. Packets are dropped, and go-back-N (NACK) plus the
// RTO must still deliver every byte of every flow in order.
func TestIncastLossyRecovery(t *testing.T) {
	cfg := DefaultConfig()
	cfg.PFC = PFCOff
	cfg.BufferBytes = 256 << 10
	cfg.RTO = sim.Millisecond
	g := topo.Star(21, 100e9, sim.Microsecond)
	n := buildNet(t, g, cfg, incastFlows(20, 20, 2_000_000, 0), noCCCtor)
	n.SetStop(10 * sim.Second)
	runChecked(t, n, 20*sim.Microsecond, nil)
	checkAllDone(t, n)
	s := &n.Stats
	if s.DataDropPackets == 0 {
		t.Errorf("no drops with a 256 KiB lossy buffer")
	}
	if s.PauseFrames != 0 || s.ResumeFrames != 0 {
		t.Errorf("PFC off but %d pauses, %d resumes", s.PauseFrames, s.ResumeFrames)
	}
	if s.Retransmits == 0 || s.NackPackets == 0 {
		t.Errorf("drops were not repaired by go-back-N: retx %d nacks %d", s.Retransmits, s.NackPackets)
	}
	// at this loss rate NACK suppression (500 µs per expected byte) leaves
	// stalls that only the RTO repairs
	if s.Timeouts == 0 {
		t.Errorf("no retransmission timeouts in a heavily lossy incast")
	}
	t.Logf("drops %d data / %d ctrl, nacks %d, timeouts %d, retransmits %d, end %v",
		s.DataDropPackets, s.CtrlDrops, s.NackPackets, s.Timeouts, s.Retransmits, n.Now())
}

// pfcChecker is a switch feature that re-derives every PFC decision of the
// switch from the MMU state (docs/reference-simulator.md §7.5): after each admitted packet, and
// after each dequeue, the pause state of the packet's (ingress port, class)
// must be exactly what the rule gives for the current counters.
type pfcChecker struct {
	t        *testing.T
	shadow   map[[2]int32]bool // (ingress port, class) → pause in force
	pauses   map[int32]int64   // pauses seen sent per ingress port
	resumes  map[int32]int64
	errs     int
	checked  int64
	verified int64 // arrivals whose upstream pause state was checked
}

func (c *pfcChecker) fail(format string, a ...any) {
	if c.errs < 10 {
		c.t.Errorf(format, a...)
	}
	c.errs++
}

func (c *pfcChecker) OnEnqueue(v *SwitchView, inL, outL int, p *Packet, now sim.Time) {
	n, sw, in := v.n, v.id, v.global(inL)
	cl := p.Prio
	if p.Kind == KindCNP || cl == 0 {
		return
	}
	nd := &n.Nodes[sw]
	ip := &n.Ports[in]
	key := [2]int32{in, int32(cl)}
	cond := ip.headroomUsed[cl] > 0 || n.sharedOf(ip, cl) >= n.threshold(nd, ip, cl)
	c.checked++
	switch was, now2 := c.shadow[key], ip.pauseSent[cl]; {
	case !was && now2:
		c.pauses[in]++
		if !cond {
			c.fail("%v: pause sent for port %d class %d without reason: shared %d threshold %d headroom used %d",
				now, in, cl, n.sharedOf(ip, cl), n.threshold(nd, ip, cl), ip.headroomUsed[cl])
		}
	case was && !now2:
		c.fail("%v: pause of port %d class %d cleared on enqueue", now, in, cl)
	case !now2 && cond:
		c.fail("%v: port %d class %d not paused although shared %d >= threshold %d or headroom used %d",
			now, in, cl, n.sharedOf(ip, cl), n.threshold(nd, ip, cl), ip.headroomUsed[cl])
	}
	c.shadow[key] = ip.pauseSent[cl]
}

func (c *pfcChecker) OnDequeue(v *SwitchView, outL int, p *Packet, now sim.Time) {
	n, sw := v.n, v.id
	cl := p.Prio
	in := p.inPort
	nd := &n.Nodes[sw]
	ip := &n.Ports[in]
	key := [2]int32{in, int32(cl)}
	s := n.sharedOf(ip, cl)
	th := n.threshold(nd, ip, cl)
	resumeOK := ip.headroomUsed[cl] == 0 && (s == 0 || s+3072 <= th)
	c.checked++
	switch was, now2 := c.shadow[key], ip.pauseSent[cl]; {
	case was && !now2:
		c.resumes[in]++
		if !resumeOK {
			c.fail("%v: resume sent for port %d class %d with shared %d threshold %d headroom used %d",
				now, in, cl, s, th, ip.headroomUsed[cl])
		}
	case !was && now2:
		c.fail("%v: pause of port %d class %d set on dequeue", now, in, cl)
	case now2 && resumeOK:
		c.fail("%v: port %d class %d still paused although shared %d + 3072 <= threshold %d",
			now, in, cl, s, th)
	}
	c.shadow[key] = ip.pauseSent[cl]
}

func (c *pfcChecker) OnPeriod(v *SwitchView, now sim.Time) {}

// pauseLog records per transmitter (global port) the pause intervals from
// the PFC frames it received. PFCEvent carries no class; the tests using it
// send all data in class 3.
type pauseLog struct {
	n  *Network
	iv map[int32][][2]sim.Time // [pause, resume); resume = Never while open
}

func (l *pauseLog) record(ev PFCEvent) {
	pt := l.n.Nodes[ev.Node].FirstPort + ev.Port
	ivs := l.iv[pt]
	open := len(ivs) > 0 && ivs[len(ivs)-1][1] == sim.Never
	switch {
	case ev.Pause && !open:
		l.iv[pt] = append(ivs, [2]sim.Time{ev.At, sim.Never})
	case !ev.Pause && open:
		ivs[len(ivs)-1][1] = ev.At
	}
}

// pausedStrictly reports whether t lies strictly inside a pause interval of
// transmitter pt (a packet starting exactly at a pause or resume instant is
// legal either way: same-time events run in insertion order).
func (l *pauseLog) pausedStrictly(pt int32, t sim.Time) bool {
	for _, iv := range l.iv[pt] {
		if iv[0] < t && t < iv[1] {
			return true
		}
	}
	return false
}

// silentChecker verifies, for every packet of a non-zero class arriving at a
// switch, that its upstream transmitter was not paused when the packet
// started: start = arrival − delay − serialization.
type silentChecker struct {
	*pfcChecker
	log *pauseLog
}

func (c silentChecker) OnEnqueue(v *SwitchView, inL, outL int, p *Packet, now sim.Time) {
	c.pfcChecker.OnEnqueue(v, inL, outL, p, now)
	n, in := v.n, v.global(inL)
	if p.Prio == 0 || p.Kind == KindCNP {
		return
	}
	up := n.Ports[in].Peer
	u := &n.Ports[up]
	start := now - u.Delay - sim.TxTime(int64(p.Size), u.Bps)
	c.verified++
	if c.log.pausedStrictly(up, start) {
		c.fail("%s packet of flow %d started at %v on port %d (node %d) while it was paused for class %d",
			p.Kind, p.QP, start, up, u.Node, p.Prio)
	}
}

// twoTier is hosts 0–3 on switch 6 (A), hosts 4 and 5 on switch 7 (B), all
// links 100 Gb/s, 1 µs. Flows 0,1,2 → 4 and 5 → 4 congest B's port to host
// 4; B then pauses A, whose queue towards B grows until A pauses its hosts.
func twoTier() *topo.Graph {
	g := &topo.Graph{Kinds: []topo.NodeKind{topo.Host, topo.Host, topo.Host, topo.Host, topo.Host, topo.Host, topo.Switch, topo.Switch}}
	for _, l := range [][2]int{{0, 6}, {1, 6}, {2, 6}, {3, 6}, {6, 7}, {4, 7}, {5, 7}} {
		g.Links = append(g.Links, topo.Link{A: l[0], B: l[1], Bps: 100e9, Delay: sim.Microsecond})
	}
	return g
}

// TestPFCPauseResumeRule checks every PFC decision on two switches against
// the reference rule (pause once shared use reaches the dynamic threshold or
// headroom is used; resume when headroom is empty and shared use is 3072 B
// below the current threshold), that hosts and switch ports never start a
// packet of a paused class, and that the paused-time counters equal the
// received pause intervals.
func TestPFCPauseResumeRule(t *testing.T) {
	g := twoTier()
	flows := []workload.Flow{
		{Src: 0, Dst: 4, Prio: 3, SizeBytes: 3_000_000},
		{Src: 1, Dst: 4, Prio: 3, SizeBytes: 3_000_000},
		{Src: 2, Dst: 4, Prio: 3, SizeBytes: 3_000_000},
		{Src: 5, Dst: 4, Prio: 3, SizeBytes: 3_000_000},
	}
	cfg := DefaultConfig()
	cfg.BufferBytes = 4 << 20 // smaller buffer: both tiers pause many times
	n := buildNet(t, g, cfg, flows, noCCCtor)
	log := &pauseLog{n: n, iv: map[int32][][2]sim.Time{}}
	n.OnPFC(log.record)
	pc := &pfcChecker{t: t, shadow: map[[2]int32]bool{}, pauses: map[int32]int64{}, resumes: map[int32]int64{}}
	sc := silentChecker{pc, log}
	n.AddFeature(6, sc)
	n.AddFeature(7, sc)
	n.Run()
	checkAllDone(t, n)
	if n.Stats.DataDropPackets != 0 {
		t.Errorf("%d drops under PFC", n.Stats.DataDropPackets)
	}
	// the shadow transitions account for every frame each port sent
	for pt := range n.Ports {
		p := &n.Ports[pt]
		if !p.isSwitch {
			continue
		}
		if p.Stats.PauseSent != pc.pauses[int32(pt)] || p.Stats.ResumeSent != pc.resumes[int32(pt)] {
			t.Errorf("port %d: sent %d/%d pause/resume, rule checker saw %d/%d", pt,
				p.Stats.PauseSent, p.Stats.ResumeSent, pc.pauses[int32(pt)], pc.resumes[int32(pt)])
		}
	}
	// both the host tier and the switch-to-switch link were paused
	aToB := n.Nodes[6].FirstPort + 4
	hostPaused := 0
	for h := range int32(4) {
		if len(log.iv[n.Nodes[h].FirstPort]) > 0 {
			hostPaused++
		}
	}
	if len(log.iv[aToB]) == 0 || hostPaused == 0 {
		t.Errorf("scenario too gentle: switch A paused %d times, %d hosts of A paused", len(log.iv[aToB]), hostPaused)
	}
	// PausedTime = Σ received pause intervals (all closed at the end)
	for pt, ivs := range log.iv {
		var sum sim.Time
		for _, iv := range ivs {
			if iv[1] == sim.Never {
				t.Errorf("port %d still paused at the end", pt)
				continue
			}
			sum += iv[1] - iv[0]
		}
		if got := n.Ports[pt].Stats.PausedTime; got != sum {
			t.Errorf("port %d: PausedTime %v, Σ pause intervals %v", pt, got, sum)
		}
		if got := n.Ports[pt].Stats.PauseRx; got != int64(len(ivs)) {
			t.Errorf("port %d: PauseRx %d, pause intervals %d", pt, got, len(ivs))
		}
	}
	if pc.verified < 10_000 {
		t.Errorf("only %d arrivals checked", pc.verified)
	}
	t.Logf("%d pauses (%d on A→B), %d MMU checks, %d arrivals checked against pause state",
		n.Stats.PauseFrames, len(log.iv[aToB]), pc.checked, pc.verified)
}

// TestPFCThresholdInit checks the MMU constants of the reference incast20
// switch (docs/reference-simulator.md §7.3, §7.4,
// Appendix A): headroom 37,500 B per port,
// totalHeadroom 787,500, totalReserve 86,016, shift 3 and the initial
// dynamic threshold (32 MiB − 787,500 − 86,016) >> 3 = 4,085,114 B; and the
// shift rule for ports faster than the NIC.
func TestPFCThresholdInit(t *testing.T) {
	n, err := New(topo.Star(21, 100e9, sim.Microsecond), DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	sw := &n.Nodes[21]
	if sw.totalHeadroom != 787_500 || sw.totalReserve != 86_016 {
		t.Errorf("totalHeadroom %d totalReserve %d, want 787500 86016", sw.totalHeadroom, sw.totalReserve)
	}
	for k := range sw.NumPorts {
		p := &n.Ports[sw.FirstPort+k]
		if p.headroom != 37_500 || p.shift != 3 {
			t.Errorf("port %d: headroom %d shift %d, want 37500, 3", k, p.headroom, p.shift)
		}
		if th := n.threshold(sw, p, 1); th != 4_085_114 {
			t.Errorf("port %d: initial threshold %d, want 4085114", k, th)
		}
	}
	// a 100 G host under a switch with uplinks of 100 G … 1.6 T
	g := &topo.Graph{Kinds: []topo.NodeKind{topo.Host, topo.Switch, topo.Switch, topo.Switch, topo.Switch, topo.Switch, topo.Switch}}
	g.Links = append(g.Links, topo.Link{A: 0, B: 1, Bps: 100e9, Delay: sim.Microsecond})
	wantShift := []uint8{3, 3, 2, 1, 0, 0}
	for i, bps := range []int64{100e9, 200e9, 400e9, 800e9, 1600e9} {
		g.Links = append(g.Links, topo.Link{A: 1, B: 2 + i, Bps: bps, Delay: sim.Microsecond})
	}
	n, err = New(g, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	s1 := &n.Nodes[1]
	for k := range s1.NumPorts {
		p := &n.Ports[s1.FirstPort+k]
		if p.shift != wantShift[k] {
			t.Errorf("port %d at %d b/s: shift %d, want %d", k, p.Bps, p.shift, wantShift[k])
		}
		wantHR := p.Bps * 1000 / 8 / 1e9 * 3
		if p.headroom != wantHR {
			t.Errorf("port %d: headroom %d, want %d", k, p.headroom, wantHR)
		}
	}
}

// lossInjector is a switch feature that makes the next switch drop chosen
// data packets: on enqueue at this switch it readdresses them to a switch
// node, for which the next switch has no route (a counted data drop).
type lossInjector struct {
	qp    int32
	seq   int64
	times int        // drop the first `times` transmissions of seq
	to    int32      // a switch node id (no route)
	at    []sim.Time // times the victims were readdressed
}

func (l *lossInjector) OnEnqueue(v *SwitchView, in, out int, p *Packet, now sim.Time) {
	if p.Kind == KindData && p.QP == l.qp && p.Seq == l.seq && len(l.at) < l.times {
		p.Dst = l.to
		p.Hop = routeCacheHops // bypass the per-flow route cache
		l.at = append(l.at, now)
	}
}
func (l *lossInjector) OnDequeue(v *SwitchView, out int, p *Packet, now sim.Time) {}
func (l *lossInjector) OnPeriod(v *SwitchView, now sim.Time)                      {}

// chain is host 0 – switch 2 – switch 3 – host 1, 100 Gb/s, 1 µs links.
func chain() *topo.Graph {
	return &topo.Graph{
		Kinds: []topo.NodeKind{topo.Host, topo.Host, topo.Switch, topo.Switch},
		Links: []topo.Link{
			{A: 0, B: 2, Bps: 100e9, Delay: sim.Microsecond},
			{A: 2, B: 3, Bps: 100e9, Delay: sim.Microsecond},
			{A: 3, B: 1, Bps: 100e9, Delay: sim.Microsecond},
		},
	}
}

// lossyChain runs a lone 200-packet flow over chain() with the first
// transmission of packet victim dropped at switch 3.
func lossyChain(t *testing.T, victim int64, rto sim.Time) (*Network, *lossInjector) {
	cfg := DefaultConfig()
	cfg.RTO = rto
	n := buildNet(t, chain(), cfg, []workload.Flow{{Src: 0, Dst: 1, Prio: 3, SizeBytes: 200_000}}, noCCCtor)
	li := &lossInjector{qp: 0, seq: victim * 1000, times: 1, to: 3}
	n.AddFeature(2, li)
	n.SetStop(sim.Second)
	n.Run()
	if len(li.at) != 1 || n.Stats.DataDropPackets != 1 || n.Nodes[3].Drops != 1 {
		t.Fatalf("injected %d losses, %d data drops, switch drops %d; want 1", len(li.at), n.Stats.DataDropPackets, n.Nodes[3].Drops)
	}
	if err := conservation(n); err != nil {
		t.Error(err)
	}
	return n, li
}

// Exact timing on chain(): T = 83.84 ns per 1048-B packet, A = 4.8 ns per
// ACK, d = 1 µs. With the host sending back to back from 0, the packet that
// starts k-th (k = 0, 1, …) reaches host 1 at (k+3)·T + 3d and its ACK/NACK
// returns at (k+3)·T + 6d + 3A (no queueing: all links run at one rate).

// TestGoBackNExact: packet 10 of 200 is lost once; packet 11 makes the
// receiver NACK 10,000. The NACK reaches the sender at 14T + 6d + 3A =
// 71.73·T, when packets 0..85 have started, so go-back-N resends 10..199
// (76 retransmissions), packets 12..85 are discarded at the receiver and the
// flow ends at (276 − 1 + 3)·T + 6d + 3A. No RTO is needed (RTO off).
func TestGoBackNExact(t *testing.T) {
	T, A, d := sim.TxTime(1048, 100e9), sim.TxTime(60, 100e9), sim.Microsecond
	n, _ := lossyChain(t, 10, 0)
	q := &n.QPs[0]
	s := &n.Stats
	if !q.Done {
		t.Fatalf("flow not done: snd_una %d", q.SndUna)
	}
	nackAt := 14*T + 6*d + 3*A
	started := int64((nackAt + T - 1) / T) // packets 0..started-1 had started
	if started != 86 {
		t.Fatalf("test arithmetic: %d packets started before the NACK, want 86", started)
	}
	if s.NackPackets != 1 || q.Nacks != 1 || s.Timeouts != 0 {
		t.Errorf("nacks %d (qp %d) timeouts %d, want 1, 1, 0", s.NackPackets, q.Nacks, s.Timeouts)
	}
	if s.Retransmits != started-10 || q.RetxBytes != (started-10)*1000 {
		t.Errorf("retransmits %d (%d B), want %d", s.Retransmits, q.RetxBytes, started-10)
	}
	if s.DataTxPackets != 200+started-10 || s.DataRxPackets != s.DataTxPackets-1 {
		t.Errorf("data tx %d rx %d, want %d, %d", s.DataTxPackets, s.DataRxPackets, 200+started-10, 200+started-11)
	}
	if s.AckPackets != 200 {
		t.Errorf("%d ACKs, want 200 (one per in-order packet)", s.AckPackets)
	}
	if want := sim.Time(s.DataTxPackets+2)*T + 6*d + 3*A; q.Finish-q.Start != want {
		t.Errorf("FCT %d ps, want %d ps", q.Finish-q.Start, want)
	}
}

// TestTailLossRTO: the last packet is lost, so no later packet can cause a
// NACK. With RTO = 100 µs the sender goes back exactly RTO after the last
// ACK progress (the ACK of packet 198, at 201T + 6d + 3A) and the resent
// packet completes the flow 3T + 6d + 3A later. With the RTO off the flow
// never completes (the reference simulator's behaviour).
func TestTailLossRTO(t *testing.T) {
	T, A, d := sim.TxTime(1048, 100e9), sim.TxTime(60, 100e9), sim.Microsecond
	rto := 100 * sim.Microsecond
	n, _ := lossyChain(t, 199, rto)
	q := &n.QPs[0]
	s := &n.Stats
	if !q.Done {
		t.Fatalf("flow not done: snd_una %d", q.SndUna)
	}
	if s.Timeouts != 1 || s.Retransmits != 1 || s.NackPackets != 0 {
		t.Errorf("timeouts %d retransmits %d nacks %d, want 1, 1, 0", s.Timeouts, s.Retransmits, s.NackPackets)
	}
	last := 201*T + 6*d + 3*A
	if want := last + rto + 3*T + 6*d + 3*A; q.Finish-q.Start != want {
		t.Errorf("FCT %d ps, want %d ps (RTO fired %d ps late)", q.Finish-q.Start, want, q.Finish-q.Start-want)
	}

	n, _ = lossyChain(t, 199, 0)
	if q := &n.QPs[0]; q.Done || q.SndUna != 199_000 || n.Stats.FlowsDone != 0 {
		t.Errorf("RTO off: done %v snd_una %d; want the flow stuck at 199000", q.Done, q.SndUna)
	}
}

// TestSpuriousRTODuplicates: an RTO (3 µs) shorter than the path's RTT
// (≈ 6.3 µs) fires before the first ACK and makes the sender go back to 0.
// Nothing is lost, so the receiver sees only in-order packets and
// duplicates: it ACKs each of the 200 in-order packets once, discards every
// duplicate without an ACK (docs/reference-simulator.md §3.2) and never NACKs.
func TestSpuriousRTODuplicates(t *testing.T) {
	cfg := DefaultConfig()
	cfg.RTO = 3 * sim.Microsecond
	n := buildNet(t, chain(), cfg, []workload.Flow{{Src: 0, Dst: 1, Prio: 3, SizeBytes: 200_000}}, noCCCtor)
	n.SetStop(sim.Second)
	n.Run()
	s := &n.Stats
	if !n.QPs[0].Done {
		t.Fatalf("flow not done")
	}
	if s.Timeouts == 0 || s.Retransmits == 0 {
		t.Fatalf("no spurious timeout (timeouts %d, retransmits %d): scenario broken", s.Timeouts, s.Retransmits)
	}
	if s.AckPackets != 200 || s.NackPackets != 0 {
		t.Errorf("%d ACKs, %d NACKs; want 200 ACKs (duplicates unacknowledged), 0 NACKs", s.AckPackets, s.NackPackets)
	}
	if s.DataDropPackets != 0 {
		t.Errorf("%d drops", s.DataDropPackets)
	}
	if err := conservation(n); err != nil {
		t.Error(err)
	}
}

// sendProbe sends at line rate and checks, just before every data packet,
// that the packet starts at or above the oldest unacknowledged byte.
type sendProbe struct {
	noCC
	bad   *int
	first *string
}

func (p sendProbe) Start(q *QP, now sim.Time) { q.WantSendHook = true }
func (p sendProbe) OnSend(q *QP, size int, now sim.Time) {
	if q.SndNxt < q.SndUna {
		if *p.bad == 0 {
			*p.first = fmt.Sprintf("%v: flow %d sends seq %d below snd_una %d (in flight %d)", now, q.ID, q.SndNxt, q.SndUna, q.InFlight())
		}
		*p.bad++
	}
}

// TestRTONeverResendsAckedData: on twoTier() with dynamic PFC (lossless)
// and RTO = 10 µs, long PFC stalls make the RTO fire spuriously: the sender
// goes back to snd_una while its earlier packets are still queued. When
// their ACKs arrive, snd_una moves past snd_nxt, and go-back-N must then
// continue from snd_una: a packet below snd_una is already acknowledged,
// the receiver discards it as a duplicate, and InFlight() (snd_nxt −
// snd_una) turns negative, which also disables any window.
func TestRTONeverResendsAckedData(t *testing.T) {
	cfg := DefaultConfig()
	cfg.RTO = 10 * sim.Microsecond
	cfg.BufferBytes = 4 << 20
	flows := []workload.Flow{
		{Src: 0, Dst: 4, Prio: 3, SizeBytes: 3_000_000},
		{Src: 1, Dst: 4, Prio: 3, SizeBytes: 3_000_000},
		{Src: 2, Dst: 4, Prio: 3, SizeBytes: 3_000_000},
		{Src: 5, Dst: 4, Prio: 3, SizeBytes: 3_000_000},
	}
	bad, first := 0, ""
	n := buildNet(t, twoTier(), cfg, flows, func(*QP) Algorithm { return sendProbe{bad: &bad, first: &first} })
	n.SetStop(sim.Second)
	n.Run()
	checkAllDone(t, n)
	if n.Stats.Timeouts == 0 || n.Stats.DataDropPackets != 0 {
		t.Fatalf("scenario: %d timeouts (want > 0), %d drops (want 0)", n.Stats.Timeouts, n.Stats.DataDropPackets)
	}
	if bad > 0 {
		t.Errorf("%d data packets sent below snd_una; first: %s", bad, first)
	}
}

// global is the network-wide index of local port e (internal tests check
// the switch state behind the view).
func (v *SwitchView) global(e int) int32 { return v.first + int32(e) }
