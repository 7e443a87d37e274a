package experiment

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/ccsim/ccsim/metrics"
	"github.com/ccsim/ccsim/report"
	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/scenario/result"
)

// Context gives an experiment's analysis its runs, read from their result
// files (never from memory: a report can be rebuilt from a result tree
// alone).
type Context struct {
	Paper *Paper
	Exp   *Experiment
	Scale Scale
	Dir   string // OUT/PAPER
	// Reading is the reading of the setup being analysed (the zero
	// Reading, primary, when the experiment declares none).
	Reading  Reading
	runs     []*RunRef
	byKey    map[string]*RunRef
	measures map[string]Measure
}

// Measure records what the analysis measured for claim id; the machinery
// decides the claim's verdict from it (Evaluate). A second measure of the
// same claim replaces the first.
func (c *Context) Measure(id string, m Measure) {
	if c.measures == nil {
		c.measures = map[string]Measure{}
	}
	c.measures[id] = m
}

// RunRef is one run of the experiment: its spec, where its results are
// and, if it could not be resolved or run, why.
type RunRef struct {
	Spec RunSpec
	// Reading is the id of the reading the run belongs to ("" with one
	// implicit reading); Spec.Key is the key within the reading.
	Reading  string
	Primary  bool // the run belongs to the primary reading
	Hash     string
	Dir      string
	Err      error
	Scenario *scenario.Scenario
	summary  *result.Result
}

// Runs lists the experiment's runs in the order of its specs.
func (c *Context) Runs() []*RunRef { return c.runs }

// Run returns the finished run with this key, or an error saying why there
// is none.
func (c *Context) Run(key string) (*RunRef, error) {
	r, ok := c.byKey[key]
	if !ok {
		return nil, fmt.Errorf("%s/%s: no run with key %q", c.Paper.ID, c.Exp.ID, key)
	}
	if r.Err != nil {
		return nil, r.Err
	}
	return r, nil
}

// Claims turns an analysis's verdicts, keyed by claim id, into report
// rows (in the order the experiment declares its claims; ids it does not
// declare are kept last so that they stay visible).
func (c *Context) Claims(verdicts map[string]report.Claim) []report.Claim {
	var out []report.Claim
	done := map[string]bool{}
	for _, d := range c.Exp.Claims {
		if v, ok := verdicts[d.ID]; ok {
			v.ID = d.ID
			out = append(out, v)
			done[d.ID] = true
		}
	}
	for _, id := range slices.Sorted(maps.Keys(verdicts)) {
		if !done[id] {
			v := verdicts[id]
			v.ID = id
			out = append(out, v)
		}
	}
	return out
}

// Summary reads the run's summary.json.
func (r *RunRef) Summary() (*result.Result, error) {
	if r.summary != nil {
		return r.summary, nil
	}
	b, err := os.ReadFile(filepath.Join(r.Dir, "summary.json"))
	if err != nil {
		return nil, err
	}
	var s result.Result
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(r.Dir, "summary.json"), err)
	}
	r.summary = &s
	return &s, nil
}

// Flows reads the run's flows.csv.
func (r *RunRef) Flows() ([]metrics.FlowRecord, error) {
	f, err := os.Open(filepath.Join(r.Dir, "flows.csv"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return metrics.ReadFlowsCSV(f)
}

// Input describes the run for the report's list of exact inputs.
func (r *RunRef) Input() report.Input {
	key := r.Spec.Key
	if !r.Primary && r.Reading != "" {
		key = "reading=" + r.Reading + " " + key
	}
	in := report.Input{Key: key, Hash: r.Hash, CC: r.Spec.CC, Base: r.Spec.Base}
	if r.Err != nil {
		in.Error = r.Err.Error()
	} else {
		in.Dir = filepath.Join(RunsDir, r.Hash)
	}
	return in
}

// Table is a CSV file of a run with columns addressed by name.
type Table struct {
	Name string
	Cols map[string]int
	Rows [][]string
}

// Table reads a CSV result file of the run (e.g. link_rate.csv).
func (r *RunRef) Table(name string) (*Table, error) {
	f, err := os.Open(filepath.Join(r.Dir, name))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rd := csv.NewReader(f)
	rd.ReuseRecord = false
	rows, err := rd.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(r.Dir, name), err)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: empty file", filepath.Join(r.Dir, name))
	}
	t := &Table{Name: name, Cols: map[string]int{}, Rows: rows[1:]}
	for i, c := range rows[0] {
		t.Cols[c] = i
	}
	return t, nil
}

// Col returns the index of a column, or an error naming the file.
func (t *Table) Col(name string) (int, error) {
	i, ok := t.Cols[name]
	if !ok {
		return 0, fmt.Errorf("%s: no column %q", t.Name, name)
	}
	return i, nil
}

// FloatCols returns several columns parsed as numbers, in the order named.
func (t *Table) FloatCols(names ...string) ([][]float64, error) {
	out := make([][]float64, len(names))
	for i, n := range names {
		v, err := t.Floats(n)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// Floats returns a column parsed as numbers.
func (t *Table) Floats(name string) ([]float64, error) {
	i, err := t.Col(name)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(t.Rows))
	for k, row := range t.Rows {
		v, err := strconv.ParseFloat(row[i], 64)
		if err != nil {
			return nil, fmt.Errorf("%s row %d column %s: %w", t.Name, k+2, name, err)
		}
		out[k] = v
	}
	return out, nil
}
