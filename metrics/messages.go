package metrics

import (
	"io"
	"slices"
	"strconv"

	"github.com/ccsim/ccsim/sim"
)

// MessageRecord is one completed message of a message chain (a flow that
// carries a sequence of messages on one queue pair, e.g. perftest's
// latency probe): its latency is Done − Post, the message's completion
// time (docs/metrics.md §15).
type MessageRecord struct {
	Flow int      // flow id of the chain
	Msg  int64    // 0-based index of the message in its chain
	Post sim.Time // posted: its first byte ready at the sender
	Done sim.Time // completed: the ACK of its last byte received
}

// Latency is Done − Post.
func (m MessageRecord) Latency() sim.Time { return m.Done - m.Post }

// MessagesCSVHeader is the header line (without newline) of
// WriteMessagesCSV.
const MessagesCSVHeader = "flow_id,msg,post_ns,done_ns,latency_ns"

// WriteMessagesCSV writes recs as CSV after MessagesCSVHeader, one row per
// message in the order given, times as AppendNs writes them.
func WriteMessagesCSV(w io.Writer, recs []MessageRecord) error {
	buf := make([]byte, 0, min(flushBytes, 64*len(recs))+64)
	buf = append(buf, MessagesCSVHeader...)
	buf = append(buf, '\n')
	for _, r := range recs {
		buf = strconv.AppendInt(buf, int64(r.Flow), 10)
		buf = append(buf, ',')
		buf = strconv.AppendInt(buf, r.Msg, 10)
		buf = append(buf, ',')
		buf = AppendNs(buf, r.Post)
		buf = append(buf, ',')
		buf = AppendNs(buf, r.Done)
		buf = append(buf, ',')
		buf = AppendNs(buf, r.Latency())
		buf = append(buf, '\n')
		var err error
		if buf, err = flushFull(w, buf); err != nil {
			return err
		}
	}
	_, err := w.Write(buf)
	return err
}

// LatencySummary summarises message latencies in microseconds: count,
// mean, p50, p99 (the percentile rule of docs/metrics.md §1), min and
// max. All zero when Count is 0.
type LatencySummary struct {
	Count  int     `json:"count"`
	MeanUs float64 `json:"mean_us"`
	P50Us  float64 `json:"p50_us"`
	P99Us  float64 `json:"p99_us"`
	MinUs  float64 `json:"min_us"`
	MaxUs  float64 `json:"max_us"`
}

// SummarizeLatency summarises latencies (any order; not modified).
func SummarizeLatency(lat []sim.Time) LatencySummary {
	if len(lat) == 0 {
		return LatencySummary{}
	}
	s := slices.Clone(lat)
	slices.Sort(s)
	n := len(s)
	// the mean of the exact integer sum (order-independent)
	var sum float64
	var acc sim.Time
	for _, x := range s {
		if acc > sim.Never-x {
			sum += acc.Microseconds()
			acc = 0
		}
		acc += x
	}
	sum += acc.Microseconds()
	return LatencySummary{Count: n, MeanUs: sum / float64(n),
		P50Us: s[PercentileIndex(n, 0.5)].Microseconds(), P99Us: s[PercentileIndex(n, 0.99)].Microseconds(),
		MinUs: s[0].Microseconds(), MaxUs: s[n-1].Microseconds()}
}
