package wrcc

// E0: the motivation (Fig. 2) — cross-datacenter congestion 2 under DCQCN
// and HPCC (and, for comparison, WRCC and BiCC) — and congestion 1 of
// Fig. 1 (e0c1.go).

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/metrics"
	"github.com/ccsim/ccsim/report"
	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/sim"
	"github.com/ccsim/ccsim/topo"
)

const (
	motivation  = "motivation.yaml"  // congestion 2
	motivation1 = "motivation1.yaml" // congestion 1
)

// e0Algs are the algorithms of Fig. 2, then WRCC and BiCC for comparison.
var e0Algs = []string{"dcqcn", "hpcc", "wrcc", "bicc"}

// e0StopMs is the length of E0's runs at a scale.
func e0StopMs(sc experiment.Scale) float64 { return experiment.AtScale(sc, 4.0, 20.0) }

// e0Runs are congestion 2 and congestion 1 (keys prefixed "c1"), every
// algorithm over the seeds (the unpinned hops are chosen by the seeded
// ECMP hash, DCQCN and BiCC mark by RED).
func e0Runs(sc experiment.Scale) []experiment.RunSpec {
	stop := map[string]any{"stop_ms": e0StopMs(sc)}
	runs := experiment.Sweep{Base: motivation, Patch: stop, CC: e0Algs, Seeds: experiment.Seeds(sc)}.Expand()
	for _, r := range (experiment.Sweep{Base: motivation1, Patch: stop, CC: e0Algs, Seeds: experiment.Seeds(sc)}).Expand() {
		r.Key = "c1 " + r.Key
		runs = append(runs, r)
	}
	return runs
}

// portRef is an egress port by switch name.
type portRef struct {
	node string
	port int
}

// sw2 is SW2's port towards R1 (B.tor0's port 0: B.h0).
var sw2 = portRef{"B.tor0", 0}

// pathPorts are the egress ports of both congestion-2 flows' possible
// paths (port numbers: link order, topo.CrossDC; TestPathPorts checks
// each leads where its comment says): Flow1 A.h0 → A.tor0 → A.agg0|1 →
// A.core0–3 → A.dci → long haul → B.dci → B.core0–3 → B.agg0 → B.tor0 →
// B.h0, Flow3 B.h8 → B.tor2 → B.agg2|3 → B.core2|3 → B.agg1 → B.tor0.
var pathPorts = []portRef{
	{"A.tor0", 4}, {"A.tor0", 5}, // → A.agg0, A.agg1
	{"A.agg0", 2}, {"A.agg0", 3}, {"A.agg1", 2}, {"A.agg1", 3}, // → cores
	{"A.core0", 4}, {"A.core1", 4}, {"A.core2", 4}, {"A.core3", 4}, // → A.dci
	{"A.dci", 4},                                           // the long haul
	{"B.dci", 0}, {"B.dci", 1}, {"B.dci", 2}, {"B.dci", 3}, // → B's cores
	{"B.core0", 0}, {"B.core1", 0}, // → B.agg0
	{"B.core2", 0}, {"B.core3", 0}, // → B.agg1
	{"B.agg0", 0}, {"B.agg1", 0}, // → B.tor0
	{"B.tor2", 4}, {"B.tor2", 5}, // Flow3's uplinks
	{"B.agg2", 2}, {"B.agg2", 3}, {"B.agg3", 2}, {"B.agg3", 3}, // → cores
	sw2,
}

func portsPatch(ps []portRef) []any {
	out := make([]any, len(ps))
	for i, p := range ps {
		out[i] = map[string]any{"node": p.node, "port": p.port}
	}
	return out
}

