package metrics

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/ccsim/ccsim/sim"
)

// ParseNs parses a time in nanoseconds written by AppendNs: an optional
// '-', decimal digits, and optionally '.' followed by 1 to 3 digits (the
// picoseconds). It is exact: ParseNs(string(AppendNs(nil, t))) == t.
func ParseNs(s string) (sim.Time, error) {
	neg := strings.HasPrefix(s, "-")
	body := strings.TrimPrefix(s, "-")
	intPart, frac, hasFrac := strings.Cut(body, ".")
	if intPart == "" || (hasFrac && (frac == "" || len(frac) > 3)) {
		return 0, fmt.Errorf("invalid time %q: want nanoseconds with at most 3 decimals", s)
	}
	ns, err := strconv.ParseUint(intPart, 10, 63)
	if err != nil {
		return 0, fmt.Errorf("invalid time %q: want nanoseconds with at most 3 decimals", s)
	}
	var ps uint64
	if hasFrac {
		f, err := strconv.ParseUint(frac, 10, 16)
		if err != nil {
			return 0, fmt.Errorf("invalid time %q: want nanoseconds with at most 3 decimals", s)
		}
		for range 3 - len(frac) {
			f *= 10
		}
		ps = f
	}
	const maxNs = uint64(1<<63-1) / uint64(sim.Nanosecond)
	if ns > maxNs {
		return 0, fmt.Errorf("invalid time %q: out of range", s)
	}
	v := int64(ns)*int64(sim.Nanosecond) + int64(ps)
	if v < 0 { // overflow in the last nanosecond
		return 0, fmt.Errorf("invalid time %q: out of range", s)
	}
	if neg {
		v = -v
	}
	return sim.Time(v), nil
}

// ReadFlowsCSV parses a file written by WriteFlowsCSV. The first line must
// be FlowsCSVHeader or FlowsCSVHeaderGroup. A row with an empty finish_ns
// is an unfinished flow (fct_ns and slowdown must then be empty too), one
// with an empty start_ns a chained flow that never started (NotStarted;
// unfinished); for a finished flow fct_ns must equal finish_ns − start_ns.
// The slowdown column is not stored (it is recomputed from the times).
// SPort, DPort and Prio are not in the file and are left 0. Errors name
// the line.
func ReadFlowsCSV(r io.Reader) ([]FlowRecord, error) {
	var out []FlowRecord
	err := readCSVRows(r, "flows csv", []string{FlowsCSVHeader, FlowsCSVHeaderGroup}, func(h int, line string) error {
		rec, err := parseFlowRow(line, h == 1)
		if err == nil {
			out = append(out, rec)
		}
		return err
	})
	return out, err
}

// ReadCSVRows reads a CSV file whose first line must be header and calls
// row for every further non-empty line (CR line ends accepted). Errors,
// its own and row's, are prefixed with name and the line number.
func ReadCSVRows(r io.Reader, name, header string, row func(line string) error) error {
	return readCSVRows(r, name, []string{header}, func(_ int, line string) error { return row(line) })
}

// readCSVRows is ReadCSVRows for a file whose first line is one of
// headers; row gets the index of the header found.
func readCSVRows(r io.Reader, name string, headers []string, row func(h int, line string) error) error {
	header := headers[0]
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		return fmt.Errorf("%s: empty file, want header %q", name, header)
	}
	hi := slices.Index(headers, strings.TrimSuffix(sc.Text(), "\r"))
	if hi < 0 {
		want := make([]string, len(headers))
		for i, h := range headers {
			want[i] = strconv.Quote(h)
		}
		return fmt.Errorf("%s line 1: header %q, want %s", name, strings.TrimSuffix(sc.Text(), "\r"), strings.Join(want, " or "))
	}
	lineNo := 1
	for sc.Scan() {
		lineNo++
		line := strings.TrimSuffix(sc.Text(), "\r")
		if line == "" {
			continue
		}
		if err := row(hi, line); err != nil {
			return fmt.Errorf("%s line %d: %w", name, lineNo, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s line %d: %w", name, lineNo+1, err)
	}
	return nil
}

func parseFlowRow(line string, group bool) (FlowRecord, error) {
	f := strings.Split(line, ",")
	want := 9
	if group {
		want = 10
	}
	if len(f) != want {
		return FlowRecord{}, fmt.Errorf("want %d fields, got %d", want, len(f))
	}
	var rec FlowRecord
	if group {
		rec.Group = f[9]
	}
	ints := [...]struct {
		name string
		dst  *int
	}{{"flow_id", &rec.ID}, {"src", &rec.Src}, {"dst", &rec.Dst}}
	for i, x := range ints {
		v, err := strconv.Atoi(f[i])
		if err != nil {
			return rec, fmt.Errorf("%s %q: not an integer", x.name, f[i])
		}
		*x.dst = v
	}
	size, err := strconv.ParseInt(f[3], 10, 64)
	if err != nil {
		return rec, fmt.Errorf("size_bytes %q: not an integer", f[3])
	}
	rec.SizeBytes = size
	if f[4] == "" {
		if f[5] != "" {
			return rec, fmt.Errorf("a flow that never started (empty start_ns) with finish_ns %q", f[5])
		}
		rec.NotStarted = true
	} else if rec.Start, err = ParseNs(f[4]); err != nil {
		return rec, fmt.Errorf("start_ns: %w", err)
	}
	if rec.IdealFCT, err = ParseNs(f[7]); err != nil {
		return rec, fmt.Errorf("ideal_fct_ns: %w", err)
	}
	if f[5] == "" {
		if f[6] != "" || f[8] != "" {
			return rec, fmt.Errorf("unfinished flow (empty finish_ns) with fct_ns %q / slowdown %q", f[6], f[8])
		}
		return rec, nil
	}
	if rec.Finish, err = ParseNs(f[5]); err != nil {
		return rec, fmt.Errorf("finish_ns: %w", err)
	}
	fct, err := ParseNs(f[6])
	if err != nil {
		return rec, fmt.Errorf("fct_ns: %w", err)
	}
	if fct != rec.Finish-rec.Start {
		return rec, fmt.Errorf("fct_ns %s != finish_ns %s - start_ns %s", f[6], f[5], f[4])
	}
	rec.Done = true
	return rec, nil
}
