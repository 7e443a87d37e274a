package result

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/ccsim/ccsim/metrics"
	"github.com/ccsim/ccsim/sim"
)

// Series are the binned time series of a run (outputs.series), finished
// rows as assemble's recorder hands them over. Bins are [First + k·bin,
// First + (k+1)·bin); the last bin ends at the end of the run and may be
// shorter. The files, their columns and definitions are in
// docs/outputs.md §13. A nil member is a series that is off (no file).
type Series struct {
	// First is the origin of the bins, the first flow start: the files
	// give times relative to it.
	First    sim.Time
	FlowRate *FlowRateSeries // flow_rate.csv
	LinkRate *LinkRateSeries // link_rate.csv
	Queue    *QueueSeries    // queue_series.csv
	PFC      *PFCSeries      // pfc_bins.csv
}

// FlowRateSeries is flow_rate.csv: delivered bytes per bin of each flow,
// or of the flows of each sender or receiver.
type FlowRateSeries struct {
	// By names the column that identifies a row's group: flow, src or dst
	// (outputs.series.flow_rate).
	By string
	// IDs are the groups' flow ids (By flow) or node ids, by group index.
	IDs  []int
	Rows []FlowRateRow
}

// FlowRateRow is one group's delivered bytes in one bin.
type FlowRateRow struct {
	Start, Length sim.Time
	Group         int // index into FlowRateSeries.IDs
	Bytes         int64
}

// LinkRateSeries is link_rate.csv: the bytes each port started
// transmitting per bin.
type LinkRateSeries struct {
	Ports []Port
	Rows  []LinkRateRow
}

// LinkRateRow is one port's transmitted bytes in one bin: on the wire
// (all packets) and the data payload among them.
type LinkRateRow struct {
	Start, Length sim.Time
	Link          int // index into LinkRateSeries.Ports
	Wire, Payload int64
}

// QueueSeries is queue_series.csv: queue-length samples summarised per
// bin.
type QueueSeries struct {
	// Ports are the sampled ports: egress queues, then the last Ingress of
	// them ingress queues.
	Ports   []Port
	Ingress int
	Rows    []QueueRow
}

// QueueRow summarises the N samples of one port's queue in the bin that
// starts at Start.
type QueueRow struct {
	Start         sim.Time
	Port          int // index into QueueSeries.Ports
	Min, Max, Sum int64
	N             int64
}

// PFCSeries is pfc_bins.csv: PAUSE frames per link direction per bin.
type PFCSeries struct {
	Bin  sim.Time // bin width
	Rows []PFCRow // in the order of the file (bin, then from, then to)
}

// PFCRow counts the PAUSE frames the port (FromNode, FromPort) sent to its
// peer (ToNode, ToPort) in bin number Bin.
type PFCRow struct {
	Bin                                int64
	FromNode, FromPort, ToNode, ToPort int32
	Pauses                             int64
}

// write stores the series files in dir.
func (sr *Series) write(dir string) error {
	if f := sr.FlowRate; f != nil {
		if err := writeRows(dir, "flow_rate.csv", "bin_start_ns,bin_ns,"+f.By+",bytes,gbps", len(f.Rows), func(buf []byte, i int) []byte {
			r := &f.Rows[i]
			buf = append(metrics.AppendNs(buf, r.Start-sr.First), ',')
			buf = append(metrics.AppendNs(buf, r.Length), ',')
			buf = strconv.AppendInt(buf, int64(f.IDs[r.Group]), 10)
			buf = append(buf, ',')
			buf = strconv.AppendInt(buf, r.Bytes, 10)
			buf = append(buf, ',')
			return appendGbps(buf, r.Bytes, r.Length)
		}); err != nil {
			return err
		}
	}
	if l := sr.LinkRate; l != nil {
		if err := writeRows(dir, "link_rate.csv", "bin_start_ns,bin_ns,node,port,wire_bytes,payload_bytes,wire_gbps,payload_gbps", len(l.Rows), func(buf []byte, i int) []byte {
			r := &l.Rows[i]
			p := l.Ports[r.Link]
			buf = append(metrics.AppendNs(buf, r.Start-sr.First), ',')
			buf = append(metrics.AppendNs(buf, r.Length), ',')
			buf = fmt.Appendf(buf, "%d,%d,%d,%d,", p.Node, p.Port, r.Wire, r.Payload)
			buf = append(appendGbps(buf, r.Wire, r.Length), ',')
			return appendGbps(buf, r.Payload, r.Length)
		}); err != nil {
			return err
		}
	}
	if q := sr.Queue; q != nil {
		eg := len(q.Ports) - q.Ingress
		if err := writeRows(dir, "queue_series.csv", "bin_start_ns,node,port,dir,samples,min_bytes,mean_bytes,max_bytes", len(q.Rows), func(buf []byte, i int) []byte {
			r := &q.Rows[i]
			p := q.Ports[r.Port]
			dir := "egress"
			if r.Port >= eg {
				dir = "ingress"
			}
			buf = append(metrics.AppendNs(buf, r.Start-sr.First), ',')
			return fmt.Appendf(buf, "%d,%d,%s,%d,%d,%.1f,%d", p.Node, p.Port, dir, r.N, r.Min, float64(r.Sum)/float64(r.N), r.Max)
		}); err != nil {
			return err
		}
	}
	if p := sr.PFC; p != nil {
		if err := writeRows(dir, "pfc_bins.csv", "bin_start_ns,bin_ns,from_node,from_port,to_node,to_port,pause_frames", len(p.Rows), func(buf []byte, i int) []byte {
			r := &p.Rows[i]
			buf = append(metrics.AppendNs(buf, sim.Time(r.Bin)*p.Bin), ',')
			buf = append(metrics.AppendNs(buf, p.Bin), ',')
			return fmt.Appendf(buf, "%d,%d,%d,%d,%d", r.FromNode, r.FromPort, r.ToNode, r.ToPort, r.Pauses)
		}); err != nil {
			return err
		}
	}
	return nil
}

// appendGbps appends the rate of bytes over d in Gb/s (8 significant
// digits; 0 for an empty interval).
func appendGbps(buf []byte, bytes int64, d sim.Time) []byte {
	if d <= 0 {
		return append(buf, '0')
	}
	return strconv.AppendFloat(buf, float64(bytes)*8/d.Seconds()/1e9, 'g', 8, 64)
}

// writeRows writes the CSV file dir/name: the header line, then rows
// lines, each made by row (which appends row i to buf, without the
// newline).
func writeRows(dir, name, header string, rows int, row func(buf []byte, i int) []byte) error {
	return writeFile(filepath.Join(dir, name), func(f *os.File) error {
		w := bufio.NewWriterSize(f, 1<<16)
		w.WriteString(header + "\n")
		var buf []byte
		for i := range rows {
			buf = row(buf[:0], i)
			buf = append(buf, '\n')
			w.Write(buf)
		}
		return w.Flush()
	})
}