// e0Readings: which switch's queue Fig. 2(c) shows (every switch of the
// path, primary, or SW2 only) × where congestion 1's SW1 sits (one layer
// above the senders' ToR, primary, or their ToR).
func e0Readings() []experiment.Reading {
	const (
		whyPath = `Fig. 2(c) is 「交换机队列分布」, "the switch queue distribution", naming no switch, and §2.2 keeps the rest of §4's configuration (16-MB intra-DC, 250-MB DCI switches): the figure's 12-MB maximum is reachable only at a switch whose PFC allows it (check qmax-reachable), so every egress port of both flows' paths is sampled and the statistic is the largest over them.`
		whySW2  = `The congestion point §2.1 names (「智算中心B中SW2出现跨域Incast拥塞」): SW2's port towards R1 only (ccsim's earlier reading).`
		whyAgg  = `Congestion 1 (§2.1): 「Flow1的入端口会经历周期性暂停, 导致沿相同路径的智算中心内受害流(S3→R3)性能下降」 — Flow1's ingress port at SW1 is paused and the victim, on the same path, suffers: the victim shares Flow1's ingress at SW1, possible only above the senders' ToR (there every host has its own ingress). SW1 = A.agg0: Flow1 (A.h0, under A.tor0) and Flow2 (A.h4, under A.tor1) both leave A.agg0 towards A.core0; the victim A.h2 → A.h5 enters A.agg0 from A.tor0 with Flow1.`
		whyToR  = `Congestion 1 with SW1 = the senders' ToR A.tor0 (ccsim's earlier reading; the paper's Fig. 1 is not available): Flow1, Flow2 and the victim share A.tor0's uplink; each has its own ingress port.`
	)
	mk := func(id, title, why string, primary, path, agg bool) experiment.Reading {
		return experiment.Reading{ID: id, Title: title, Why: why, Primary: primary, PatchRun: func(_ experiment.Scale, spec experiment.RunSpec) map[string]any {
			if spec.Base == motivation1 {
				if agg {
					return map[string]any{"workload": map[string]any{"flows": c1AggFlows()}}
				}
				return nil
			}
			ps := []portRef{sw2}
			if path {
				ps = pathPorts
			}
			return map[string]any{"outputs": map[string]any{"queue_ports": portsPatch(ps)}}
		}}
	}
	return []experiment.Reading{
		mk("path-agg", "queues at every switch of the path; congestion 1 at an aggregation switch", whyPath+" "+whyAgg, true, true, true),
		mk("path-tor", "queues at every switch of the path; congestion 1 at the senders' ToR", whyPath+" "+whyToR, false, true, false),
		mk("sw2-agg", "SW2's queue only; congestion 1 at an aggregation switch", whySW2+" "+whyAgg, false, false, true),
		mk("sw2-tor", "SW2's queue only; congestion 1 at the senders' ToR (the runs of issue 9)", whySW2+" "+whyToR, false, false, false),
	}
}

// c1AggFlows are congestion 1's flows with SW1 = A.agg0 (reading *-agg):
// Flow1 A.h0 → B.h0 and Flow2 A.h4 → B.h1 pinned through A.core0 (so
// through A.agg0, the only aggregation switch of pod 0 on core 0), the
// victim A.h2 → A.h5 through A.agg0.
func c1AggFlows() []any {
	f := func(src, dst, via string) map[string]any {
		return map[string]any{"src": src, "dst": dst, "size_bytes": 100_000_000, "start_ns": 0, "via": via}
	}
	return []any{f("A.h0", "B.h0", "A.core0"), f("A.h4", "B.h1", "A.core0"), f("A.h2", "A.h5", "A.agg0")}
}

func e0() *experiment.Experiment {
	return &experiment.Experiment{
		ID:       "e0",
		Title:    "Motivation: cross-datacenter congestion 2 (Fig. 2) and congestion 1 (Fig. 1) under DCQCN and HPCC",
		SetupAt:  e0Setup,
		Claims:   e0Claims(),
		Runs:     e0Runs,
		Readings: e0Readings(),
		Checks: []experiment.Check{
			{ID: "longhaul-rtt", Description: "the long haul's round trip (§2.2 「跨域长距离链路往返时延为2ms」)", Unit: "ms", Paper: 2, Tol: &experiment.Tolerance{Abs: 1e-9},
				Derive: func(s *scenario.Scenario) (float64, error) {
					f, err := fabricOf(s)
					return 2 * f.longHaulDelay * 1e3, err
				}},
			{ID: "qmax-reachable", Description: "the largest egress queue PFC lets build at the sampled ports (every other port of the switch feeding it up to its pause threshold, reserve and headroom) is at least the printed maximum (「队列长度最大为12 MB」)", Unit: "MB",
				Bounds: true, Lo: 12, Hi: math.Inf(1), Derive: qmaxReachable},
		},
		Analyze: analyzeE0,
	}
}

