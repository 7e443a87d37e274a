package dcqcnp

// Table 4's metrics as ccsim interprets them (docs/metrics.md §13), read
// from one run's result files.

import (
	"fmt"
	"math"
	"slices"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/scenario"
)

// e3Result is one run's metrics.
type e3Result struct {
	// minimum rate (Gb/s) over whole windows while ≥ 2 senders are
	// unfinished, while all are, and to the last completion; NaN when no
	// whole window qualifies
	minLoaded, minActive, minToLast float64
	minAtMs                         float64 // start of the loaded minimum's window
	minUnfinished                   int     // senders unfinished in it
	avgWire, avgPay                 float64
	ict                             float64 // ns
	ictState                        string
	// fairness: CoV (%) of per-flow throughput over the whole run, the
	// same under ideal sharing, and normalised by each flow's fair share
	covRaw, covIdeal, covNorm float64
	cnps, cuts, pauses        int64
	events                    int64
	wall                      float64
	dataPkts                  int64
	lastMs                    float64
	censored                  int
	link                      []linkBin
	queue                     []queueBin
}

func e3Metrics(run *experiment.RunRef, window float64) (*e3Result, error) {
	sum, err := run.Summary()
	if err != nil {
		return nil, err
	}
	recs, err := run.Flows()
	if err != nil {
		return nil, err
	}
	snd := senderFlows(recs, sum.End())
	if len(snd) == 0 {
		return nil, fmt.Errorf("no flows")
	}
	r := &e3Result{cnps: sum.Congestion.CNPs, cuts: sum.Congestion.RateCuts, pauses: sum.PFC.PauseFrames,
		events: sum.Events, wall: sum.WallSeconds, censored: censored(snd)}
	p := int64(payloadOf(run))
	for _, f := range recs {
		r.dataPkts += (f.SizeBytes + p - 1) / p
	}
	done := make([]float64, len(snd))
	for i, s := range snd {
		done[i] = s.Done().Nanoseconds()
	}
	slices.Sort(done)
	last := done[len(done)-1]
	r.lastMs = last / 1e6
	if r.link, err = receiverLink(run); err != nil {
		return nil, err
	}
	var at float64
	r.minLoaded, at = minRate(r.link, window, loadedEnd(snd))
	r.minAtMs = at / 1e6
	for _, d := range done {
		if d > at {
			r.minUnfinished++
		}
	}
	r.minActive, _ = minRate(r.link, window, done[0])
	r.minToLast, _ = minRate(r.link, window, last)
	r.avgWire, r.avgPay = meanRate(r.link, last)
	if r.queue, err = bottleneckQueue(run); err != nil {
		return nil, err
	}
	r.ict, r.ictState = incastCompletion(r.queue)
	ps, err := idealFCTs(run.Scenario)
	if err != nil {
		return nil, err
	}
	r.covRaw, r.covIdeal, r.covNorm = fairness(snd, ps)
	return r, nil
}

func payloadOf(run *experiment.RunRef) int {
	if run.Scenario != nil {
		return run.Scenario.Host.PayloadBytes
	}
	return 1024
}

// windowUs is the window of the minimum-rate metric at a scale.
func windowUs(sc experiment.Scale) float64 { return experiment.AtScale(sc, 10.0, 100.0) }

// linkBin is one bin of link_rate.csv for the receiver's link.
type linkBin struct {
	Start, Len     float64 // ns
	Wire, Payload  int64   // bytes
	WireG, PayLoad float64 // Gb/s
}

func receiverLink(run *experiment.RunRef) ([]linkBin, error) {
	t, err := run.Table("link_rate.csv")
	if err != nil {
		return nil, err
	}
	v, err := t.FloatCols("bin_start_ns", "bin_ns", "node", "port", "wire_bytes", "payload_bytes", "wire_gbps", "payload_gbps")
	if err != nil {
		return nil, err
	}
	var out []linkBin
	for k := range t.Rows {
		if v[2][k] != switchID || v[3][k] != recvPort {
			continue
		}
		out = append(out, linkBin{Start: v[0][k], Len: v[1][k], Wire: int64(v[4][k]), Payload: int64(v[5][k]), WireG: v[6][k], PayLoad: v[7][k]})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("link_rate.csv has no rows of switch %d port %d", switchID, recvPort)
	}
	return out, nil
}

// queueBin is one bin of queue_series.csv for the bottleneck port.
type queueBin struct {
	Start          float64 // ns
	Min, Mean, Max float64 // bytes
}

func bottleneckQueue(run *experiment.RunRef) ([]queueBin, error) {
	t, err := run.Table("queue_series.csv")
	if err != nil {
		return nil, err
	}
	v, err := t.FloatCols("bin_start_ns", "node", "port", "min_bytes", "mean_bytes", "max_bytes")
	if err != nil {
		return nil, err
	}
	var out []queueBin
	for k := range t.Rows {
		if v[1][k] == switchID && v[2][k] == recvPort {
			out = append(out, queueBin{Start: v[0][k], Min: v[3][k], Mean: v[4][k], Max: v[5][k]})
		}
	}
	return out, nil
}

// loadedEnd is the time from which fewer than 2 senders are unfinished:
// the second-to-last sender's completion (censored senders count as
// unfinished to the run's end). The minimum rate is taken only over
// windows before it: the incast is many-to-one, and this criterion depends
// on the workload alone, not on how an algorithm uses the link.
func loadedEnd(snd []senderFlow) float64 {
	done := make([]float64, len(snd))
	for i, s := range snd {
		done[i] = s.Done().Nanoseconds()
	}
	slices.Sort(done)
	if len(done) < 2 {
		return 0
	}
	return done[len(done)-2]
}

