package dcon

// What E0 and E1 read from a testbed burst run: the long flows' wire rates
// around the burst, the sampled queues, the PAUSE frames per link and the
// time each transmitter was paused.

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/topo"
)

// burstRun is what E0/E1 read from one run (one seed). Rates are wire
// rates in Gb/s; times in ms.
type burstRun struct {
	seed                   uint64
	pre, mean, after, low  [2]float64 // f0, f1: before, during (mean, lowest bin), after the burst
	pfcMean                [2]float64 // f0, f1: mean over the PFC period
	pfcFrom, pfcTo         float64    // the PFC period (the burst window when L2 never paused S1)
	pfcPeriod              bool       // L2 paused S1 during the burst window
	rate                   [2][2][]float64
	qMax                   map[string]float64 // bytes, by port name
	q                      map[string][2][]float64
	frames                 map[string]int64 // PAUSE frames by link
	pfc                    map[string][2][]float64
	paused                 map[string]float64 // µs paused during the burst window, by transmitter
	pfcTotal               int64
	unfinishedShort, flows int
}

// queueNames are the sampled queues, as the paper names them.
var queueNames = []string{"P2/L2", "P1/L2 (ingress from S1)", "P0/S1"}

// readBurst reads every seed of run key.
func readBurst(ctx *experiment.Context, key string) ([]*burstRun, error) {
	runs, err := ctx.SeedRuns(key)
	if err != nil {
		return nil, err
	}
	out := make([]*burstRun, len(runs))
	for i, run := range runs {
		if out[i], err = analyseBurst(run, timing(ctx.Scale)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// analyseBurst reads one run.
func analyseBurst(run *experiment.RunRef, t burstTiming) (*burstRun, error) {
	r := &burstRun{seed: run.Spec.Seed, qMax: map[string]float64{}, q: map[string][2][]float64{}, frames: map[string]int64{},
		pfc: map[string][2][]float64{}, paused: map[string]float64{}}
	recs, err := run.Flows()
	if err != nil {
		return nil, err
	}
	ids := [2]int{-1, -1}
	for _, f := range recs {
		switch {
		case f.Src == tb.H[0] && f.Dst == tb.R[0] && ids[0] < 0:
			ids[0] = f.ID
		case f.Src == tb.H[1] && f.Dst == tb.R[1] && ids[1] < 0:
			ids[1] = f.ID
		case f.Src != tb.H[0] && f.Src != tb.H[1] && !f.Done:
			r.unfinishedShort++
		}
	}
	r.flows = len(recs)
	if ids[0] < 0 || ids[1] < 0 {
		return nil, fmt.Errorf("f0 (H0 → R0) or f1 (H1 → R1) missing from flows.csv")
	}
	sum, err := run.Summary()
	if err != nil {
		return nil, err
	}
	end := ms(sum.SimEndNs)
	log, err := readPFCLog(filepath.Join(run.Dir, "pfc.txt"), end)
	if err != nil {
		return nil, err
	}
	r.readPaused(log, t)
	if err := r.readRates(run, t, ids); err != nil {
		return nil, err
	}
	if err := r.readQueues(run); err != nil {
		return nil, err
	}
	if err := r.readPauses(run); err != nil {
		return nil, err
	}
	return r, nil
}

// ms converts ns to ms.
func ms(x float64) float64 { return x / 1e6 }

// wireFactor converts payload goodput to the wire rate (headers
// included) at the run's payload size.
func wireFactor(run *experiment.RunRef) float64 {
	p := 1000.0
	if run.Scenario != nil && run.Scenario.Host.PayloadBytes > 0 {
		p = float64(run.Scenario.Host.PayloadBytes)
	}
	return (p + fabric.DataHeaderBytes) / p
}

// readRates reads f0's and f1's wire rate per bin (flows ids[0], ids[1])
// and their means before, during (and lowest), and after the burst, and
// over the PFC period (readPaused sets it first).
func (r *burstRun) readRates(run *experiment.RunRef, t burstTiming, ids [2]int) error {
	fr, err := run.Table("flow_rate.csv")
	if err != nil {
		return err
	}
	v, err := fr.FloatCols("bin_start_ns", "bin_ns", "flow", "gbps")
	if err != nil {
		return err
	}
	w := wireFactor(run)
	s := t.startMs
	for k, id := range ids {
		var pre, mean, after, pfc meanOf
		r.low[k] = math.Inf(1)
		for i := range v[0] {
			if int(v[2][i]) != id || v[1][i] < 1000 {
				continue
			}
			at, to, g := ms(v[0][i]), ms(v[0][i]+v[1][i]), v[3][i]*w
			r.rate[k][0] = append(r.rate[k][0], at)
			r.rate[k][1] = append(r.rate[k][1], g)
			switch {
			case at >= t.preFrom() && to <= s:
				pre.add(g)
			case at >= s && at < t.burstTo():
				r.low[k] = math.Min(r.low[k], g)
				mean.add(g)
			case at >= t.afterFrom() && to <= t.stopMs:
				after.add(g)
			}
			if at < r.pfcTo && to > r.pfcFrom {
				pfc.add(g)
			}
		}
		r.pre[k], r.mean[k], r.after[k], r.pfcMean[k] = pre.get(), mean.get(), after.get(), pfc.get()
	}
	return nil
}

// meanOf accumulates a mean (NaN without values).
type meanOf struct {
	s float64
	n int
}

func (m *meanOf) add(x float64) { m.s += x; m.n++ }
func (m *meanOf) get() float64 {
	if m.n == 0 {
		return math.NaN()
	}
	return m.s / float64(m.n)
}

// readQueues reads the three sampled queues (P2/L2, P0/S1, and P1/L2's
// ingress) and their maxima.
func (r *burstRun) readQueues(run *experiment.RunRef) error {
	qs, err := run.Table("queue_series.csv")
	if err != nil {
		return err
	}
	qv, err := qs.FloatCols("bin_start_ns", "node", "port", "max_bytes")
	if err != nil {
		return err
	}
	dir, err := qs.Col("dir")
	if err != nil {
		return err
	}
	for i := range qv[0] {
		node, port, d := int(qv[1][i]), int(qv[2][i]), qs.Rows[i][dir]
		name := ""
		switch {
		case node == tb.P2L2.Node && port == tb.P2L2.Port && d == "egress":
			name = queueNames[0]
		case node == tb.P1L2.Node && port == tb.P1L2.Port && d == "ingress":
			name = queueNames[1]
		case node == tb.P0S1.Node && port == tb.P0S1.Port && d == "egress":
			name = queueNames[2]
		default:
			continue
		}
		x := r.q[name]
		x[0], x[1] = append(x[0], ms(qv[0][i])), append(x[1], qv[3][i]/1e3)
		r.q[name] = x
		r.qMax[name] = math.Max(r.qMax[name], qv[3][i])
	}
	return nil
}

// readPauses counts the PAUSE frames of every link and, per bin, those of
// the plotted links.
func (r *burstRun) readPauses(run *experiment.RunRef) error {
	pb, err := run.Table("pfc_bins.csv")
	if err != nil {
		return err
	}
	pv, err := pb.FloatCols("bin_start_ns", "bin_ns", "from_node", "from_port", "pause_frames")
	if err != nil {
		return err
	}
	for i := range pv[0] {
		r.pfcTotal += int64(pv[4][i])
		for _, l := range pauseLinks {
			if int(pv[2][i]) == l.fromNode && int(pv[3][i]) == l.fromPt {
				r.frames[l.name] += int64(pv[4][i])
				x := r.pfc[l.name]
				// frames per ms over the bin
				x[0], x[1] = append(x[0], ms(pv[0][i])), append(x[1], pv[4][i]/(pv[1][i]/1e6))
				r.pfc[l.name] = x
			}
		}
	}
	return nil
}

// readPaused sums each transmitter's paused time within the burst window
// and finds the PFC period: the span of the times S1's port to L2 was
// paused by L2 that overlap the burst window.
func (r *burstRun) readPaused(log map[topo.NodePort][]span, t burstTiming) {
	for _, p := range pausedPorts {
		r.paused[p.name] = 1e3 * overlap(log[p.at], t.startMs, t.burstTo())
	}
	r.pfcFrom, r.pfcTo = t.startMs, t.burstTo()
	first := true
	for _, sp := range log[tb.P0S1] {
		if sp.to <= t.startMs || sp.from >= t.burstTo() {
			continue
		}
		if first {
			r.pfcFrom, r.pfcTo, first = max(sp.from, t.startMs), sp.to, false
		}
		r.pfcTo = max(r.pfcTo, sp.to)
	}
	r.pfcPeriod = !first
}

// span is a time interval [from, to) in ms.
type span struct{ from, to float64 }

// overlap is the time (ms) the spans cover within [a, b).
func overlap(spans []span, a, b float64) float64 {
	s := 0.0
	for _, sp := range spans {
		s += max(0, min(sp.to, b)-max(sp.from, a))
	}
	return s
}

// readPFCLog reads a run's pfc.txt (docs/outputs.md §5).
func readPFCLog(path string, endMs float64) (map[topo.NodePort][]span, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m, err := parsePFCLog(f, endMs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// parsePFCLog turns pfc.txt's frames ("time_ns node node_type port type",
// one line per frame received by the paused device, port 1-based, type 1
// pause, 0 resume) into each transmitter's paused spans: from a PAUSE to
// the next RESUME (a repeated PAUSE extends nothing), the last one until
// endMs if never resumed.
func parsePFCLog(r io.Reader, endMs float64) (map[topo.NodePort][]span, error) {
	out := map[topo.NodePort][]span{}
	open := map[topo.NodePort]float64{}
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		var v [5]int64
		if len(f) != 5 {
			return nil, fmt.Errorf("line %d: %d fields, want 5", line, len(f))
		}
		for i, x := range f {
			n, err := strconv.ParseInt(x, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", line, err)
			}
			v[i] = n
		}
		at, np := ms(float64(v[0])), topo.NodePort{Node: int(v[1]), Port: int(v[3]) - 1}
		from, paused := open[np]
		switch {
		case v[4] == 1 && !paused:
			open[np] = at
		case v[4] == 0 && paused:
			out[np] = append(out[np], span{from, at})
			delete(open, np)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	for np, from := range open {
		out[np] = append(out[np], span{from, max(from, endMs)})
	}
	return out, nil
}