func e0Setup(sc experiment.Scale) string {
	stop := "the run lasts 20 ms (the paper gives neither); 3 seeds (the unpinned hops are hashed, RED marks at random)"
	if sc == experiment.ScaleQuick {
		stop = "at quick scale the run lasts 4 ms (no flow finishes), one seed"
	}
	return `Topology T6 with the long-haul RTT of 2 ms and, as §2.2 says (「其余配置与第4节一致」), the rest of §4's configuration: two 4-pod fat-trees of 32 servers, 100 Gb/s, 1 µs per link; DCI switches joined by a 400-Gb/s, 1-ms long haul; 16-MB intra-DC switches with dynamic PFC, 250-MB DCI switches with static 100-MB PFC thresholds. Congestion 2: the cross-DC burst flow Flow1 (S1 = A.h0 → R1 = B.h0) and the intra-DC burst flow Flow3 (S4 = B.h8, under another ToR of DC B → R1) collide at SW2, R1's ToR. Interpretation: both start together at line rate, 100 MB each, and ` + stop + `. Metrics: each flow's delivered rate per 100 µs; the egress queues sampled every 1 µs — under the path readings every port of both flows' paths (28 ports, the DCIs included), the statistic the largest over the ports; under the sw2 readings SW2's port towards R1 only. Flow1 and Flow3 are "not converged" in a 100-µs bin while both are active when their rates differ by 10 % of their sum or more (the E4 fairness bound too); the claim is that this holds in most (≥ 50 %) of those bins. DCQCN and HPCC with the reference simulator's presets (dcqcn, hp at 100 Gb/s; paper 002 used that simulator); WRCC and BiCC are shown for comparison (not in the paper's figure; BiCC = DCQCN here: the DCI never congests, so it sends no notice). Congestion 1 (described in the paper's §2.1 and Fig. 1, not measured there): two cross-DC flows Flow1 and Flow2 meet at SW1 and an intra-DC victim flow on Flow1's path suffers; SW1 is one layer above the senders' ToR (primary) or their ToR (readings); 100 MB each from line rate; measured: each flow's rate per 100 µs, the pause time of the transmitter feeding Flow1's ingress at SW1, and the victim's mean rate while all three are active against its max–min fair share (50 Gb/s with SW1 = A.agg0: Flow1 is held to 50 Gb/s by the shared uplink to A.core0; C/3 with SW1 = A.tor0).`
}

// e0Claims are Fig. 2's and congestion 1's claims.
func e0Claims() []experiment.Claim {
	out := []experiment.Claim{
		{ID: "dcqcn-q70-1mb", Description: "DCQCN: 70 % of the queue samples exceed 1 MB (Fig. 2(c) 「DCQCN的70%队列长度超过1MB」): the 30th percentile of the samples is 1 MB", PaperValue: "1", Unit: "MB (p30 of the queue samples)",
			Kind: experiment.Magnitude, Mag: experiment.MagValue, Paper: 1},
		{ID: "hpcc-q70-1.8mb", Description: "HPCC: 70 % of the queue samples exceed 1.8 MB (「HPCC的70%队列长度超过1.8 MB」): the 30th percentile is 1.8 MB", PaperValue: "1.8", Unit: "MB (p30 of the queue samples)",
			Kind: experiment.Magnitude, Mag: experiment.MagValue, Paper: 1.8},
		{ID: "hpcc-qmax", Description: "HPCC: the queue reaches 12 MB at most (「队列长度最大为12 MB」)", PaperValue: "12", Unit: "MB (maximum sample)",
			Kind: experiment.Magnitude, Mag: experiment.MagValue, Paper: 12},
	}
	for _, c := range e0Algs[:2] {
		name := algs.Name(c)
		out = append(out,
			experiment.Claim{ID: "c1-pause-" + c, Description: "congestion 1, " + name + ": Flow1's ingress port at SW1 is paused (「为了保持网络无损, Flow1的入端口会经历周期性暂停」): the transmitter feeding it is paused by PFC", PaperValue: "> 0", Unit: "µs paused",
				Kind: experiment.Direction, Rel: experiment.Greater},
			experiment.Claim{ID: "c1-victim-" + c, Description: "congestion 1, " + name + ": the intra-DC victim on Flow1's path degrades (「导致沿相同路径的智算中心内受害流(S3→R3)性能下降」): its mean rate while the three flows are active is below its max–min fair share", PaperValue: "below its share", Unit: "Gb/s",
				Kind: experiment.Direction, Rel: experiment.Less},
			experiment.Claim{ID: "noconv-" + c, Description: name + ": Flow1 and Flow3 do not converge for a long time (「长时间无法正确收敛」): in most (≥ 50 %) of the 100-µs bins while both are active their rates differ by ≥ 10 % of their sum", PaperValue: "≥ 50", Unit: "% of the bins",
				Kind: experiment.Range, Lo: 50, Hi: 100},
		)
	}
	return out
}

