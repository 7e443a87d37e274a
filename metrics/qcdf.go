package metrics

import (
	"encoding/csv"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// QueueCDFs accumulates sampled queue lengths per port class, where the
// class is a caller-chosen label (e.g. "host-facing ToR ports", "fabric
// ports"), and reports each class's exact distribution: every distinct
// value is counted, so percentiles follow the canonical rule exactly
// (see Percentile) and memory grows with the number of distinct lengths,
// not of samples. The zero value is ready to use.
//
// Each sample weighs the same, so with a fixed sampling period the
// distribution is time-weighted. Classes keep the order of their first Add.
type QueueCDFs struct {
	index   map[string]int
	classes []*queueClass
}

type queueClass struct {
	label  string
	counts map[int64]int64
	total  int64
	sum    float64
	// sorted distinct values and their cumulative counts; nil when stale.
	vals []int64
	cum  []int64
}

// QueueStats summarizes one class of queue-length samples (bytes).
type QueueStats struct {
	// Class is the label.
	Class string `json:"class"`
	// N is the number of samples.
	N int64 `json:"n"`
	// P50, P80, P99 are percentiles by the canonical rule; Max is the
	// largest sample.
	P50 int64 `json:"p50_bytes"`
	P80 int64 `json:"p80_bytes"`
	P99 int64 `json:"p99_bytes"`
	Max int64 `json:"max_bytes"`
	// Mean is the mean queue length.
	Mean float64 `json:"mean_bytes"`
}

func (q *QueueCDFs) class(label string) *queueClass {
	if q.index == nil {
		q.index = make(map[string]int)
	}
	i, ok := q.index[label]
	if !ok {
		i = len(q.classes)
		q.index[label] = i
		q.classes = append(q.classes, &queueClass{label: label, counts: make(map[int64]int64)})
	}
	return q.classes[i]
}

// Add counts one sample of bytes queued at a port of class label.
// Negative values count as 0.
func (q *QueueCDFs) Add(label string, bytes int64) { q.AddN(label, bytes, 1) }

// AddN counts n samples of bytes at a port of class label (n <= 0 is
// ignored; negative bytes count as 0).
func (q *QueueCDFs) AddN(label string, bytes, n int64) {
	if n <= 0 {
		return
	}
	c := q.class(label)
	bytes = max(bytes, 0)
	c.counts[bytes] += n
	c.total += n
	c.sum += float64(bytes) * float64(n)
	c.vals, c.cum = nil, nil
}

// Labels returns the class labels in the order of their first Add.
func (q *QueueCDFs) Labels() []string {
	out := make([]string, len(q.classes))
	for i, c := range q.classes {
		out[i] = c.label
	}
	return out
}

// Count is the number of samples of class label (0 if unknown).
func (q *QueueCDFs) Count(label string) int64 {
	if c := q.lookup(label); c != nil {
		return c.total
	}
	return 0
}

func (q *QueueCDFs) lookup(label string) *queueClass {
	if i, ok := q.index[label]; ok {
		return q.classes[i]
	}
	return nil
}

func (c *queueClass) prepare() {
	if c.vals != nil {
		return
	}
	c.vals = make([]int64, 0, len(c.counts))
	for v := range c.counts {
		c.vals = append(c.vals, v)
	}
	slices.Sort(c.vals)
	c.cum = make([]int64, len(c.vals))
	var cum int64
	for i, v := range c.vals {
		cum += c.counts[v]
		c.cum[i] = cum
	}
}

// quantile returns the sample at 0-based rank PercentileIndex(total, p).
func (c *queueClass) quantile(p float64) int64 {
	rank := percentileIndex64(c.total, p)
	if rank < 0 {
		return 0
	}
	c.prepare()
	i, _ := slices.BinarySearch(c.cum, rank+1) // first cum >= rank+1
	return c.vals[i]
}

// percentileIndex64 is PercentileIndex for int64 counts.
func percentileIndex64(n int64, p float64) int64 {
	if n <= 0 || math.IsNaN(p) {
		return -1
	}
	x := float64(n) * p
	switch {
	case x <= 0:
		return 0
	case x >= float64(n-1):
		return n - 1
	}
	return int64(x)
}

// Quantile returns the p-quantile (bytes) of class label by the canonical
// rule; 0 when the class is unknown or empty, or p is NaN.
func (q *QueueCDFs) Quantile(label string, p float64) int64 {
	if c := q.lookup(label); c != nil {
		return c.quantile(p)
	}
	return 0
}

// Stats summarizes class label; a zero QueueStats (with Class set) when
// the class is unknown.
func (q *QueueCDFs) Stats(label string) QueueStats {
	c := q.lookup(label)
	if c == nil || c.total == 0 {
		return QueueStats{Class: label}
	}
	c.prepare()
	return QueueStats{
		Class: label, N: c.total,
		P50: c.quantile(0.50), P80: c.quantile(0.80), P99: c.quantile(0.99),
		Max:  c.vals[len(c.vals)-1],
		Mean: c.sum / float64(c.total),
	}
}

// AllStats returns Stats of every class in label order.
func (q *QueueCDFs) AllStats() []QueueStats {
	out := make([]QueueStats, len(q.classes))
	for i, c := range q.classes {
		out[i] = q.Stats(c.label)
	}
	return out
}

// CDF returns the empirical CDF of class label: one point per distinct
// sampled length, ascending, with Fraction the share of samples <=
// UpperBytes (the last point has Fraction 1). nil when unknown or empty.
func (q *QueueCDFs) CDF(label string) []CDFPoint {
	c := q.lookup(label)
	if c == nil || c.total == 0 {
		return nil
	}
	c.prepare()
	out := make([]CDFPoint, len(c.vals))
	for i, v := range c.vals {
		out[i] = CDFPoint{UpperBytes: v, Fraction: float64(c.cum[i]) / float64(c.total)}
	}
	return out
}

// QueueCDFHeader is the header of WriteQueueCDF's CSV.
const QueueCDFHeader = "class,bytes,fraction"

// WriteQueueCDF writes every class's CDF as CSV with header
// QueueCDFHeader: one row per CDF point, classes in label order, fraction
// with 6 decimals. Labels are quoted when CSV requires it.
func (q *QueueCDFs) WriteQueueCDF(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(strings.Split(QueueCDFHeader, ",")); err != nil {
		return err
	}
	for _, c := range q.classes {
		for _, p := range q.CDF(c.label) {
			if err := cw.Write([]string{c.label, strconv.FormatInt(p.UpperBytes, 10), strconv.FormatFloat(p.Fraction, 'f', 6, 64)}); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// QueueStatsHeader is the header of WriteQueueStats's CSV.
const QueueStatsHeader = "class,samples,p50_bytes,p80_bytes,p99_bytes,max_bytes,mean_bytes"

// WriteQueueStats writes AllStats as CSV with header QueueStatsHeader,
// mean with 3 decimals.
func (q *QueueCDFs) WriteQueueStats(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(strings.Split(QueueStatsHeader, ",")); err != nil {
		return err
	}
	for _, s := range q.AllStats() {
		i := func(v int64) string { return strconv.FormatInt(v, 10) }
		if err := cw.Write([]string{s.Class, i(s.N), i(s.P50), i(s.P80), i(s.P99), i(s.Max), strconv.FormatFloat(s.Mean, 'f', 3, 64)}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
