// Package report loads the result directories written by ccsim runs
// (summary.json, flows.csv, optional queue.csv) and turns them into
// comparison plots (PNG and SVG, with gonum/plot) and text tables in the
// reference analysis formats.
package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/ccsim/ccsim/metrics"
	"github.com/ccsim/ccsim/scenario/result"
	"github.com/ccsim/ccsim/sim"
)

// File names inside a run directory.
const (
	SummaryFile = "summary.json"
	FlowsFile   = "flows.csv"
	QueueFile   = "queue.csv"
	// QueueCDFFile holds the queue-length distributions when the samples
	// were not kept (outputs.queue_cdf).
	QueueCDFFile = "queue_cdf.csv"
	// RunRecordFile marks a run of a reproduction's store (experiment.Record).
	RunRecordFile = "run.json"
)

// Run is one run directory loaded into memory.
type Run struct {
	// Dir is the directory the run was loaded from.
	Dir string
	// Label names the run in plots and tables: summary.json "cc" (the
	// directory's base name if that is empty).
	Label string
	// Summary is summary.json decoded. Its fields tagged json:"-" (per-flow
	// records, queue samples) are not set: see Flows and Queue.
	Summary result.Result
	// Flows are the records of flows.csv.
	Flows []metrics.FlowRecord
	// Queue are the samples of queue.csv; nil when the file is absent.
	Queue []QueueSample
	// QueueCDF is queue_cdf.csv when queue.csv is absent; nil otherwise.
	QueueCDF *QueueCDF
	// Stored reports a run of a reproduction's store (it has a run.json):
	// its directory is content-addressed and must not be written into.
	Stored bool
}

// End is the run's end (summary.json's sim_end_ns), where its unfinished
// flows are censored (docs/metrics.md §5).
func (r *Run) End() sim.Time { return r.Summary.End() }

// QueueSample is one row of queue.csv.
type QueueSample struct {
	// At is the sampling time.
	At sim.Time
	// Node and Port identify the sampled egress port (port = index of the
	// link at the node, 0-based, as in the scenario's outputs.queue_ports).
	Node, Port int
	// Bytes is the queue length in bytes.
	Bytes int64
}

// QueueCSVHeader is the header line of queue.csv.
const QueueCSVHeader = "time_ns,node,port,bytes"

// LoadRun reads the run directory dir: summary.json and flows.csv are
// required, queue.csv is optional. Errors name the offending file.
func LoadRun(dir string) (*Run, error) {
	r := &Run{Dir: dir}
	path := filepath.Join(dir, SummaryFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", dir, err)
	}
	if err := json.Unmarshal(b, &r.Summary); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	r.Label = r.Summary.CC
	if r.Label == "" {
		r.Label = filepath.Base(filepath.Clean(dir))
	}

	path = filepath.Join(dir, FlowsFile)
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", dir, err)
	}
	r.Flows, err = metrics.ReadFlowsCSV(f)
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}

	if err := r.loadQueue(); err != nil {
		return nil, err
	}
	if err := r.loadRecord(); err != nil {
		return nil, err
	}
	return r, nil
}

