package assemble

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/topo"
)

// Size estimates (issue 19 §3.1): a scenario can be within every field's
// range and still far too big for the machine: a k = 32 fat-tree's routing
// tables took 4.9 GB in `validate`, an all-to-all over thousands of hosts
// ran `validate` out of memory building its flows, and a long run sampling
// queues every 10 ns ran out of memory with nothing written. Before the
// expensive parts are built, check estimates the memory they take and
// refuses a scenario that needs more than the machine has, naming the
// field, the estimate and the memory (Limits.MemoryBytes; `--allow-large`
// turns the check off).

// Bytes per item, measured on this code base (peak RSS of `ccsim validate`
// and `ccsim run` over fat-trees of k = 8, 16, 24 and workloads of 10^4 to
// 10^6 flows, rounded up):
const (
	// routeBytesPerPair is the routing state per (row, destination host)
	// pair, a row for every switch and every host without a single
	// neighbour (topo.Graph.RouteRows): the hop
	// counts, offsets and next-hop lists, one table shared by every
	// network a check builds (62–69 B measured from the peak RSS of
	// validating fat-trees of k = 16, 24 and 32: 43, 177 and 732 MB).
	routeBytesPerPair = 70
	// flowBytes is one flow through a run: its workload.Flow, QP, record
	// and result row.
	flowBytes = 1024
	// queueSampleBytes is one row of queue.csv in memory
	// (result.QueueSample).
	queueSampleBytes = 24
	// throughputSampleBytes is one flow's sample of outputs.
	// throughput_sample_us (metrics.ByteSeries).
	throughputSampleBytes = 16
)

// Limits bound what a check accepts.
type Limits struct {
	// MemoryBytes is the memory a scenario may need (0 = no limit).
	MemoryBytes int64
}

// DefaultLimits allows the memory available on this machine (Linux's
// MemAvailable), or no limit where it is unknown.
func DefaultLimits() Limits { return Limits{MemoryBytes: AvailableMemory()} }

// AvailableMemory returns the machine's available memory in bytes
// (/proc/meminfo MemAvailable), 0 if unknown.
func AvailableMemory() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemAvailable:"); ok {
			fs := strings.Fields(rest)
			if len(fs) == 2 && fs[1] == "kB" {
				if v, err := strconv.ParseInt(fs[0], 10, 64); err == nil {
					return v << 10
				}
			}
		}
	}
	return 0
}

// sizeItem is one estimated cost: the field that sets it, what it is, and
// its bytes.
type sizeItem struct {
	field, what string
	bytes       float64
}

// estimateGraph is the routing state of the networks a check builds (one
// table, shared; a run builds one per algorithm running at a time).
func estimateGraph(s *scenario.Scenario, g *topo.Graph) sizeItem {
	hosts, rows := 0, g.RouteRows()
	for _, k := range g.Kinds {
		if k == topo.Host {
			hosts++
		}
	}
	return sizeItem{
		field: topologyField(s),
		what:  fmt.Sprintf("routing tables of %d switches and multi-link hosts × %d destination hosts", rows, hosts),
		bytes: float64(rows) * float64(hosts) * routeBytesPerPair,
	}
}

// topologyField names the fields that size the topology of s.
func topologyField(s *scenario.Scenario) string {
	t := &s.Topology
	switch t.Kind {
	case "fat_tree":
		return fmt.Sprintf("topology.k = %d", t.K)
	case "leaf_spine":
		return fmt.Sprintf("topology (leaf_spine: %d leaves × %d hosts, %d spines)", t.Leaves, t.HostsPerLeaf, t.Spines)
	case "star":
		return fmt.Sprintf("topology.hosts = %d", t.Hosts)
	}
	return "topology (kind " + t.Kind + ")"
}

// estimateFlows is the flows the workload generates, before it is built
// (all_to_all: one per ordered pair; poisson: the offered load over the
// mean flow size; the others are small or listed); ok false when unknown.
func estimateFlows(s *scenario.Scenario, g *topo.Graph) (sizeItem, bool) {
	w := &s.Workload
	hosts := 0
	for _, k := range g.Kinds {
		if k == topo.Host {
			hosts++
		}
	}
	var flows float64
	var field string
	if a := w.AllToAll; a != nil {
		h := float64(hosts)
		if len(a.Hosts) > 0 {
			h = float64(len(a.Hosts))
		}
		flows += h * (h - 1)
		field = fmt.Sprintf("workload.all_to_all over %.0f hosts", h)
	}
	if p := w.Poisson; p != nil && p.Load > 0 && p.DurationMs > 0 {
		if c, err := cdfOf(s, p.CDF); err == nil && c.Mean() > 0 {
			h := float64(hosts)
			if len(p.Hosts) > 0 {
				h = float64(len(p.Hosts))
			}
			gbps := s.Topology.LinkGbps
			f := h * p.Load * gbps * 1e9 * p.DurationMs * 1e-3 / (8 * c.Mean())
			flows += f
			if field == "" || f > flows/2 {
				field = fmt.Sprintf("workload.poisson (load %v × %.0f hosts × duration_ms %v / mean flow %s)", p.Load, h, p.DurationMs, fmtBytes(c.Mean()))
			}
		}
	}
	if field == "" {
		return sizeItem{}, false
	}
	return sizeItem{field: field, what: fmt.Sprintf("about %.3g flows", flows), bytes: flows * flowBytes}, true
}

// estimateSamples is the samples the outputs keep in memory over the run.
func estimateSamples(s *scenario.Scenario, flows float64) []sizeItem {
	o := &s.Outputs
	var out []sizeItem
	if o.QueueSampleUs > 0 && len(o.QueuePorts) > 0 {
		n := s.StopMs * 1e3 / o.QueueSampleUs * float64(len(o.QueuePorts))
		out = append(out, sizeItem{field: fmt.Sprintf("outputs.queue_sample_us = %v (stop_ms = %v, %d queue_ports)", o.QueueSampleUs, s.StopMs, len(o.QueuePorts)),
			what: fmt.Sprintf("%.3g queue samples", n), bytes: n * queueSampleBytes})
	}
	if o.ThroughputSampleUs > 0 && flows > 0 {
		n := s.StopMs * 1e3 / o.ThroughputSampleUs * flows
		out = append(out, sizeItem{field: fmt.Sprintf("outputs.throughput_sample_us = %v (stop_ms = %v, %.0f flows)", o.ThroughputSampleUs, s.StopMs, flows),
			what: fmt.Sprintf("up to %.3g throughput samples", n), bytes: n * throughputSampleBytes})
	}
	return out
}

// tooBig returns the error for an item over the limit, nil if it fits.
func (l Limits) tooBig(it sizeItem) error {
	if l.MemoryBytes <= 0 || it.bytes <= float64(l.MemoryBytes) {
		return nil
	}
	return fmt.Errorf("%s: needs about %s (%s), more than the %s of memory available: make it smaller, or pass --allow-large to try anyway",
		it.field, fmtBytes(it.bytes), it.what, fmtBytes(float64(l.MemoryBytes)))
}

// fmtBytes formats a byte count with a binary unit.
func fmtBytes(b float64) string {
	switch {
	case b >= 1<<40:
		return fmt.Sprintf("%.1f TiB", b/(1<<40))
	case b >= 1<<30:
		return fmt.Sprintf("%.1f GiB", b/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", b/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.1f KiB", b/(1<<10))
	}
	return fmt.Sprintf("%.0f B", b)
}
