package fabric

// Per-switch settings (Config.Switches): resolution into node and port
// fields, the per-switch headroom check, static thresholds at one switch
// and their cap by the free shared buffer.

import (
	"errors"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/sim"
	"github.com/ccsim/ccsim/topo"
	"github.com/ccsim/ccsim/workload"
)

func ptr[T any](v T) *T { return &v }

// dciLine is hosts 0, 1 on ToR 2, ToR 2 – DCI 3 (100 G, 1 µs), the long
// haul DCI 3 – DCI 4 (400 G, 1 ms), host 5 on DCI 4: a cross-DC path in
// miniature, with names and roles.
func dciLine() *topo.Graph {
	us := sim.Microsecond
	return &topo.Graph{
		Kinds: []topo.NodeKind{topo.Host, topo.Host, topo.Switch, topo.Switch, topo.Switch, topo.Host},
		Links: []topo.Link{
			{A: 0, B: 2, Bps: 100e9, Delay: us},
			{A: 1, B: 2, Bps: 100e9, Delay: us},
			{A: 2, B: 3, Bps: 100e9, Delay: us},
			{A: 3, B: 4, Bps: 400e9, Delay: sim.Millisecond},
			{A: 4, B: 5, Bps: 100e9, Delay: us},
		},
		Names:   []string{"A.h0", "A.h1", "A.tor0", "A.dci", "B.dci", "B.h0"},
		Domains: []uint16{1, 1, 1, 1, 2, 2},
		Roles:   []string{"host", "host", "tor", "dci", "dci", "host"},
	}
}

// dciOverride is paper 002's DCI switch: 250 MB, static PFC at 100 MB,
// headroom 2 × one-way BDP (100 MB on the 400 G, 1 ms long haul), no ECN.
func dciOverride() SwitchOverride {
	return SwitchOverride{Role: "dci", BufferBytes: ptr(int64(250e6)), PFC: ptr(PFCStatic),
		PFCStaticBytes: ptr(int64(100e6)), HeadroomRTTs: ptr(int64(2)), ECN: ptr(false)}
}

