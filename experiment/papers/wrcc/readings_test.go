package wrcc

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/topo"
)

// store is a result store of the paper for resolving run specs.
func store(t *testing.T) *experiment.Store {
	t.Helper()
	p, err := experiment.Lookup("wrcc")
	if err != nil {
		t.Fatal(err)
	}
	st, err := experiment.OpenStore(t.TempDir(), p)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// under resolves spec under reading rd at scale sc, as the machinery
// does (the reading's Patch, then its PatchRun, merged last).
func under(t *testing.T, st *experiment.Store, spec experiment.RunSpec, rd experiment.Reading, sc experiment.Scale) *experiment.Resolved {
	t.Helper()
	if rd.Patch != nil {
		spec.Patch = experiment.Merge(spec.Patch, rd.Patch(sc))
	}
	if rd.PatchRun != nil {
		spec.Patch = experiment.Merge(spec.Patch, rd.PatchRun(sc, spec))
	}
	r, err := st.Resolve(spec)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func reading(t *testing.T, e *experiment.Experiment, id string) experiment.Reading {
	t.Helper()
	for _, r := range e.Readings {
		if r.ID == id {
			return r
		}
	}
	t.Fatalf("%s: no reading %s", e.ID, id)
	return experiment.Reading{}
}

func check(t *testing.T, e *experiment.Experiment, id string) experiment.Check {
	t.Helper()
	for _, c := range e.Checks {
		if c.ID == id {
			return c
		}
	}
	t.Fatalf("%s: no check %s", e.ID, id)
	return experiment.Check{}
}

// E1–E3 declare the four readings (load basis × line 3), the host basis
// with the printed line 3 primary; the checks derive the printed 50 %
// incast load and the network load back from each reading's resolved
// scenario, so the long-haul basis is inconsistent with both; line 3's
// patch reaches WRCC only (a DCQCN run is one run under both line-3
// readings). Fails before issue 16: no readings, no checks.
func TestCrossDCReadings(t *testing.T) {
	st := store(t)
	want := []string{"host-printed", "host-i21", "longhaul-printed", "longhaul-i21"}
	// derived per reading: incast-load, net-load (E1 at 60 %, E2 at 30 %)
	derived := map[string]map[string][2]float64{
		"e1": {"host-printed": {50, 60}, "longhaul-printed": {30, 4.5}},
		"e2": {"host-printed": {50, 30}, "longhaul-printed": {15, 2.25}},
		"e3": {"host-i21": {50, 60}, "longhaul-i21": {30, 4.5}},
	}
	for _, e := range []*experiment.Experiment{e1(), e2(), e3()} {
		var ids []string
		primary := 0
		for _, r := range e.Readings {
			ids = append(ids, r.ID)
			if r.Primary {
				primary++
				if r.ID != "host-printed" {
					t.Errorf("%s: primary %s", e.ID, r.ID)
				}
			}
		}
		if !slices.Equal(ids, want) || primary != 1 {
			t.Errorf("%s: readings %v (%d primary), want %v", e.ID, ids, primary, want)
		}
		first := e.Runs(experiment.ScalePaper)[0]
		for rid, d := range derived[e.ID] {
			s := under(t, st, first, reading(t, e, rid), experiment.ScalePaper).Scenario
			for i, cid := range []string{"incast-load", "net-load"} {
				c := check(t, e, cid)
				v, err := c.Derive(s)
				if err != nil || math.Abs(v-d[i]) > 1e-9 {
					t.Errorf("%s %s: %s = %v (%v), want %v", e.ID, rid, cid, v, err, d[i])
				}
			}
			for cid, w := range map[string]float64{"intra-rtt": 12, "longhaul-rtt": 2} {
				if v, err := check(t, e, cid).Derive(s); err != nil || math.Abs(v-w) > 1e-9 {
					t.Errorf("%s %s: %s = %v (%v), want %v", e.ID, rid, cid, v, err, w)
				}
			}
		}
		// line 3 on WRCC's runs only
		for _, spec := range e.Runs(experiment.ScaleQuick)[:2] {
			for _, rid := range []string{"host-printed", "host-i21"} {
				r := under(t, st, spec, reading(t, e, rid), experiment.ScaleQuick)
				if spec.CC == "wrcc" {
					if got := r.Scenario.ParamsOf("wrcc").(*cc.WRCCParams).StaleACKLiteral; got != (rid == "host-printed") {
						t.Errorf("%s %s %s: stale_ack_literal %v", e.ID, rid, spec.Key, got)
					}
				}
			}
			if spec.CC == "dcqcn" {
				a := under(t, st, spec, reading(t, e, "host-printed"), experiment.ScaleQuick)
				b := under(t, st, spec, reading(t, e, "host-i21"), experiment.ScaleQuick)
				if a.Hash != b.Hash || !bytes.Equal(a.YAML, b.YAML) {
					t.Errorf("%s %s: a DCQCN run differs between the line-3 readings", e.ID, spec.Key)
				}
			}
		}
	}
	if v, err := check(t, e3(), "wrcct-ratio").Derive(under(t, st, e3().Runs(experiment.ScalePaper)[0], reading(t, e3(), "host-printed"), experiment.ScalePaper).Scenario); err != nil || v != 2 {
		t.Errorf("wrcct-ratio = %v (%v), want 2", v, err)
	}
}

// The host basis gives the all-to-all traffic the run's load of the
// hosts' capacity and the incasts 50 % of the long haul per direction:
// hostIncastTerm = C/H on T6, checked against the resolved fabric.
func TestCrossDCConstants(t *testing.T) {
	st := store(t)
	s := under(t, st, e1().Runs(experiment.ScalePaper)[0], reading(t, e1(), "host-printed"), experiment.ScalePaper).Scenario
	f, err := fabricOf(s)
	if err != nil {
		t.Fatal(err)
	}
	if f.hosts != crossHosts*crossHostGbps*1e9 || f.longHaul != crossLongHaulGbps*1e9 || hostIncastTerm != 0.0625 {
		t.Errorf("hosts %v, long haul %v, term %v", f.hosts, f.longHaul, hostIncastTerm)
	}
	if c := s.Workload.CrossDC; c.LoadBasis != "host" || math.Abs(c.Load-0.6625) > 1e-12 || math.Abs(c.IncastShare-0.0625/0.6625) > 1e-12 {
		t.Errorf("host reading at 60 %%: %+v", *c)
	}
	g, _ := topo.CrossDC(topo.DefaultCrossDCParams())
	for _, h := range g.Hosts() {
		if h >= crossHosts {
			t.Errorf("host %d ≥ crossHosts", h)
		}
	}
}

// E3's rows run the same seeds: the 24-µs row is E2's 60 % point, and a
// baseline's run is one run in every row (only WRCC's period differs).
// Fails before issue 16 (a new seed per row).
func TestE3RowsShareSeeds(t *testing.T) {
	st := store(t)
	e2runs := map[string]experiment.RunSpec{}
	for _, r := range e2Runs(experiment.ScalePaper) {
		e2runs[r.Key] = r
	}
	hashes := map[string]map[string]bool{} // cc seed → hashes over the rows
	for _, r := range e3Runs(experiment.ScalePaper) {
		if r.Seed < 1 || r.Seed > 3 || !strings.HasSuffix(r.Key, " seed="+string(rune('0'+r.Seed))) {
			t.Errorf("%s: seed %d", r.Key, r.Seed)
		}
		if strings.Contains(r.Key, "wrcct=24 ") {
			if _, ok := e2runs[r.Key]; !ok {
				t.Errorf("%s: not one of E2's runs", r.Key)
			}
		}
		if r.CC == "dcqcn" {
			k := r.CC + string(rune('0'+r.Seed))
			if hashes[k] == nil {
				hashes[k] = map[string]bool{}
			}
			hashes[k][under(t, st, r, reading(t, e3(), "host-printed"), experiment.ScalePaper).Hash] = true
		}
	}
	for k, h := range hashes {
		if len(h) != 1 {
			t.Errorf("%s: %d distinct runs over the rows, want 1", k, len(h))
		}
	}
	if len(hashes) != 3 {
		t.Errorf("DCQCN seeds %d, want 3", len(hashes))
	}
}

// Every claim against BiCC says it is against ccsim's interpretation, and
// no claim but the abstract's mixes BiCC with another baseline. Fails
// before issue 16 (no label; E2's and E3's wrcc-best mixed them).
func TestBiCCClaimsLabelled(t *testing.T) {
	for _, e := range []*experiment.Experiment{e0(), e1(), e2(), e3(), e4()} {
		for _, c := range e.Claims {
			bicc := strings.Contains(c.ID, "bicc") || strings.HasPrefix(c.ID, "abstract-")
			if bicc != strings.HasSuffix(c.Description, " (against ccsim's interpretation of BiCC)") {
				t.Errorf("%s/%s: BiCC label %v", e.ID, c.ID, !bicc)
			}
			if c.ID == "wrcc-best" && strings.Contains(c.Description, "BiCC") {
				t.Errorf("%s/%s mixes BiCC in", e.ID, c.ID)
			}
		}
	}
}

// E0: no buffer-size runs (§2.2 keeps §4's 16-MB switches); the path
// readings sample every port of both flows' paths, the sw2 readings SW2's
// only; the largest queue PFC allows at SW2 is 6.27 MB < the printed
// 12 MB (sw2 inconsistent), at the path's DCIs far more. Fails before
// issue 16 (buffer runs, no readings).
func TestE0Readings(t *testing.T) {
	st := store(t)
	e := e0()
	g, _ := topo.CrossDC(topo.DefaultCrossDCParams())
	for _, r := range e.Runs(experiment.ScalePaper) {
		if strings.Contains(r.Key, "buffer=") {
			t.Errorf("%s: a buffer-size run", r.Key)
		}
	}
	if r := reading(t, e, "path-agg"); !r.Primary {
		t.Error("path-agg is not primary")
	}
	first := e.Runs(experiment.ScalePaper)[0]
	if first.Base != motivation {
		t.Fatalf("the first run is %s", first.Key)
	}
	for rid, want := range map[string]float64{"sw2-tor": 6.265835, "path-agg": 249.966904} {
		s := under(t, st, first, reading(t, e, rid), experiment.ScalePaper).Scenario
		var got []string
		for _, p := range s.Outputs.QueuePorts {
			got = append(got, fmt.Sprintf("%s:%d", g.Name(int(p.Node)), p.Port))
		}
		if rid == "sw2-tor" && !slices.Equal(got, []string{"B.tor0:0"}) {
			t.Errorf("%s: ports %v", rid, got)
		}
		if rid == "path-agg" {
			for _, p := range []string{"A.dci:4", "B.dci:0", "B.dci:1", "B.dci:2", "B.dci:3", "B.tor0:0", "A.tor0:4"} {
				if !slices.Contains(got, p) {
					t.Errorf("%s: %s not sampled", rid, p)
				}
			}
		}
		v, err := check(t, e, "qmax-reachable").Derive(s)
		if err != nil || math.Abs(v-want) > 1e-6*want {
			t.Errorf("%s: qmax-reachable %v MB (%v), want %v", rid, v, err, want)
		}
	}
	// congestion 1 under *-agg: SW1 = A.agg0
	var c1 experiment.RunSpec
	for _, r := range e.Runs(experiment.ScalePaper) {
		if r.Base == motivation1 {
			c1 = r
			break
		}
	}
	s := under(t, st, c1, reading(t, e, "path-agg"), experiment.ScalePaper).Scenario
	if fl := s.Workload.Flows; len(fl) != 3 || fl[0].Via == nil || g.Name(int(*fl[0].Via)) != "A.core0" || g.Name(int(*fl[2].Via)) != "A.agg0" || g.Name(int(fl[1].Src)) != "A.h4" {
		t.Errorf("congestion 1 under path-agg: %+v", fl)
	}
}

// pathPorts and c1Geometry's port numbers lead where their comments say
// (link order of topo.CrossDC).
func TestPathPorts(t *testing.T) {
	g, err := topo.CrossDC(topo.DefaultCrossDCParams())
	if err != nil {
		t.Fatal(err)
	}
	ports := g.Ports()
	peer := func(p portRef) string {
		pr := ports[nodeID(p.node)][p.port]
		return g.Name(pr.Peer)
	}
	want := map[string]string{"A.tor0:4": "A.agg0", "A.tor0:5": "A.agg1", "A.agg0:2": "A.core0", "A.agg1:3": "A.core3", "A.core2:4": "A.dci",
		"A.dci:4": "B.dci", "B.dci:0": "B.core0", "B.core0:0": "B.agg0", "B.core2:0": "B.agg1", "B.agg0:0": "B.tor0", "B.agg1:0": "B.tor0",
		"B.tor2:4": "B.agg2", "B.agg3:2": "B.core2", "B.tor0:0": "B.h0"}
	for _, p := range pathPorts {
		if w, ok := want[p.String()]; ok && peer(p) != w {
			t.Errorf("%s leads to %s, want %s", p, peer(p), w)
		}
	}
	if f, _, _ := c1Geometry("path-agg"); peer(f) != "A.agg0" {
		t.Errorf("c1 feeder %s leads to %s", f, peer(f))
	}
	if len(pathPorts) != 28 {
		t.Errorf("%d path ports", len(pathPorts))
	}
}

// E4 declares B_Tar 100 … 95 % (approximate division, the prototype's;
// 100 % primary) and B_Tar 100 % with exact division; the patch reaches
// WRCC only. Fails before issue 16 (no readings: B_Tar was the line rate
// and the division exact).
func TestE4BTarReadings(t *testing.T) {
	st := store(t)
	e := e4()
	want := map[string][2]any{"btar-100": {400.0, true}, "btar-99": {396.0, true}, "btar-98": {392.0, true}, "btar-97": {388.0, true}, "btar-96": {384.0, true}, "btar-95": {380.0, true}, "btar-100-exact": {400.0, false}}
	if len(e.Readings) != len(want) {
		t.Errorf("%d readings", len(e.Readings))
	}
	var w, d experiment.RunSpec
	for _, r := range e.Runs(experiment.ScaleQuick) {
		if r.CC == "wrcc" && w.Key == "" {
			w = r
		}
		if r.CC == "dcqcn" && d.Key == "" {
			d = r
		}
	}
	for _, rd := range e.Readings {
		if rd.Primary != (rd.ID == "btar-100") {
			t.Errorf("%s: primary %v", rd.ID, rd.Primary)
		}
		p := under(t, st, w, rd, experiment.ScaleQuick).Scenario.ParamsOf("wrcc").(*cc.WRCCParams)
		if x := want[rd.ID]; p.BTarGbps != x[0] || p.ApproxDivision != x[1] || p.FMaxMbps != 400_000 {
			t.Errorf("%s: b_tar %v approx %v f_max %v", rd.ID, p.BTarGbps, p.ApproxDivision, p.FMaxMbps)
		}
	}
	if a, b := under(t, st, d, reading(t, e, "btar-100"), experiment.ScaleQuick), under(t, st, d, reading(t, e, "btar-95"), experiment.ScaleQuick); a.Hash != b.Hash {
		t.Error("a DCQCN run differs between B_Tar readings")
	}
	if v, err := check(t, e, "overhead").Derive(under(t, st, e.Runs(experiment.ScalePaper)[0], reading(t, e, "btar-100"), experiment.ScalePaper).Scenario); err != nil || math.Abs(v-1.171875) > 1e-9 {
		t.Errorf("overhead %v (%v)", v, err)
	}
}

// E4's claims use the figures' points: 8 distinct points of Figs. 11–12
// per distance (message size and MTU sweeps sharing the default), 5
// durations at 640 km (Fig. 13), and the short-distance duration sweep
// now runs (4 durations). Fails before issue 16 (no short durations).
func TestE4ClaimPoints(t *testing.T) {
	for _, d := range []string{"long", "short"} {
		var fig1112, dur []string
		for _, p := range e4Points(experiment.ScalePaper, d) {
			if (p.axis == "msg" || p.axis == "mtu") && !slices.Contains(fig1112, p.key(d, "")) {
				fig1112 = append(fig1112, p.key(d, ""))
			}
			if p.axis == "dur" {
				dur = append(dur, p.key(d, ""))
			}
		}
		if len(fig1112) != 8 {
			t.Errorf("%s: %d points of Figs. 11–12, want 8", d, len(fig1112))
		}
		if w := map[string]int{"long": 5, "short": 4}[d]; len(dur) != w {
			t.Errorf("%s: %d durations, want %d", d, len(dur), w)
		}
	}
	for _, c := range e4().Claims {
		if n := map[string]int{"short-tail": 8, "long-avg": 8, "long-tail": 8, "gap-short": 8, "gap-long": 8, "long-tput": 5}[c.ID]; n > 0 && (c.Need != n || c.Of != n) {
			t.Errorf("%s: %d of %d, want %d", c.ID, c.Need, c.Of, n)
		}
	}
	// DCQCN over the seeds, WRCC once
	seeds := map[string]map[uint64]bool{"wrcc": {}, "dcqcn": {}}
	for _, r := range e4Runs(experiment.ScalePaper) {
		seeds[r.CC][r.Seed] = true
	}
	if len(seeds["wrcc"]) != 1 || len(seeds["dcqcn"]) != 3 {
		t.Errorf("seeds %v", seeds)
	}
}