// loadQueue reads queue.csv, else queue_cdf.csv (a run that kept only the
// distributions, outputs.queue_cdf; issue 19 §3.8: it was ignored).
func (r *Run) loadQueue() error {
	path := filepath.Join(r.Dir, QueueFile)
	f, err := os.Open(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return r.loadQueueCDF()
	case err != nil:
		return fmt.Errorf("run %s: %w", r.Dir, err)
	}
	r.Queue, err = ReadQueueCSV(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if r.Queue == nil {
		r.Queue = []QueueSample{}
	}
	return nil
}

// loadQueueCDF reads queue_cdf.csv (header metrics.QueueCDFHeader: class,
// bytes, fraction rows, each class's points in increasing order) into
// QueueCDF, if the file exists.
func (r *Run) loadQueueCDF() error {
	path := filepath.Join(r.Dir, QueueCDFFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("run %s: %w", r.Dir, err)
	}
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if len(rows) == 0 || strings.Join(rows[0], ",") != metrics.QueueCDFHeader {
		return fmt.Errorf("%s: header is not %q", path, metrics.QueueCDFHeader)
	}
	q := &QueueCDF{}
	for i, row := range rows[1:] {
		v, err1 := strconv.ParseInt(row[1], 10, 64)
		fr, err2 := strconv.ParseFloat(row[2], 64)
		if err := errors.Join(err1, err2); err != nil || !(fr >= 0 && fr <= 1) {
			return fmt.Errorf("%s: line %d: want class, bytes, fraction in [0, 1]: %q", path, i+2, row)
		}
		if n := len(q.Classes); n == 0 || q.Classes[n-1] != row[0] {
			q.Classes = append(q.Classes, row[0])
			q.Points = append(q.Points, nil)
		}
		k := len(q.Points) - 1
		q.Points[k] = append(q.Points[k], metrics.CDFPoint{UpperBytes: v, Fraction: fr})
	}
	r.QueueCDF = q
	return nil
}

// QueueCDF is a run's queue_cdf.csv: the queue-length distribution of each
// port class, as the run wrote it.
type QueueCDF struct {
	Classes []string             // in the file's order
	Points  [][]metrics.CDFPoint // per class, increasing
}

// P99 is the smallest queue length whose fraction reaches 0.99 in class k.
func (q *QueueCDF) P99(k int) int64 {
	for _, p := range q.Points[k] {
		if p.Fraction >= 0.99 {
			return p.UpperBytes
		}
	}
	return 0
}

// runRecord is the part of a reproduction's run.json (experiment.Record)
// that names the run.
type runRecord struct {
	Key  string `json:"key"`
	CC   string `json:"cc"`
	Base string `json:"base_scenario"`
	Seed uint64 `json:"seed"`
}

// loadRecord labels a run of a reproduction's store (runs/<hash>/, with a
// run.json) by its key, else by its algorithm, base scenario and seed, so
// that plots of a runs/ tree are not labelled by hash paths (issue 19
// §3.8).
func (r *Run) loadRecord() error {
	b, err := os.ReadFile(filepath.Join(r.Dir, RunRecordFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("run %s: %w", r.Dir, err)
	}
	var rec runRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(r.Dir, RunRecordFile), err)
	}
	r.Stored = true
	switch {
	case rec.Key != "" && strings.Contains(rec.Key, "cc="):
		r.Label = rec.Key
	case rec.Key != "":
		r.Label = r.Label + " " + rec.Key
	case rec.Base != "":
		r.Label = fmt.Sprintf("%s %s seed=%d", r.Label, strings.TrimSuffix(rec.Base, ".yaml"), rec.Seed)
	}
	return nil
}

// IsRunDir reports whether dir holds a summary.json.
func IsRunDir(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, SummaryFile))
	return err == nil && st.Mode().IsRegular()
}

// LoadRuns loads each of dirs, which is either a run directory (it holds
// summary.json) or a scenario results directory whose subdirectories
// holding summary.json are runs (loaded in name order; other
// subdirectories are ignored). A directory that is neither is an error.
func LoadRuns(dirs ...string) ([]*Run, error) {
	var runs []*Run
	for _, dir := range dirs {
		if IsRunDir(dir) {
			r, err := LoadRun(dir)
			if err != nil {
				return nil, err
			}
			runs = append(runs, r)
			continue
		}
		ents, err := os.ReadDir(dir)
		if err != nil {
			return nil, err
		}
		n := 0
		for _, e := range ents { // ReadDir sorts by name
			sub := filepath.Join(dir, e.Name())
			if !e.IsDir() || !IsRunDir(sub) {
				continue
			}
			r, err := LoadRun(sub)
			if err != nil {
				return nil, err
			}
			runs = append(runs, r)
			n++
		}
		if n == 0 {
			return nil, fmt.Errorf("%s: not a run directory (no %s) and no subdirectory holds a %s",
				dir, filepath.Join(dir, SummaryFile), SummaryFile)
		}
	}
	return runs, nil
}

