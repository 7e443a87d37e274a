package metrics

import (
	"io"
	"math"
	"strconv"
)

// Histogram counts non-negative integer values (typically queue lengths in
// bytes) in buckets of fixed width. Bucket 0 holds values <= 0; bucket k >= 1
// holds values in ((k-1)·width, k·width]. A bucket's upper edge k·width is
// thus an inclusive upper bound on its values, and an empty queue reports
// exactly 0. Buckets grow on demand, so memory is proportional to
// MaxBytes/WidthBytes; choose the width accordingly. Create with
// NewHistogram (the zero value has no width and must not be used).
type Histogram struct {
	widthBytes int64
	counts     []int64
	total      int64
	sum        float64
	maxBytes   int64
}

// NewHistogram returns an empty Histogram with the given bucket width in
// bytes. It panics if widthBytes <= 0.
func NewHistogram(widthBytes int64) *Histogram {
	if widthBytes <= 0 {
		panic("metrics: histogram width must be positive")
	}
	return &Histogram{widthBytes: widthBytes}
}

// WidthBytes is the bucket width in bytes.
func (h *Histogram) WidthBytes() int64 { return h.widthBytes }

// Add counts one observation of v bytes. Negative values count as 0.
func (h *Histogram) Add(v int64) { h.AddN(v, 1) }

// AddN counts n observations of v bytes (e.g. n = sampling periods the
// value persisted, for a time-weighted CDF). Negative v counts as 0;
// n <= 0 is ignored.
func (h *Histogram) AddN(v, n int64) {
	if n <= 0 {
		return
	}
	v = max(v, 0)
	k := int(v / h.widthBytes)
	if v%h.widthBytes != 0 {
		k++
	}
	if k >= len(h.counts) {
		h.counts = append(h.counts, make([]int64, k+1-len(h.counts))...)
	}
	h.counts[k] += n
	if h.total == 0 || v > h.maxBytes {
		h.maxBytes = v
	}
	h.total += n
	h.sum += float64(v) * float64(n)
}

// Count is the number of observations.
func (h *Histogram) Count() int64 { return h.total }

// MaxBytes is the largest observed value (0 when empty).
func (h *Histogram) MaxBytes() int64 { return h.maxBytes }

// MeanBytes is the exact mean of the observed values (0 when empty).
func (h *Histogram) MeanBytes() float64 {
	if h.total == 0 {
		return 0
	}
	return h.sum / float64(h.total)
}

// Quantile returns the upper edge (bytes) of the bucket holding the
// observation the canonical percentile rule selects: with all Count()
// observations sorted, the one at 0-based rank floor(Count·p) clamped to
// Count-1. It returns 0 when empty or p is NaN.
func (h *Histogram) Quantile(p float64) int64 {
	if h.total == 0 || math.IsNaN(p) {
		return 0
	}
	x := float64(h.total) * p
	var rank int64
	switch {
	case x <= 0:
		rank = 0
	case x >= float64(h.total-1):
		rank = h.total - 1
	default:
		rank = int64(x)
	}
	var cum int64
	for k, c := range h.counts {
		cum += c
		if cum > rank {
			return int64(k) * h.widthBytes
		}
	}
	return int64(len(h.counts)-1) * h.widthBytes // unreachable
}

// CDFPoint is one step of a histogram's cumulative distribution.
type CDFPoint struct {
	// UpperBytes is the bucket's upper edge in bytes.
	UpperBytes int64
	// Fraction is the fraction of observations <= UpperBytes.
	Fraction float64
}

// CDF returns one point per non-empty bucket, in increasing UpperBytes;
// the last point has Fraction 1. It returns nil when empty.
func (h *Histogram) CDF() []CDFPoint {
	if h.total == 0 {
		return nil
	}
	var out []CDFPoint
	var cum int64
	for k, c := range h.counts {
		if c == 0 {
			continue
		}
		cum += c
		out = append(out, CDFPoint{UpperBytes: int64(k) * h.widthBytes, Fraction: float64(cum) / float64(h.total)})
	}
	return out
}

// WriteCDF writes the CDF as text, one "bytes fraction" line per point,
// with fraction printed with 6 decimals. No header.
func (h *Histogram) WriteCDF(w io.Writer) error {
	var buf []byte
	for _, p := range h.CDF() {
		buf = strconv.AppendInt(buf, p.UpperBytes, 10)
		buf = append(buf, ' ')
		buf = strconv.AppendFloat(buf, p.Fraction, 'f', 6, 64)
		buf = append(buf, '\n')
	}
	_, err := w.Write(buf)
	return err
}
