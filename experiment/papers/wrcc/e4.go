package wrcc

// E4: the prototype experiments (Figs. 10–13), simulated: perftest
// bandwidth flows in a 2:1 incast plus a 64-B latency probe, WRCC against
// DCQCN, over 640 km and within one switch.

import (
	"fmt"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/scenario"
)

// distances of E4 and their base scenarios.
var distances = []struct{ id, name, base string }{
	{"long", "640 km", "perftest-long.yaml"},
	{"short", "short distance", "perftest-short.yaml"},
}

var e4Algs = []string{"wrcc", "dcqcn"}

// e4Point is one parameter point of the perftest model.
type e4Point struct {
	msg    int64   // message size, bytes (perftest -s)
	mtu    int     // payload per packet, bytes
	flows  int     // QPs per sender (perftest -q)
	durMs  float64 // test duration
	axis   string  // the swept parameter this point belongs to
	xValue float64
}

// key is the point's run key for algorithm c, without the seed.
func (p e4Point) key(dist, c string) string {
	return fmt.Sprintf("dist=%s msg=%d mtu=%d flows=%d dur=%v cc=%s", dist, p.msg, p.mtu, p.flows, p.durMs, c)
}

// same is whether two points are the same run (a sweep's default point is
// shared by the sweeps).
func (p e4Point) same(q e4Point) bool {
	return p.msg == q.msg && p.mtu == q.mtu && p.flows == q.flows && p.durMs == q.durMs
}

// e4Axis is one sweep: Fig. 11 message size, Fig. 12 MTU, Fig. 13 test
// duration; the flows-per-sender sweep is in no figure (the text names it
// in the method, 「并发测试流数目」) and supports no claim.
type e4Axis struct {
	id, name, unit string
	values         []float64
	set            func(p *e4Point, v float64)
	fig            string // the paper's figure ("" none)
}

// e4Default is a distance's default point: MTU 1,024 B, 1 flow, 1-MB
// messages (the paper's defaults) and a test of 200 ms at 640 km, 20 ms at
// short distance (quick: 20 ms, 2 ms; the paper ran 10 s).
func e4Default(sc experiment.Scale, dist string) e4Point {
	d := experiment.AtScale(sc, 20.0, 200.0)
	if dist == "short" {
		d = experiment.AtScale(sc, 2.0, 20.0)
	}
	return e4Point{msg: 1_000_000, mtu: 1024, flows: 1, durMs: d}
}

// e4Axes are a distance's sweeps at a scale. The durations are multiples
// of the 6.4-ms round trip at 640 km and 5–40 ms at short distance (the
// paper's durations are not given; interpretation).
func e4Axes(sc experiment.Scale, dist string) []e4Axis {
	pick := func(all, q []float64) []float64 { return experiment.AtScale(sc, q, all) }
	const rtt = 6.4 // ms, the 640-km round trip
	durs := pick([]float64{rtt, 2 * rtt, 5 * rtt, 10 * rtt, 20 * rtt}, []float64{rtt, 2 * rtt})
	if dist == "short" {
		durs = pick([]float64{5, 10, 20, 40}, []float64{1, 2})
	}
	return []e4Axis{
		{"msg", "message size", "KB", pick([]float64{64e3, 256e3, 1e6, 4e6, 16e6}, []float64{256e3, 1e6}), func(p *e4Point, v float64) { p.msg = int64(v) }, "Fig. 11"},
		{"mtu", "MTU", "B", pick([]float64{512, 1024, 2048, 4096}, []float64{1024, 4096}), func(p *e4Point, v float64) { p.mtu = int(v) }, "Fig. 12"},
		{"flows", "flows per sender", "", pick([]float64{1, 2, 4, 8}, []float64{1, 2}), func(p *e4Point, v float64) { p.flows = int(v) }, ""},
		{"dur", "test duration", "ms", durs, func(p *e4Point, v float64) { p.durMs = v }, "Fig. 13"},
	}
}

