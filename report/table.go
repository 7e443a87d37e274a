package report

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ccsim/ccsim/metrics"
	"github.com/ccsim/ccsim/sim"
)

// SlowdownBins is the number of size bins of the slowdown table (5 % of
// the flows each), as in the reference analysis.
const SlowdownBins = 20

// BucketRow is one size bin of a slowdown table.
type BucketRow struct {
	// Pct is the bin's lower edge as a fraction of the flows (0, 0.05, …).
	Pct float64
	// MaxSizeBytes is the largest flow size in the bin.
	MaxSizeBytes int64
	// P50, P95, P99 are slowdown percentiles (canonical rule).
	P50, P95, P99 float64
}

// ClassRow is the slowdown summary of one flow-size class.
type ClassRow struct {
	// Class is "small_lt100KB", "mid_100KB_1MB" or "large_gt1MB" (the
	// summary.json keys; bounds as metrics.SmallFlowLimitBytes and
	// metrics.LargeFlowLimitBytes).
	Class string
	// N is the number of flows in the class (censored ones included).
	N int
	// P50, P95, P99 are slowdown percentiles; NaN when N == 0.
	P50, P95, P99 float64
}

// SlowdownTable is the content of a slowdown table file.
type SlowdownTable struct {
	// N is the number of flows binned (the header's n).
	N int
	// Censored is the number of them that were unfinished at the run's
	// end and enter with their slowdown at the end, a lower bound (a
	// comment line after the bins; none in reference files).
	Censored int
	// Bins are the size bins in increasing size.
	Bins []BucketRow
	// Classes are the size-class summary rows (absent in reference files).
	Classes []ClassRow
}

// bucketHeader is the reference header without its "  (n=N)" suffix.
const bucketHeader = "# pct_bucket max_size_B p50_slowdown p95_slowdown p99_slowdown"

// censoredPrefix starts the line that counts censored flows.
const censoredPrefix = "# censored "

// classHeader introduces the size-class rows.
const classHeader = "# class n p50_slowdown p95_slowdown p99_slowdown"

// NewSlowdownTable computes the table of the flows of recs from a run that
// ended at end (unfinished flows censored there, metrics.NoCensoring: left
// out): metrics.SizeBins with SlowdownBins bins and the three size classes
// of metrics.SummarizeFlows. Callers select the flows (e.g. drop incast
// flows or warm-up arrivals) beforehand.
func NewSlowdownTable(recs []metrics.FlowRecord, end sim.Time) *SlowdownTable {
	s := metrics.SummarizeFlows(recs, end)
	t := &SlowdownTable{N: s.All.N, Censored: s.Censored}
	// SizeBins omits the empty bins (fewer flows than bins); bin i of
	// SlowdownBins is empty when it gets no flow rank.
	bins := metrics.SizeBins(recs, SlowdownBins, end)
	n, k := s.All.N, 0
	for i := 0; i < SlowdownBins && k < len(bins); i++ {
		if i*n/SlowdownBins == (i+1)*n/SlowdownBins {
			continue
		}
		b := bins[k]
		k++
		t.Bins = append(t.Bins, BucketRow{Pct: float64(i) / SlowdownBins, MaxSizeBytes: b.MaxSizeBytes, P50: b.P50, P95: b.P95, P99: b.P99})
	}
	for _, c := range []struct {
		name string
		g    metrics.FlowGroup
	}{{"small_lt100KB", s.Small}, {"mid_100KB_1MB", s.Mid}, {"large_gt1MB", s.Large}} {
		row := ClassRow{Class: c.name, N: c.g.N, P50: math.NaN(), P95: math.NaN(), P99: math.NaN()}
		if c.g.N > 0 {
			row.P50, row.P95, row.P99 = c.g.Slowdown.P50, c.g.Slowdown.P95, c.g.Slowdown.P99
		}
		t.Classes = append(t.Classes, row)
	}
	return t
}