// ReadQueueCSV parses queue.csv (header QueueCSVHeader, then
// time_ns,node,port,bytes rows with time_ns as written by
// metrics.AppendNs). Errors name the line.
func ReadQueueCSV(r io.Reader) ([]QueueSample, error) {
	var out []QueueSample
	err := metrics.ReadCSVRows(r, "queue csv", QueueCSVHeader, func(line string) error {
		f := strings.Split(line, ",")
		if len(f) != 4 {
			return fmt.Errorf("want 4 fields, got %d", len(f))
		}
		var q QueueSample
		var err error
		if q.At, err = metrics.ParseNs(f[0]); err != nil {
			return fmt.Errorf("time_ns: %w", err)
		}
		if q.Node, err = strconv.Atoi(f[1]); err != nil {
			return fmt.Errorf("node %q: not an integer", f[1])
		}
		if q.Port, err = strconv.Atoi(f[2]); err != nil {
			return fmt.Errorf("port %q: not an integer", f[2])
		}
		if q.Bytes, err = strconv.ParseInt(f[3], 10, 64); err != nil {
			return fmt.Errorf("bytes %q: not an integer", f[3])
		}
		out = append(out, q)
		return nil
	})
	return out, err
}

// AllPorts is the class label QueueCDFs uses when no classifier is given.
const AllPorts = "all sampled ports"

// QueueCDFs returns the queue-length distributions of the run's queue
// samples, one class per label that classify returns for a (node, port)
// (nil classify: one class, AllPorts). Ports for which classify returns
// "" are skipped. nil when the run has no queue samples.
func (r *Run) QueueCDFs(classify func(node, port int) string) *metrics.QueueCDFs {
	if len(r.Queue) == 0 {
		return nil
	}
	q := &metrics.QueueCDFs{}
	for _, s := range r.Queue {
		label := AllPorts
		if classify != nil {
			if label = classify(s.Node, s.Port); label == "" {
				continue
			}
		}
		q.Add(label, s.Bytes)
	}
	return q
}

// Labels returns display labels for runs, in order: each run's Label,
// disambiguated when several runs share one, first by the scenario name
// ("dcqcn (incast20)") and then by the directory.
func Labels(runs []*Run) []string {
	out := make([]string, len(runs))
	count := func(f func(*Run) string) map[string]int {
		m := map[string]int{}
		for _, r := range runs {
			m[f(r)]++
		}
		return m
	}
	byLabel := count(func(r *Run) string { return r.Label })
	byScen := count(func(r *Run) string { return r.Label + "\x00" + r.Summary.Scenario })
	for i, r := range runs {
		switch {
		case byLabel[r.Label] == 1:
			out[i] = r.Label
		case r.Summary.Scenario != "" && byScen[r.Label+"\x00"+r.Summary.Scenario] == 1:
			out[i] = r.Label + " (" + r.Summary.Scenario + ")"
		default:
			out[i] = r.Label + " (" + filepath.Clean(r.Dir) + ")"
		}
	}
	// Identical directories given twice: number the repeats.
	seen := map[string]int{}
	for i := range out {
		seen[out[i]]++
		if k := seen[out[i]]; k > 1 {
			out[i] += " #" + strconv.Itoa(k)
		}
	}
	return out
}

// fileLabel turns a label into a file-name-safe string.
func fileLabel(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			b[i] = '_'
		}
	}
	return strings.Trim(string(b), "_.")
}

// scenarioName is the scenario shared by all runs, or "".
func scenarioName(runs []*Run) string {
	names := make([]string, 0, len(runs))
	for _, r := range runs {
		names = append(names, r.Summary.Scenario)
	}
	names = slices.Compact(names)
	if len(names) == 1 {
		return names[0]
	}
	return ""
}