// e4Points lists a distance's points, each axis's values with the other
// parameters at their defaults.
func e4Points(sc experiment.Scale, dist string) []e4Point {
	var out []e4Point
	for _, ax := range e4Axes(sc, dist) {
		for _, v := range ax.values {
			p := e4Default(sc, dist)
			ax.set(&p, v)
			p.axis, p.xValue = ax.id, v
			out = append(out, p)
		}
	}
	return out
}

// e4Runs lists the runs of every distance's points × algorithm: DCQCN over
// the seeds (its RED marks at random), WRCC once (deterministic: one path,
// no random phase). Not a Sweep: the points are one-factor-at-a-time
// sweeps around a default point, which several sweeps share and which
// runs once.
func e4Runs(sc experiment.Scale) []experiment.RunSpec {
	var runs []experiment.RunSpec
	seen := map[string]bool{}
	for _, d := range distances {
		for _, p := range e4Points(sc, d.id) {
			for _, c := range e4Algs {
				k := p.key(d.id, c)
				if seen[k] {
					continue
				}
				seen[k] = true
				patch := map[string]any{
					"host":     map[string]any{"payload_bytes": p.mtu},
					"workload": map[string]any{"perftest": map[string]any{"msg_size_bytes": p.msg, "flows": p.flows, "duration_ms": p.durMs}},
				}
				seeds := experiment.Seeds(sc)
				if c == "wrcc" {
					patch["params"] = map[string]any{"wrcc": map[string]any{"f_max_mbps": 400_000}}
					seeds = seeds[:1]
				}
				for _, s := range seeds {
					runs = append(runs, experiment.RunSpec{Key: fmt.Sprintf("%s seed=%d", k, s), Base: d.base, CC: c, Patch: patch, Seed: s})
				}
			}
		}
	}
	return runs
}

// bTars are the readings' B_Tar (% of the 400-Gb/s line rate): the paper
// gives no value (Table 1 「B_Tar 交换机端口目标带宽」), the 95–100 %.
var bTars = []int{100, 99, 98, 97, 96, 95}

// e4Readings: B_Tar 100 … 95 % with the prototype's shift-approximated
// division (primary: B_Tar the port's bandwidth, approximation on, as the
// prototype), and B_Tar 100 % with exact division.
func e4Readings() []experiment.Reading {
	const (
		whyBTar100 = `The introduction: WRCC's fair rate 「仅依赖于基本的流属性(速率和时延)…并消除了配置复杂附加参数(如参考队列长度或目标带宽利用率等)的需要」 — it needs no target bandwidth utilisation, so B_Tar is the port's bandwidth.`
		whyBTar    = `B_Tar is listed (Tables 1, 2) without a value; with B_Tar = the line rate eq. (2) never drains the start-up queue below QRatio_max·Q_max (docs/algorithms/wrcc.md §10): a target a few per cent below the line rate is the other reading (the issue's 95–100 %).`
		whyApprox  = ` Division approximated by shifts (docs/algorithms/wrcc.md I14), as the prototype did: 「由于P4语言不支持除法操作…本文通过移位操作实现近似除法, 即将除数对齐至最近的2的幂次方」.`
		whyExact   = ` Exact division (the simulations' WRCC): a sensitivity reading of the prototype's arithmetic.`
	)
	mk := func(id, title, why string, b int, approx bool) experiment.Reading {
		gbps := 4 * b
		return experiment.Reading{ID: id, Title: title, Why: why, Primary: approx && b == 100, Patch: func(experiment.Scale) map[string]any {
			return map[string]any{"params": map[string]any{"wrcc": map[string]any{"b_tar_gbps": gbps, "approx_division": approx}}}
		}}
	}
	var out []experiment.Reading
	for _, b := range bTars {
		why := whyBTar
		if b == 100 {
			why = whyBTar100
		}
		out = append(out, mk(fmt.Sprintf("btar-%d", b), fmt.Sprintf("B_Tar %d %% of the line rate (%d Gb/s), shift-approximated division", b, 4*b), why+whyApprox, b, true))
	}
	return append(out, mk("btar-100-exact", "B_Tar 100 % of the line rate (400 Gb/s), exact division", whyBTar100+whyExact, 100, false))
}