// e0Result is what E0 reads from a congestion-2 run.
type e0Result struct {
	ports    []portRef             // the sampled ports, in order of first sample
	q        map[portRef][]float64 // samples per port, bytes, sorted
	t        [2][]float64          // bin start (ms) per flow
	gbps     [2][]float64          // rate per flow and bin
	finishMs [2]float64            // flow finish (ms), +Inf if unfinished
	unconv   float64               // % of both-active bins not converged
	convFrom float64               // first bin start after which every both-active bin is converged (NaN: never)
	both     int                   // both-active bins
}

// nodeNames are T6's node names by id (topo.CrossDC's fixed numbering).
var nodeNames = func() []string {
	g, err := topo.CrossDC(topo.DefaultCrossDCParams())
	if err != nil {
		panic(err)
	}
	return g.Names
}()

func nodeID(name string) int { return slices.Index(nodeNames, name) }

func readE0(run *experiment.RunRef) (*e0Result, error) {
	r := &e0Result{q: map[portRef][]float64{}}
	qt, err := run.Table("queue.csv")
	if err != nil {
		return nil, err
	}
	cols, err := qt.FloatCols("node", "port", "bytes")
	if err != nil {
		return nil, err
	}
	for i := range cols[0] {
		n := int(cols[0][i])
		if n < 0 || n >= len(nodeNames) {
			return nil, fmt.Errorf("%s: queue.csv node %d", run.Dir, n)
		}
		p := portRef{nodeNames[n], int(cols[1][i])}
		if _, ok := r.q[p]; !ok {
			r.ports = append(r.ports, p)
		}
		r.q[p] = append(r.q[p], cols[2][i])
	}
	for _, p := range r.ports {
		slices.Sort(r.q[p])
	}
	if err := flowRates(run, r.t[:], r.gbps[:]); err != nil {
		return nil, err
	}
	if err := finishTimes(run, r.finishMs[:]); err != nil {
		return nil, err
	}
	r.unconv, r.convFrom, r.both = convergence(r.t, r.gbps, r.finishMs)
	return r, nil
}

// convergedWithin is the share-gap bound of "converged": the two flows'
// rates differ by less than 10 % of their sum.
const convergedWithin = 0.1

// convergence is the share (%) of the 100-µs bins in which both flows are
// active (activeBins) whose rates differ by ≥ 10 % of their sum, the start
// of the first bin after which every such bin is converged (NaN: never,
// or no such bin), and the number of such bins.
func convergence(t, gbps [2][]float64, finishMs [2]float64) (unconv, from float64, both int) {
	both = activeBins(t[:], finishMs[:])
	bad, lastBad := 0, -1
	for k := 0; k < both; k++ {
		a, b := gbps[0][k], gbps[1][k]
		if a+b == 0 || math.Abs(a-b)/(a+b) >= convergedWithin {
			bad++
			lastBad = k
		}
	}
	if both == 0 {
		return math.NaN(), math.NaN(), 0
	}
	from = math.NaN()
	if lastBad+1 < both {
		from = t[0][lastBad+1]
	}
	return 100 * float64(bad) / float64(both), from, both
}

// activeBins is the number of leading rate bins (flow_rate.csv: a row per
// bin while a flow is active, every flow from the same start) in which
// every flow is active for the whole bin: bins that end by the first
// flow's finish, and, when every flow lasts to the end of the run, not the
// run's last bin (it may be short).
func activeBins(t [][]float64, finishMs []float64) int {
	n, longest := len(t[0]), len(t[0])
	for _, x := range t[1:] {
		n, longest = min(n, len(x)), max(longest, len(x))
	}
	if n == longest {
		n--
	}
	end := math.Inf(1)
	for _, f := range finishMs {
		end = math.Min(end, f)
	}
	binMs := 0.0
	if len(t[0]) > 1 {
		binMs = t[0][1] - t[0][0]
	}
	k := 0
	for ; k < n; k++ {
		for _, x := range t {
			if x[k] != t[0][k] {
				return k
			}
		}
		if t[0][k]+binMs > end+1e-9 {
			break
		}
	}
	return max(k, 0)
}