// WriteSlowdownTable writes the slowdown table of the flows of recs from a
// run that ended at end (see NewSlowdownTable). The first lines are byte-for-byte the
// reference analysis fctbuckets_*.txt format, so the two files can be
// diffed:
//
//	# pct_bucket max_size_B p50_slowdown p95_slowdown p99_slowdown  (n=6677)
//	0.00 2894 1.005 1.091 1.740
//	...
//	0.95 29983288 1.837 3.496 4.260
//
// followed by the size-class summary as comment lines (so tools that read
// the reference format skip them):
//
//	# class n p50_slowdown p95_slowdown p99_slowdown
//	# small_lt100KB 3586 1.069 1.590 2.152
//	# mid_100KB_1MB 1049 1.531 2.762 3.850
//	# large_gt1MB 2042 1.864 3.636 4.858
//
// Slowdowns have 3 decimals; an empty class prints "-" for each. When
// unfinished flows were censored, a comment line after the bins counts
// them: "# censored 3: unfinished at the run's end, counted with their
// slowdown then (a lower bound)".
func WriteSlowdownTable(w io.Writer, recs []metrics.FlowRecord, end sim.Time) error {
	return NewSlowdownTable(recs, end).Write(w)
}

// Write writes t in the format of WriteSlowdownTable.
func (t *SlowdownTable) Write(w io.Writer) error {
	var b []byte
	b = fmt.Appendf(b, "%s  (n=%d)\n", bucketHeader, t.N)
	for _, r := range t.Bins {
		b = strconv.AppendFloat(b, r.Pct, 'f', 2, 64)
		b = append(b, ' ')
		b = strconv.AppendInt(b, r.MaxSizeBytes, 10)
		for _, x := range [3]float64{r.P50, r.P95, r.P99} {
			b = append(b, ' ')
			b = strconv.AppendFloat(b, x, 'f', 3, 64)
		}
		b = append(b, '\n')
	}
	if t.Censored > 0 {
		b = fmt.Appendf(b, "%s%d: unfinished at the run's end, counted with their slowdown then (a lower bound)\n", censoredPrefix, t.Censored)
	}
	if len(t.Classes) > 0 {
		b = append(b, classHeader...)
		b = append(b, '\n')
	}
	for _, c := range t.Classes {
		b = fmt.Appendf(b, "# %s %d", c.Class, c.N)
		for _, x := range [3]float64{c.P50, c.P95, c.P99} {
			b = append(b, ' ')
			if math.IsNaN(x) {
				b = append(b, '-')
			} else {
				b = strconv.AppendFloat(b, x, 'f', 3, 64)
			}
		}
		b = append(b, '\n')
	}
	_, err := w.Write(b)
	return err
}

