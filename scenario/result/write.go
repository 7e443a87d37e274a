package result

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/ccsim/ccsim/metrics"
	"github.com/ccsim/ccsim/workload"
)

// Write stores the result in dir: summary.json, flows.csv,
// flow_stats.csv, and the optional files the result holds data for or
// Files selects (docs/outputs.md). The files are written into a fresh
// directory beside dir that then replaces dir as a whole, so that dir
// never mixes the files of two runs. An existing dir is replaced only if
// it is empty or a result directory (it holds summary.json).
func (r *Result) Write(dir string) error {
	dir = filepath.Clean(dir)
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	if err := replaceable(dir); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".new-")
	if err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	if err := r.writeFiles(tmp); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	return replaceDir(tmp, dir)
}

// replaceable reports why dir may not be replaced by a result directory.
func replaceable(dir string) error {
	fi, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s exists and is not a directory", dir)
	}
	es, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	if len(es) == 0 {
		return nil
	}
	if st, err := os.Stat(filepath.Join(dir, "summary.json")); err == nil && st.Mode().IsRegular() {
		return nil
	}
	return fmt.Errorf("refusing to replace %s: it is not a ccsim result directory (no summary.json) and not empty", dir)
}

// replaceDir moves directory tmp to dir, removing the old dir.
func replaceDir(tmp, dir string) error {
	old := ""
	if _, err := os.Lstat(dir); err == nil {
		old = tmp + ".old"
		if err := os.Rename(dir, old); err != nil {
			os.RemoveAll(tmp)
			return err
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		if old != "" {
			os.Rename(old, dir)
		}
		os.RemoveAll(tmp)
		return err
	}
	if old != "" {
		return os.RemoveAll(old)
	}
	return nil
}

// resultFile is one file of a result directory and whether it is written.
type resultFile struct {
	name  string
	on    bool
	write func(w io.Writer) error
}

// writeFiles writes the result's files into the existing directory dir.
func (r *Result) writeFiles(dir string) error {
	js, err := json.MarshalIndent(r, "", " ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "summary.json"), append(js, '\n'), 0o644); err != nil {
		return err
	}
	if r.Series != nil {
		if err := r.Series.write(dir); err != nil {
			return err
		}
	}
	for _, f := range r.files() {
		if !f.on {
			continue
		}
		if err := writeFile(filepath.Join(dir, f.name), func(fh *os.File) error { return f.write(fh) }); err != nil {
			return err
		}
	}
	return nil
}

// files lists the CSV and text files of the result (summary.json and the
// series aside).
func (r *Result) files() []resultFile {
	return []resultFile{
		{"flows.csv", true, func(w io.Writer) error { return metrics.WriteFlowsCSV(w, r.Flows) }},
		{"flow_stats.csv", true, r.writeFlowStats},
		{"flow_losses.csv", true, r.writeFlowLosses},
		{"rtt_per_rtt.csv", r.Files.RTTPerRTT, r.writePerRTT},
		{"rate_trace.csv", r.Files.RateTrace, r.writeRateTrace},
		{"messages.csv", r.Files.Messages, func(w io.Writer) error { return metrics.WriteMessagesCSV(w, r.Messages) }},
		{"fct.txt", r.Files.RefFCT, func(w io.Writer) error { return metrics.WriteRefFCT(w, r.Flows, metrics.RefIP) }},
		{"pfc.txt", r.Files.RefPFC, func(w io.Writer) error { return metrics.WriteRefPFC(w, r.PFCEvents) }},
		{"flows.txt", r.Files.FlowFile, func(w io.Writer) error { return workload.WriteNS3Flows(w, r.Workload) }},
		{"queue_cdf.csv", r.QueueCDFs != nil, func(w io.Writer) error { return r.QueueCDFs.WriteQueueCDF(w) }},
		{"queue.csv", len(r.Queue) > 0, r.writeQueue},
	}
}

// writeFlowStats writes flow_stats.csv.
func (r *Result) writeFlowStats(f io.Writer) error {
	w := bufio.NewWriterSize(f, 1<<16)
	w.WriteString("flow_id,cnps_rx,rate_cuts,tx_packets,retx_bytes,decisions\n")
	for _, st := range r.FlowStats {
		fmt.Fprintf(w, "%d,%d,%d,%d,%d,%d\n", st.ID, st.CNPs, st.RateCuts, st.TxPackets, st.RetxByte, st.Decisions)
	}
	return w.Flush()
}

// writeFlowLosses writes flow_losses.csv (docs/outputs.md §16).
func (r *Result) writeFlowLosses(f io.Writer) error {
	w := bufio.NewWriterSize(f, 1<<16)
	w.WriteString("flow_id,sent_bytes,received_bytes,in_flight_bytes,dropped_bytes,data_drops,ctrl_drops,goodput_bytes,duration_ns,goodput_gbps\n")
	var buf []byte
	for i := range r.FlowLosses {
		x := &r.FlowLosses[i]
		buf = strconv.AppendInt(buf[:0], int64(x.ID), 10)
		for _, v := range [...]int64{x.SentBytes, x.RxBytes, x.InFlightBytes, x.DropBytes, x.DataDrops, x.CtrlDrops, x.GoodputBytes} {
			buf = append(buf, ',')
			buf = strconv.AppendInt(buf, v, 10)
		}
		buf = append(buf, ',')
		buf = metrics.AppendNs(buf, x.Duration)
		buf = append(buf, ',')
		buf = strconv.AppendFloat(buf, x.GoodputGbps(), 'f', 6, 64)
		buf = append(buf, '\n')
		w.Write(buf)
	}
	return w.Flush()
}

// writeQueue writes queue.csv, the samples of outputs.queue_ports.
func (r *Result) writeQueue(f io.Writer) error {
	fmt.Fprintln(f, "time_ns,node,port,bytes")
	for _, q := range r.Queue {
		qp := r.QueuePorts[q.Port]
		fmt.Fprintf(f, "%s,%d,%d,%d\n", metrics.AppendNs(nil, q.At), qp.Node, qp.Port, q.Bytes)
	}
	return nil
}

// writeRateTrace writes rate_trace.csv: flow_id, the time the rate or window
// was set (ns with picosecond precision), the pacing rate in b/s and the
// window in bytes from then on.
func (r *Result) writeRateTrace(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.WriteString("flow_id,time_ns,rate_bps,window_bytes\n")
	var buf []byte
	for _, x := range r.RateTrace {
		buf = strconv.AppendInt(buf[:0], int64(x.Flow), 10)
		buf = append(buf, ',')
		buf = metrics.AppendNs(buf, x.At)
		buf = append(buf, ',')
		buf = strconv.AppendInt(buf, x.Bps, 10)
		buf = append(buf, ',')
		buf = strconv.AppendInt(buf, x.Window, 10)
		buf = append(buf, '\n')
		bw.Write(buf)
	}
	return bw.Flush()
}

// writePerRTT writes rtt_per_rtt.csv: flow_id, the ACK's arrival time and
// the RTT, ns with picosecond precision (metrics.AppendNs, as every ns
// column).
func (r *Result) writePerRTT(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.WriteString("flow_id,time_ns,rtt_ns\n")
	var buf []byte
	for _, x := range r.PerRTT {
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

// writeFile creates path and fills it with fn.
func writeFile(path string, fn func(f *os.File) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := fn(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
