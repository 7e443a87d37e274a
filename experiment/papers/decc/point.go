package decc

// The four metrics of E4 and E5 (decc.md §2.10; docs/metrics.md §16–§18),
// read from a run's result files.

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/metrics"
)

// point is one (workload size, algorithm) point over its seeds.
type point struct {
	goodput, p99, jain, loss experiment.Sample
}

// runMetrics are the four metrics of one run.
type runMetrics struct {
	goodputPct, p99Us, jain, lossPct float64
}

// readPoint reads the point of a run key over its seeds; receivers is the
// number of receiving hosts whose links' capacity the goodput ratio
// divides by (1 in E4's many-to-one, every host in E5).
func readPoint(ctx *experiment.Context, key string, receivers int) (*point, error) {
	runs, err := ctx.SeedRuns(key)
	if err != nil {
		return nil, err
	}
	p := &point{}
	for _, r := range runs {
		m, err := readRun(r, receivers)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
		p.goodput = append(p.goodput, m.goodputPct)
		p.p99 = append(p.p99, m.p99Us)
		p.jain = append(p.jain, m.jain)
		p.loss = append(p.loss, m.lossPct)
	}
	return p, nil
}

// readRun reads one run's metrics: the goodput ratio (summary.json's
// goodput rate over the receivers' link capacity, in per cent), the P99
// one-way packet latency (summary.json's latency, µs), the Jain index of
// the sending nodes' goodput (flows.csv, flow_losses.csv) and the loss
// rate (Σ data drops / Σ data packets sent, flow_losses.csv and
// flow_stats.csv, in per cent).
func readRun(r *experiment.RunRef, receivers int) (runMetrics, error) {
	var m runMetrics
	sum, err := r.Summary()
	if err != nil {
		return m, err
	}
	m.goodputPct = 100 * sum.Goodput.Gbps / (r.Scenario.Topology.LinkGbps * float64(receivers))
	m.p99Us = float64(sum.Latency.P99Ns) / 1e3
	flows, err := r.Flows()
	if err != nil {
		return m, err
	}
	fl, err := r.Table("flow_losses.csv")
	if err != nil {
		return m, err
	}
	cols, err := fl.FloatCols("goodput_bytes", "data_drops")
	if err != nil {
		return m, err
	}
	st, err := r.Table("flow_stats.csv")
	if err != nil {
		return m, err
	}
	tx, err := st.Floats("tx_packets")
	if err != nil {
		return m, err
	}
	if len(flows) != len(cols[0]) || len(tx) != len(cols[0]) {
		return m, fmt.Errorf("flows.csv has %d rows, flow_losses.csv %d, flow_stats.csv %d", len(flows), len(cols[0]), len(tx))
	}
	m.jain = nodeJain(flows, cols[0])
	m.lossPct = 100 * lossRate(cols[1], tx)
	return m, nil
}

// nodeJain is eq. (30)'s Jain index over the compute nodes that sent: x_i
// is node i's goodput, the sum of its flows' goodput bytes (every flow of a
// run shares the run's time base, so bytes stand for bandwidth). Nodes
// whose every flow never started are left out; NaN without any.
func nodeJain(flows []metrics.FlowRecord, goodput []float64) float64 {
	byNode := map[int]float64{}
	for i, f := range flows {
		if f.NotStarted {
			continue
		}
		byNode[f.Src] += goodput[i]
	}
	if len(byNode) == 0 {
		return math.NaN()
	}
	xs := make([]float64, 0, len(byNode))
	for _, n := range slices.Sorted(maps.Keys(byNode)) { // a fixed order: the same sum on every run
		xs = append(xs, byNode[n])
	}
	return metrics.Jain(xs)
}

// lossRate is Σ drops / Σ sent packets (decc.md §2.10: packets lost to
// congestion over packets transmitted); NaN when nothing was sent.
func lossRate(drops, sent []float64) float64 {
	var d, s float64
	for i := range drops {
		d += drops[i]
		s += sent[i]
	}
	if s == 0 {
		return math.NaN()
	}
	return d / s
}