// ReadSlowdownTable parses a file in the format of WriteSlowdownTable,
// which includes the reference analysis fctbuckets_*.txt files (these
// have no class rows). Other comment lines and blank lines are skipped.
func ReadSlowdownTable(r io.Reader) (*SlowdownTable, error) {
	t := &SlowdownTable{N: -1}
	sc := bufio.NewScanner(r)
	lineNo := 0
	inClasses := false
	for sc.Scan() {
		lineNo++
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "":
			continue
		case strings.HasPrefix(line, bucketHeader):
			rest := strings.TrimSpace(strings.TrimPrefix(line, bucketHeader))
			if rest != "" {
				v, ok := strings.CutPrefix(rest, "(n=")
				v, ok2 := strings.CutSuffix(v, ")")
				n, err := strconv.Atoi(v)
				if !ok || !ok2 || err != nil || n < 0 {
					return nil, fmt.Errorf("slowdown table line %d: bad count %q, want (n=N)", lineNo, rest)
				}
				t.N = n
			}
			continue
		case line == classHeader:
			inClasses = true
			continue
		case strings.HasPrefix(line, censoredPrefix):
			v, _, _ := strings.Cut(strings.TrimPrefix(line, censoredPrefix), ":")
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("slowdown table line %d: bad censored count %q", lineNo, v)
			}
			t.Censored = n
			continue
		case strings.HasPrefix(line, "#"):
			if !inClasses {
				continue
			}
			f := strings.Fields(strings.TrimPrefix(line, "#"))
			if len(f) != 5 {
				return nil, fmt.Errorf("slowdown table line %d: class row wants 5 fields, got %d", lineNo, len(f))
			}
			c := ClassRow{Class: f[0]}
			var err error
			if c.N, err = strconv.Atoi(f[1]); err != nil {
				return nil, fmt.Errorf("slowdown table line %d: n %q: not an integer", lineNo, f[1])
			}
			for i, p := range []*float64{&c.P50, &c.P95, &c.P99} {
				if f[2+i] == "-" {
					*p = math.NaN()
				} else if *p, err = strconv.ParseFloat(f[2+i], 64); err != nil {
					return nil, fmt.Errorf("slowdown table line %d: %q: not a number", lineNo, f[2+i])
				}
			}
			t.Classes = append(t.Classes, c)
			continue
		}
		f := strings.Fields(line)
		if len(f) != 5 {
			return nil, fmt.Errorf("slowdown table line %d: want 5 fields (pct size p50 p95 p99), got %d", lineNo, len(f))
		}
		var row BucketRow
		var err error
		if row.Pct, err = strconv.ParseFloat(f[0], 64); err != nil {
			return nil, fmt.Errorf("slowdown table line %d: pct %q: not a number", lineNo, f[0])
		}
		if row.MaxSizeBytes, err = strconv.ParseInt(f[1], 10, 64); err != nil {
			return nil, fmt.Errorf("slowdown table line %d: size %q: not an integer", lineNo, f[1])
		}
		for i, p := range []*float64{&row.P50, &row.P95, &row.P99} {
			if *p, err = strconv.ParseFloat(f[2+i], 64); err != nil {
				return nil, fmt.Errorf("slowdown table line %d: %q: not a number", lineNo, f[2+i])
			}
		}
		t.Bins = append(t.Bins, row)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("slowdown table line %d: %w", lineNo+1, err)
	}
	if t.N < 0 {
		return nil, fmt.Errorf("slowdown table: no header line %q", bucketHeader+"  (n=N)")
	}
	return t, nil
}

// WriteTables writes, for each run into outDir (created if needed), the
// slowdown table slowdown_<label>.txt (WriteSlowdownTable over all its
// flows) and, when the run has queue samples, queue_cdf_<label>.csv and
// queue_stats_<label>.csv (all sampled ports as one class, unless
// opts.QueueClass is set). It returns the files written.
func WriteTables(runs []*Run, outDir string, opts *Options) ([]string, error) {
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, err
	}
	var files []string
	write := func(name string, fn func(io.Writer) error) error {
		path := filepath.Join(outDir, name)
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		bw := bufio.NewWriter(f)
		err = fn(bw)
		if err == nil {
			err = bw.Flush()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		files = append(files, path)
		return nil
	}
	names := fileLabels(Labels(runs))
	for i, r := range runs {
		if err := write("slowdown_"+names[i]+".txt", func(w io.Writer) error { return WriteSlowdownTable(w, r.Flows, r.End()) }); err != nil {
			return files, err
		}
		q := r.QueueCDFs(opts.queueClass())
		if q == nil {
			continue
		}
		if err := write("queue_cdf_"+names[i]+".csv", q.WriteQueueCDF); err != nil {
			return files, err
		}
		if err := write("queue_stats_"+names[i]+".csv", q.WriteQueueStats); err != nil {
			return files, err
		}
	}
	return files, nil
}

// fileLabels maps labels to distinct file-name-safe strings.
func fileLabels(labels []string) []string {
	out := make([]string, len(labels))
	used := map[string]bool{}
	for i, l := range labels {
		base := fileLabel(l)
		if base == "" {
			base = "run"
		}
		name := base
		for k := 2; used[name]; k++ {
			name = base + "_" + strconv.Itoa(k)
		}
		used[name] = true
		out[i] = name
	}
	return out
}
