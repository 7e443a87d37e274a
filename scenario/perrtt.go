package scenario

import (
	"bufio"
	"io"
	"slices"
	"strconv"

	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/metrics"
)

// perRTTSummary computes the exact statistics of the per-RTT samples of
// all flows (outputs.rtt_per_rtt; docs/metrics.md §12): count, mean, p50,
// p99 (the sample at index ⌊n·p⌋ of the sorted samples) and max, in µs;
// and returns the samples of the listed flows, in the order taken, for
// rtt_per_rtt.csv.
func perRTTSummary(samples []fabric.PerRTTSample, flows []int) (*RTTSummary, []fabric.PerRTTSample) {
	st := metrics.NewRTTStats(len(samples))
	var keep []fabric.PerRTTSample
	for _, x := range samples {
		st.Add(x.RTT)
		if len(flows) > 0 && slices.Contains(flows, int(x.Flow)) {
			keep = append(keep, x)
		}
	}
	return &RTTSummary{Samples: int64(st.Count()), MeanUs: st.Mean().Microseconds(), P50Us: st.Percentile(0.5).Microseconds(),
		P99Us: st.P99().Microseconds(), MaxUs: st.Max().Microseconds()}, keep
}

// writePerRTT writes rtt_per_rtt.csv: flow_id, the ACK's arrival time and
// the RTT, ns with picosecond precision (metrics.AppendNs, as every ns
// column).
func writePerRTT(w io.Writer, samples []fabric.PerRTTSample) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.WriteString("flow_id,time_ns,rtt_ns\n")
	var buf []byte
	for _, x := range samples {
		buf = strconv.AppendInt(buf[:0], int64(x.Flow), 10)
		buf = append(buf, ',')
		buf = metrics.AppendNs(buf, x.At)
		buf = append(buf, ',')
		buf = metrics.AppendNs(buf, x.RTT)
		buf = append(buf, '\n')
		bw.Write(buf)
	}
	return bw.Flush()
}