func e4() *experiment.Experiment {
	return &experiment.Experiment{
		ID:       "e4",
		Title:    "Prototype experiments, simulated: 640 km and short distance (Figs. 10–13)",
		SetupAt:  e4Setup,
		Claims:   e4Claims(),
		Runs:     e4Runs,
		Readings: e4Readings(),
		Checks: []experiment.Check{{ID: "overhead", Description: "the INT extension's overhead at MTU 1,024 B (「该开销会导致吞吐量下降约1.2%」): 100 × 12 B / the payload", Unit: "%", Paper: 1.2, Tol: &experiment.Tolerance{Abs: 0.05},
			Derive: func(s *scenario.Scenario) (float64, error) { return 100 * 12 / float64(s.Host.PayloadBytes), nil }}},
		Analyze: analyzeE4,
	}
}

func e4Setup(sc experiment.Scale) string {
	dur := `a test of 200 ms at 640 km (31 probe round trips) and 20 ms at short distance (the paper ran 10 s; at 400 Gb/s a simulated second is 50 GB per flow). Sweeps (one factor at a time around the default): message size 64 KB–16 MB (Fig. 11), MTU 512–4,096 B (Fig. 12), flows per sender 1–8 (in no figure: a table only) and test duration (Fig. 13; 1, 2, 5, 10, 20 × the 6.4-ms round trip at 640 km, 5–40 ms at short distance). DCQCN runs 3 seeds (RED marks at random), WRCC one (deterministic)`
	if sc == experiment.ScaleQuick {
		dur = `at quick scale a test of 20 ms at 640 km (3 probe round trips) and 2 ms at short distance, two points per sweep (message size 256 KB and 1 MB, MTU 1,024 and 4,096 B, 1 and 2 flows, durations 6.4 and 12.8 ms at 640 km and 1 and 2 ms at short distance), one seed`
	}
	return `The paper's prototype (Tofino2 switches and FPGA NICs running WRCC, ConnectX-7 NICs running DCQCN, perftest over 640 km of fibre) simulated on topology T7. Long distance: hosts A and B behind switch SW1, host C behind SW2, SW1–SW2 400 Gb/s over 640 km (3.2 ms one way at 5 µs/km), all NICs and host links 400 Gb/s, 1 µs; lossy as the testbed (PFC off; 64-MB drop-tail buffers; go-back-N with a 10-ms retransmission timeout and a 500-µs NACK interval). Short distance: A, B, C on one switch, 1-µs links, ECN and PFC on. Traffic (perftest, interpretation): ib_write_bw bandwidth flows A → C and B → C (a 2:1 incast; tx-depth 128 messages outstanding per QP) and an ib_write_lat probe of 64-B messages A → C, each posted when the previous one completes; latency = post to completion of a probe message, average = mean, tail = p99 (interpretation), over the messages posted before the test's end minus a guard (2 round trips, 12.8 ms, at 640 km; 1 ms at short distance), a message of them still in flight at the end censored there (its latency at least the end minus its post: "≥" a lower bound); a point with no such message has no latency. Defaults: MTU 1,024 B, 1 flow per sender, 1-MB messages, ` + dur + `. DCQCN with the reference dcqcn preset at 400 Gb/s (RED 1.6/6.4 MB at the switch); WRCC with its defaults except F_max = 400 Gb/s, the prototype's line rate (the paper's F_max = 100 Gb/s belongs to its 100-Gb/s simulations), and the readings' B_Tar and division. Claims use the figures' points: latency over the message-size and MTU sweeps (Figs. 11, 12), throughput and fairness over the duration sweep (Fig. 13). "Close" (「接近」) has no printed number: within the paper-wide tolerance, |WRCC / DCQCN − 1| ≤ 25 %. "Fair sharing" uses E0's convergence bound: the two bandwidth flows' rates differ by less than 10 % of their sum.`
}