func TestSwitchOverridesResolve(t *testing.T) {
	g := dciLine()
	cfg := DefaultConfig()
	// without overrides the DCI switches cannot hold 3 × 50 MB of headroom
	// on the long haul in 32 MiB: the error names the first one
	_, err := New(g, cfg)
	var he *HeadroomError
	if !errors.As(err, &he) || he.Node != 3 || he.Name != "A.dci" || he.Role != "dci" || he.BufferBytes != 32<<20 ||
		he.HeadroomBytes != 3*12_500+3*50_000_000 || he.HeadroomRTTs != 3 {
		t.Fatalf("New without overrides = %v (%+v), want the headroom error of switch 3", err, he)
	}
	if !strings.Contains(err.Error(), "switch 3 (A.dci, role dci)") {
		t.Errorf("error %q does not name the switch", err)
	}

	cfg.Switches = []SwitchOverride{
		dciOverride(),
		{Nodes: []int{2}, ECNRule: []ECNRule{{Bps: 100e9, KminBytes: 1000, KmaxBytes: 2000, Pmax: 0.5}}},
		// later wins: B's DCI gets an explicit 60 MB headroom per port
		{Nodes: []int{4}, HeadroomBytes: ptr(int64(60e6))},
	}
	n, err := New(g, cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]SwitchSettings{
		2: {BufferBytes: 32 << 20, PFC: PFCDynamic, PFCStaticBytes: 512 << 10, ECN: true, HeadroomBytes: 3 * 3 * 12_500, ReserveBytes: 3 * 4096},
		3: {BufferBytes: 250e6, PFC: PFCStatic, PFCStaticBytes: 100e6, ECN: false, HeadroomBytes: 2*12_500 + 2*50_000_000, ReserveBytes: 2 * 4096},
		4: {BufferBytes: 250e6, PFC: PFCStatic, PFCStaticBytes: 100e6, ECN: false, HeadroomBytes: 2 * 60e6, ReserveBytes: 2 * 4096},
	}
	for sw, w := range want {
		if got := n.Switch(sw); got != w {
			t.Errorf("switch %d: %+v, want %+v", sw, got, w)
		}
	}
	port := func(node, k int) *Port { return &n.Ports[n.Nodes[node].FirstPort+int32(k)] }
	for _, c := range []struct {
		node, port int
		headroom   int64
	}{{2, 0, 37_500}, {2, 2, 37_500}, {3, 0, 25_000}, {3, 1, 100_000_000}, {4, 0, 60e6}, {4, 1, 60e6}} {
		if h := port(c.node, c.port).Headroom(); h != c.headroom {
			t.Errorf("node %d port %d: headroom %d, want %d", c.node, c.port, h, c.headroom)
		}
	}
	if r := port(2, 0).ECNRule(); r.KminBytes != 1000 || r.KmaxBytes != 2000 || r.Pmax != 0.5 {
		t.Errorf("ToR port 0: ECN rule %+v, want the override's", r)
	}
	if r := port(3, 1).ECNRule(); r.KminBytes != 1_600_000 || r.KmaxBytes != 6_400_000 {
		t.Errorf("DCI long-haul port: ECN rule %+v, want the fabric's 400 G rule", r)
	}
	// the static threshold of an empty DCI ingress is the static value;
	// the ToR's is dynamic: (32 MiB − headroom − reserves) >> 3
	if th := n.PFCThreshold(n.Nodes[3].FirstPort + 1); th != 100e6 {
		t.Errorf("DCI threshold %d, want 100e6", th)
	}
	if th := n.PFCThreshold(n.Nodes[2].FirstPort); th != (32<<20-3*37_500-3*4096)>>3 {
		t.Errorf("ToR threshold %d", th)
	}

	// PFC off at one DCI: no headroom there, later override wins
	cfg.Switches = append(cfg.Switches, SwitchOverride{Nodes: []int{4}, PFC: ptr(PFCOff)})
	n, err = New(g, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if s := n.Switch(4); s.PFC != PFCOff || s.HeadroomBytes != 0 {
		t.Errorf("switch 4 with pfc off: %+v", s)
	}
	// an extra allowance per port on top of the BDP rule
	cfg.Switches = append(cfg.Switches, SwitchOverride{Nodes: []int{3}, HeadroomExtraBytes: ptr(int64(4000))})
	if n, err = New(g, cfg); err != nil || n.Switch(3).HeadroomBytes != 2*12_500+2*50_000_000+2*4000 || n.Ports[n.Nodes[3].FirstPort+1].Headroom() != 100_004_000 {
		t.Errorf("headroom extra: %v %+v", err, n.Switch(3))
	}
	// headroom_rtts after headroom_bytes returns to the BDP rule
	cfg.Switches = append(cfg.Switches, SwitchOverride{Nodes: []int{4}, PFC: ptr(PFCStatic), HeadroomRTTs: ptr(int64(1))})
	if n, err = New(g, cfg); err != nil || n.Switch(4).HeadroomBytes != 12_500+50_000_000 {
		t.Errorf("headroom_rtts after headroom bytes: %v %+v", err, n.Switch(4))
	}
}

func TestSwitchOverrideErrors(t *testing.T) {
	g := dciLine()
	for _, c := range []struct {
		o    SwitchOverride
		want string
	}{
		{SwitchOverride{Nodes: []int{0}, ECN: ptr(false)}, "switch override 1: node 0 (A.h0) is not a switch"},
		{SwitchOverride{Nodes: []int{6}, ECN: ptr(false)}, "switch override 1: node 6 out of range [0, 6)"},
		{SwitchOverride{Role: "spine", ECN: ptr(false)}, `switch override 1: no switch has role "spine" (roles: tor, dci)`},
		{SwitchOverride{Role: "host", ECN: ptr(false)}, `no switch has role "host"`},
		{SwitchOverride{ECN: ptr(false)}, "switch override 1: selects no switch"},
		{SwitchOverride{Nodes: []int{2}, BufferBytes: ptr(int64(1000))}, "switch override 1: buffer 1000 B out of range [65536,"},
		{SwitchOverride{Nodes: []int{2}, PFCStaticBytes: ptr(int64(0))}, "pfc static threshold 0 B out of range [1,"},
		{SwitchOverride{Nodes: []int{2}, HeadroomRTTs: ptr(int64(-1))}, "headroom_rtts -1 out of range [0, 1000]"},
		{SwitchOverride{Nodes: []int{2}, HeadroomBytes: ptr(int64(-1))}, "headroom -1 B out of range [0,"},
		{SwitchOverride{Nodes: []int{2}, PFC: ptr(PFCMode(7))}, "pfc mode 7 unknown"},
		{SwitchOverride{Nodes: []int{2}, ECNRule: []ECNRule{{Bps: 1e9, KminBytes: 5, KmaxBytes: 4}}}, "ecn rule for 1000000000 b/s"},
	} {
		cfg := DefaultConfig()
		cfg.Switches = []SwitchOverride{dciOverride(), c.o}
		_, err := New(g, cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err = %v, want %q", c.o, err, c.want)
		}
	}
}

// A switch whose own (overridden) buffer is too small for its headroom is
// reported with its buffer and its per-port headroom, the others pass.
func TestHeadroomErrorPerSwitch(t *testing.T) {
	g := dciLine()
	cfg := DefaultConfig()
	o := dciOverride()
	cfg.Switches = []SwitchOverride{o, {Nodes: []int{4}, BufferBytes: ptr(int64(64e6))}}
	// B.dci: 2 × 12.5 KB + 100 MB headroom > 64 MB
	_, err := New(g, cfg)
	var he *HeadroomError
	if !errors.As(err, &he) || he.Node != 4 || he.Name != "B.dci" || he.BufferBytes != 64e6 || he.HeadroomBytes != 100_025_000 ||
		he.ReserveBytes != 8192 || he.HeadroomRTTs != 2 || he.MaxDelay != sim.Millisecond {
		t.Fatalf("err = %v (%+v), want B.dci's headroom error", err, he)
	}
	if want := "switch 4 (B.dci, role dci): PFC headroom 100025000 B (2 ports, 2 × one-way BDP, links up to 1ms) + reserves 8192 B = 100033192 B exceed the buffer of 64000000 B"; err.Error() != want {
		t.Errorf("error\n%s\nwant\n%s", err, want)
	}
	// an explicit per-port headroom: 2 × 40 MB > 64 MB
	cfg.Switches = append(cfg.Switches, SwitchOverride{Nodes: []int{4}, HeadroomBytes: ptr(int64(40e6))})
	if _, err = New(g, cfg); !errors.As(err, &he) || he.PortHeadroom != 40e6 || !strings.Contains(err.Error(), "(2 ports, 40000000 B per port)") {
		t.Errorf("explicit headroom: err = %v", err)
	}
	// 2 × 30 MB + reserves fit in 64 MB
	cfg.Switches[2].HeadroomBytes = ptr(int64(30e6))
	if _, err = New(g, cfg); err != nil {
		t.Errorf("30 MB per port in 64 MB: %v", err)
	}
}

// staticWatch checks the pause decisions of one switch with a static
// threshold th on every enqueue: a pause is sent exactly when the ingress
// (port, class)'s shared use reaches th (or the pool is full), never
// before, and the shared pool never exceeds the buffer.
type staticWatch struct {
	t        *testing.T
	th       int64
	paused   map[int32]bool
	pauses   int
	atPause  []int64 // shared use of the ingress when its pause was sent
	capPause int     // pauses sent below th because the pool was full
	maxPool  int64
}

func (w *staticWatch) OnEnqueue(v *SwitchView, inL, outL int, p *Packet, now sim.Time) {
	if p.Kind != KindData {
		return
	}
	n, sw, in := v.n, v.id, v.global(inL)
	nd := &n.Nodes[sw]
	ip := &n.Ports[in]
	c := p.Prio
	s := n.sharedOf(ip, c)
	pool := nd.bufferBytes - nd.totalHeadroom - nd.totalReserve
	w.maxPool = max(w.maxPool, nd.sharedUsed)
	if nd.sharedUsed > pool {
		w.t.Errorf("%v: shared use %d exceeds the pool %d", now, nd.sharedUsed, pool)
	}
	if ip.pauseSent[c] && !w.paused[in] {
		w.pauses++
		w.atPause = append(w.atPause, s)
		// the packet that would take the shared use past the threshold
		// goes to the headroom and sends the pause
		switch {
		case s <= w.th && s+int64(p.Size) > w.th:
			// exactly at the threshold
		case nd.sharedUsed+int64(p.Size) > pool:
			w.capPause++
		default:
			w.t.Errorf("%v: port %d paused at shared %d (threshold %d, pool %d/%d)", now, in, s, w.th, nd.sharedUsed, pool)
		}
	}
	if !ip.pauseSent[c] && s >= w.th {
		w.t.Errorf("%v: port %d not paused at shared %d >= %d", now, in, s, w.th)
	}
	w.paused[in] = ip.pauseSent[c]
}
func (w *staticWatch) OnDequeue(v *SwitchView, out int, p *Packet, now sim.Time) {
	n := v.n
	if p.Kind == KindData {
		w.paused[p.inPort] = n.Ports[p.inPort].pauseSent[p.Prio]
	}
}
func (w *staticWatch) OnPeriod(v *SwitchView, now sim.Time) {}

// A static-threshold switch (the DCI role) pauses its ingress exactly when
// the ingress's shared use reaches its own threshold, while the fabric
// default stays dynamic; nothing is dropped.
func TestStaticSwitchPausesAtItsThreshold(t *testing.T) {
	// host 0 sends at 100 G into a switch whose port to host 1 runs at 10 G
	g := topo.Star(2, 100e9, sim.Microsecond)
	g.Links[1].Bps = 10e9
	g.Roles = []string{"host", "host", "dci"}
	cfg := DefaultConfig()
	cfg.ECN = false
	cfg.Switches = []SwitchOverride{{Role: "dci", PFC: ptr(PFCStatic), PFCStaticBytes: ptr(int64(100_000))}}
	n := buildNet(t, g, cfg, []workload.Flow{{Src: 0, Dst: 1, Prio: 3, SizeBytes: 3_000_000}}, noCCCtor)
	w := &staticWatch{t: t, th: 100_000, paused: map[int32]bool{}}
	n.AddFeature(2, w)
	runChecked(t, n, 50*sim.Microsecond, nil)
	checkAllDone(t, n)
	if n.Stats.DataDropPackets != 0 || w.pauses == 0 || w.capPause != 0 {
		t.Errorf("drops %d, pauses %d (pool-capped %d), want no drop, pauses all at the threshold", n.Stats.DataDropPackets, w.pauses, w.capPause)
	}
	// the first pause: one more packet would have taken the shared use
	// past 100 000 B
	if s := w.atPause[0]; s > 100_000 || s <= 100_000-1048 {
		t.Errorf("first pause at shared use %d, want in (98952, 100000]", s)
	}
}

// Static thresholds whose sum exceeds the shared pool: the ingress queues
// are paused when the pool runs out (before their own thresholds), so the
// buffer is never overcommitted and nothing is dropped.
func TestStaticThresholdCappedByPool(t *testing.T) {
	// hosts 0, 1 at 100 G to host 2 behind a 10 G link
	g := topo.Star(3, 100e9, sim.Microsecond)
	g.Links[2].Bps = 10e9
	cfg := DefaultConfig()
	cfg.ECN = false
	// pool = 300 000 − 2 × 37 500 − 3 750 − 3 × 4096 = 208 962 B < 2 × 150 000
	cfg.Switches = []SwitchOverride{{Nodes: []int{3}, BufferBytes: ptr(int64(300_000)), PFC: ptr(PFCStatic), PFCStaticBytes: ptr(int64(150_000))}}
	n := buildNet(t, g, cfg, incastFlows(2, 2, 2_000_000, 0), noCCCtor)
	w := &staticWatch{t: t, th: 150_000, paused: map[int32]bool{}}
	n.AddFeature(3, w)
	runChecked(t, n, 50*sim.Microsecond, nil)
	checkAllDone(t, n)
	if n.Stats.DataDropPackets != 0 || w.capPause == 0 {
		t.Errorf("drops %d, pool-capped pauses %d of %d: want no drop and pauses by the pool", n.Stats.DataDropPackets, w.capPause, w.pauses)
	}
	if w.maxPool > 208_962 || w.maxPool < 208_962-1048 {
		t.Errorf("max shared use %d, want the pool 208962 filled to within a packet", w.maxPool)
	}
}