// minRate is the minimum over whole windows of the receiver link's wire
// rate, after the first window and ending by endNs (docs/metrics.md §13),
// and the start of its window (ns); NaN when no window qualifies.
func minRate(bins []linkBin, window float64, endNs float64) (gbps, at float64) {
	gbps, at = math.NaN(), math.NaN()
	for _, b := range bins {
		if b.Len < window || b.Start < window || b.Start+b.Len > endNs {
			continue
		}
		if math.IsNaN(gbps) || b.WireG < gbps {
			gbps, at = b.WireG, b.Start
		}
	}
	return gbps, at
}

// meanRate is the receiver link's mean wire and payload rate from the
// start to endNs (the last completion).
func meanRate(bins []linkBin, endNs float64) (wire, payload float64) {
	var w, p int64
	for _, b := range bins {
		if b.Start < endNs {
			w += b.Wire
			p += b.Payload
		}
	}
	return float64(w) * 8 / endNs, float64(p) * 8 / endNs
}

// kminBytes is the paper's K_min, 100 KiB (§3.1): the bottleneck queue
// falling below it ends the incast episode.
const kminBytes = 100 << 10

// incastCompletion is the time from the synchronous start until the
// bottleneck queue first drains below K_min after exceeding it (paper
// 004's "incast completion time", interpreted). state says "ok", "never
// congested" (0) or "never drained" (the end of the samples).
func incastCompletion(q []queueBin) (ns float64, state string) {
	exceeded := false
	for _, b := range q {
		if !exceeded {
			// the episode starts in the first bin in which the queue
			// reached K_min; it ends in the first later bin that holds a
			// sample below K_min
			exceeded = b.Max >= kminBytes
			continue
		}
		if b.Min < kminBytes {
			return b.Start, "ok"
		}
	}
	if !exceeded {
		return 0, "never congested"
	}
	if len(q) == 0 {
		return 0, "no samples"
	}
	return q[len(q)-1].Start, "never drained"
}

// idealFCTs are the senders' completion times (ns, by sender) under ideal
// processor sharing of the receiver link's payload rate (its rate × P /
// (P + 48)), with the incast's sizes and start.
func idealFCTs(s *scenario.Scenario) (map[int]float64, error) {
	bps, err := receiverBps(s)
	if err != nil {
		return nil, err
	}
	in := s.Workload.Incast
	if in == nil || len(in.SizesBytes) != len(in.Senders) {
		return nil, fmt.Errorf("no incast workload with one size per sender")
	}
	p := float64(s.Host.PayloadBytes)
	sizes := make([]float64, len(in.SizesBytes))
	for i, b := range in.SizesBytes {
		sizes[i] = float64(b)
	}
	fct := psFCT(sizes, bps*p/(p+hdrBytes))
	out := map[int]float64{}
	for i, src := range in.Senders {
		out[int(src)] = fct[i]
	}
	return out, nil
}

// psFCT is the completion time (ns) of flows of the given sizes (bytes)
// that start together and share a link of rate bps equally (processor
// sharing): the smallest remaining flow finishes first.
func psFCT(sizes []float64, bps float64) []float64 {
	idx := make([]int, len(sizes))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case sizes[a] < sizes[b]:
			return -1
		case sizes[a] > sizes[b]:
			return 1
		}
		return 0
	})
	out := make([]float64, len(sizes))
	t, sent := 0.0, 0.0 // ns; bytes each active flow has received
	for k, i := range idx {
		n := float64(len(idx) - k) // active flows
		t += (sizes[i] - sent) * 8 * n / bps * 1e9
		sent = sizes[i]
		out[i] = t
	}
	return out
}

// fairness is the CoV (%, population) over the senders of their throughput
// over the whole run (bytes / FCT, censored FCTs for unfinished senders:
// an upper bound of their throughput), the same CoV under ideal sharing
// (ps: each sender's ideal FCT), and the CoV of the throughput normalised
// by the ideal one (ideal FCT / FCT: 0 when every flow gets its fair
// share, or the same fraction of it).
func fairness(snd []senderFlow, ps map[int]float64) (raw, ideal, norm float64) {
	var x, xi, y []float64
	for _, s := range snd {
		fct := s.FCT.Nanoseconds()
		x = append(x, float64(s.Bytes)/fct)
		xi = append(xi, float64(s.Bytes)/ps[s.Src])
		y = append(y, ps[s.Src]/fct)
	}
	return cov(x), cov(xi), cov(y)
}

// cov is the coefficient of variation (population std / mean) in %.
func cov(xs []float64) float64 {
	mean, sd := meanSD(xs)
	return 100 * sd / mean
}

func meanSD(xs []float64) (mean, sd float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		sd += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(sd / float64(len(xs)))
}

// pausesPerMs sums the PAUSE frames of every link per millisecond.
func pausesPerMs(run *experiment.RunRef) (x, y []float64, err error) {
	t, err := run.Table("pfc_bins.csv")
	if err != nil {
		return nil, nil, err
	}
	v, err := t.FloatCols("bin_start_ns", "pause_frames")
	if err != nil {
		return nil, nil, err
	}
	start, n := v[0], v[1]
	per := map[int]float64{}
	last := 0
	for k := range start {
		ms := int(start[k] / 1e6)
		per[ms] += n[k]
		last = max(last, ms)
	}
	for ms := 0; ms <= last; ms++ {
		x, y = append(x, float64(ms)), append(y, per[ms])
	}
	return x, y, nil
}
