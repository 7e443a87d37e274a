// Package report loads the result directories written by ccsim runs
// (summary.json, flows.csv, optional queue.csv) and turns them into
// comparison plots (PNG and SVG, with gonum/plot) and text tables in the
// reference analysis formats.
package report

import (
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

	path = filepath.Join(dir, QueueFile)
	f, err = os.Open(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return r, nil
	case err != nil:
		return nil, fmt.Errorf("run %s: %w", dir, err)
	}
	r.Queue, err = ReadQueueCSV(f)
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if r.Queue == nil {
		r.Queue = []QueueSample{}
	}
	return r, nil
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