// flowRates reads flow_rate.csv into t (bin start, ms) and gbps per flow
// id, for the flows 0 … len(t) − 1.
func flowRates(run *experiment.RunRef, t, gbps [][]float64) error {
	ft, err := run.Table("flow_rate.csv")
	if err != nil {
		return err
	}
	cols, err := ft.FloatCols("bin_start_ns", "flow", "gbps")
	if err != nil {
		return err
	}
	for i := range cols[0] {
		f := int(cols[1][i])
		if f < 0 || f >= len(t) {
			continue
		}
		t[f] = append(t[f], cols[0][i]/1e6)
		gbps[f] = append(gbps[f], cols[2][i])
	}
	return nil
}

// finishTimes reads the finish times (ms) of flows 0 … len(out) − 1 from
// flows.csv (+Inf for a flow that did not finish).
func finishTimes(run *experiment.RunRef, out []float64) error {
	recs, err := run.Flows()
	if err != nil {
		return err
	}
	for i := range out {
		out[i] = math.Inf(1)
	}
	for _, r := range recs {
		if r.ID >= 0 && r.ID < len(out) && r.Done {
			out[r.ID] = float64(r.Finish) / float64(sim.Millisecond)
		}
	}
	return nil
}

// pick is the statistic f of the queue at the reading's ports: the
// largest over the sampled ports, and the port.
func (r *e0Result) pick(f func(sorted []float64) float64) (float64, portRef) {
	best, at := math.NaN(), portRef{}
	for _, p := range r.ports {
		if v := f(r.q[p]); math.IsNaN(best) || v > best {
			best, at = v, p
		}
	}
	return best, at
}

func p30(q []float64) float64  { return metrics.Percentile(q, 0.3) }
func qmax(q []float64) float64 { return q[len(q)-1] }

func (p portRef) String() string { return p.node + ":" + strconv.Itoa(p.port) }

func analyzeE0(ctx *experiment.Context) (*report.Section, error) {
	sec := &report.Section{}
	res := map[string][]*e0Result{}
	for _, c := range e0Algs {
		runs, err := ctx.SeedRuns("cc=" + c)
		if err != nil {
			return nil, err
		}
		for _, run := range runs {
			r, err := readE0(run)
			if err != nil {
				return nil, err
			}
			res[c] = append(res[c], r)
		}
	}
	sec.Tables = append(sec.Tables, e0QueueTable(res), e0ConvTable(res))
	sec.Figures = append(sec.Figures, e0Figures(res)...)
	for _, q := range []struct {
		id, cc string
		f      func([]float64) float64
		what   string
	}{{"dcqcn-q70-1mb", "dcqcn", p30, "p30"}, {"hpcc-q70-1.8mb", "hpcc", p30, "p30"}, {"hpcc-qmax", "hpcc", qmax, "maximum"}} {
		var pt experiment.Sample
		var at []string
		for _, r := range res[q.cc] {
			v, p := r.pick(q.f)
			pt, at = append(pt, v/1e6), append(at, p.String())
		}
		ctx.Measure(q.id, experiment.Measure{Mag: []experiment.Sample{pt},
			Note: fmt.Sprintf("the largest %s over the sampled ports, at %v (per seed); %.0f %% of SW2's samples above 1 MB, %.0f %% above 1.8 MB (first seed)", q.what, at, 100*above(res[q.cc][0].q[sw2], 1e6), 100*above(res[q.cc][0].q[sw2], 1.8e6))})
	}
	for _, c := range e0Algs[:2] {
		var u experiment.Sample
		for _, r := range res[c] {
			u = append(u, r.unconv)
		}
		ctx.Measure("noconv-"+c, experiment.Measure{Values: []experiment.Sample{u}, Note: "per seed; both-active bins " + fmt.Sprint(res[c][0].both) + ", converged from " + convText(res[c][0]) + " (first seed)"})
	}
	notes, err := analyzeC1(ctx, sec)
	if err != nil {
		return nil, err
	}
	sec.Notes = notes
	return sec, nil
}

// above returns the fraction of sorted samples strictly above v.
func above(sorted []float64, v float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	i, _ := slices.BinarySearch(sorted, math.Nextafter(v, math.Inf(1)))
	return float64(len(sorted)-i) / float64(len(sorted))
}

func convText(r *e0Result) string {
	if math.IsNaN(r.convFrom) {
		return "never"
	}
	return fmt.Sprintf("%.1f ms", r.convFrom)
}
