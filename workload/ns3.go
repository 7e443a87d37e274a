package workload

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"math/bits"
	"strconv"
	"strings"

	"github.com/ccsim/ccsim/internal/decimal"
	"github.com/ccsim/ccsim/internal/lineio"
	"github.com/ccsim/ccsim/sim"
)

// ParseError reports a malformed reference flow file: the 1-based line
// number (0 when the input ended early), the field concerned and the cause.
type ParseError struct {
	Line  int    // 1-based line number; 0 = end of input
	Field string // "count", "src", "dst", "pg", "dport", "size", "start", ...
	Err   error
}

// Error implements error.
func (e *ParseError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("workload: end of input: %s: %v", e.Field, e.Err)
	}
	return fmt.Sprintf("workload: line %d: %s: %v", e.Line, e.Field, e.Err)
}

// Unwrap returns the cause.
func (e *ParseError) Unwrap() error { return e.Err }

// RefSPortBase is the first source port the reference assigns to each
// (src, dst) pair.
const RefSPortBase = 10000

// maxNodeID bounds node ids read from flow files.
const maxNodeID = math.MaxInt32

// ReadNS3Flows reads a flow file in the reference simulator's format: the
// number of flows, then one flow per line
//
//	src dst pg dport size_bytes start_seconds
//
// Blank lines are ignored; anything after the announced flows is an error.
// start_seconds is read exactly as a decimal into picoseconds; digits beyond
// the 12th fractional digit (below 1 ps) are truncated. Flows must be sorted
// by start time (the reference requires it). Each flow also gets RefStart
// (the reference's rounding of the same decimal, RefStartTime) and SPort
// (AssignRefSPorts). Validation: src, dst non-negative and distinct, pg in
// 1..7 (0 is ccsim's control class), dport in 0..65535, size > 0, start
// >= 0. Errors are *ParseError values naming the line and the field.
func ReadNS3Flows(r io.Reader) ([]Flow, error) {
	br := bufio.NewReader(r)
	line := 0
	var rerr error
	next := func() ([]string, bool) {
		for rerr == nil {
			s, err := lineio.ReadLine(br)
			if err != nil {
				rerr = err
				if s == "" {
					break
				}
			}
			line++
			if f := strings.Fields(s); len(f) > 0 {
				return f, true
			}
		}
		return nil, false
	}
	endErr := func(field string) error {
		if rerr != io.EOF {
			return fmt.Errorf("workload: reading %s: %w", field, rerr)
		}
		return &ParseError{Field: field, Err: io.ErrUnexpectedEOF}
	}

	f, ok := next()
	if !ok {
		return nil, endErr("count")
	}
	if len(f) != 1 {
		return nil, &ParseError{line, "count", fmt.Errorf("want 1 field, got %d", len(f))}
	}
	count, err := strconv.ParseUint(f[0], 10, 31)
	if err != nil {
		return nil, &ParseError{line, "count", fmt.Errorf("invalid count %q", f[0])}
	}
	flows := make([]Flow, 0, min(count, 1<<16))
	for i := range int(count) {
		f, ok := next()
		if !ok {
			return nil, endErr(fmt.Sprintf("flow %d of %d", i+1, count))
		}
		fl, perr := parseNS3Flow(f)
		if perr == nil && i > 0 && fl.Start < flows[i-1].Start {
			perr = &ParseError{Field: "start", Err: fmt.Errorf("%s s is earlier than the previous flow's start (the reference requires flows sorted by start time)", f[5])}
		}
		if perr != nil {
			perr.Line = line
			return nil, perr
		}
		flows = append(flows, fl)
	}
	if f, ok := next(); ok {
		return nil, &ParseError{line, "trailing data", fmt.Errorf("unexpected %q after the %d flows the count announced", f[0], count)}
	}
	if rerr != io.EOF {
		return nil, fmt.Errorf("workload: reading: %w", rerr)
	}
	AssignRefSPorts(flows)
	return flows, nil
}

// parseNS3Flow parses the fields of one flow line; the error's Line is unset.
func parseNS3Flow(f []string) (Flow, *ParseError) {
	var fl Flow
	if len(f) != 6 {
		return fl, &ParseError{Field: "fields", Err: fmt.Errorf("want 6 fields \"src dst pg dport size start\", got %d", len(f))}
	}
	ints := []struct {
		name     string
		dst      *int
		min, max int64
	}{
		{"src", &fl.Src, 0, maxNodeID},
		{"dst", &fl.Dst, 0, maxNodeID},
		{"pg", &fl.Prio, 1, 7}, // class 0 is the fabric's control class (ACKs, CNPs, PFC)
		{"dport", &fl.DPort, 0, 65535},
	}
	for k, x := range ints {
		v, err := strconv.ParseInt(f[k], 10, 64)
		if err != nil {
			return fl, &ParseError{Field: x.name, Err: fmt.Errorf("invalid integer %q", f[k])}
		}
		if v < x.min || v > x.max {
			err := fmt.Errorf("%d not in [%d, %d]", v, x.min, x.max)
			if x.name == "pg" && v == 0 {
				err = fmt.Errorf("0 not in [1, 7]: class 0 carries ccsim's control packets (ACKs, CNPs, PFC); the reference's data flows use 3")
			}
			return fl, &ParseError{Field: x.name, Err: err}
		}
		*x.dst = int(v)
	}
	if fl.Src == fl.Dst {
		return fl, &ParseError{Field: "dst", Err: fmt.Errorf("flow from host %d to itself", fl.Src)}
	}
	size, err := strconv.ParseInt(f[4], 10, 64)
	if err != nil {
		return fl, &ParseError{Field: "size", Err: fmt.Errorf("invalid integer %q", f[4])}
	}
	if size <= 0 {
		return fl, &ParseError{Field: "size", Err: fmt.Errorf("%d bytes is not positive", size)}
	}
	fl.SizeBytes = size
	start, err := parseSeconds(f[5])
	if err != nil {
		return fl, &ParseError{Field: "start", Err: err}
	}
	fl.Start = start
	x, err := strconv.ParseFloat(f[5], 64)
	if err != nil { // cannot happen after parseSeconds, except out of range
		return fl, &ParseError{Field: "start", Err: fmt.Errorf("invalid time %q", f[5])}
	}
	fl.RefStart = refSeconds(x)
	return fl, nil
}

// maxStartSeconds bounds start times so that every conversion stays exact.
const maxStartSeconds = 1e6

// parseSeconds reads a decimal number of seconds exactly into ps, truncating
// below 1 ps. It accepts an exponent ("2e0") as the reference's strtod does.
func parseSeconds(s string) (sim.Time, error) {
	d, err := decimal.Parse(s)
	if err != nil {
		return 0, fmt.Errorf("invalid time %q: %w", s, err)
	}
	v, _, err := d.Scale(1, 12)
	if err != nil || v > maxStartSeconds*int64(sim.Second) {
		return 0, fmt.Errorf("time %q s out of range [0, %g]", s, float64(maxStartSeconds))
	}
	if v < 0 || d.Negative() {
		return 0, fmt.Errorf("time %q s is negative", s)
	}
	return sim.Time(v), nil
}

// refSeconds is ns-3's Seconds(double) (64.64 fixed point, truncated;
// docs/reference-simulator.md §0.1) returned as a sim.Time. Same formula as topo.NS3Seconds.
func refSeconds(x float64) sim.Time {
	hi := math.Floor(x)
	lo := uint64((x - hi) * 0x1p64)
	h, _ := bits.Mul64(lo, 1e9)
	return sim.Time(int64(hi)*1e9+int64(h)) * sim.Nanosecond
}

// FormatSeconds formats t as decimal seconds with 9 fractional digits when t
// is a whole number of ns ("2.000000223"), else 12; parsing it back gives t
// exactly. t must be non-negative.
func FormatSeconds(t sim.Time) string {
	sec, frac := int64(t/sim.Second), int64(t%sim.Second)
	if frac%1000 == 0 {
		return fmt.Sprintf("%d.%09d", sec, frac/1000)
	}
	return fmt.Sprintf("%d.%012d", sec, frac)
}

// RefStartTime returns the start time the reference simulator would use for
// a flow file entry written as FormatSeconds(start): the decimal is read as
// the nearest float64, then converted by ns-3 Seconds(double), which
// truncates to whole ns (usually 1 ns low when the decimal is a whole
// number of ns): RefStartTime(2.000000223 s) = 2,000,000,222 ns.
func RefStartTime(start sim.Time) sim.Time {
	if start <= 0 {
		return 0
	}
	x, err := strconv.ParseFloat(FormatSeconds(start), 64)
	if err != nil {
		return 0
	}
	return refSeconds(x)
}

// AssignRefSPorts sets SPort of every flow as the reference does: a counter
// per (Src, Dst) pair starting at RefSPortBase, incremented per flow in
// slice order (the reference's order is start time, i.e. file order). The
// reference counter is 16 bits and wraps after 55,536 flows of one pair; so
// does this one.
func AssignRefSPorts(flows []Flow) {
	next := make(map[[2]int]int)
	for i := range flows {
		k := [2]int{flows[i].Src, flows[i].Dst}
		flows[i].SPort = (RefSPortBase + next[k]) & 0xffff
		next[k]++
	}
}

// WriteNS3Flows writes flows in the reference flow file format read by
// ReadNS3Flows (start times via FormatSeconds). ReadNS3Flows of the output
// equals flows when their SPort and RefStart are as ReadNS3Flows assigns
// them. It fails, writing nothing, if a flow is invalid for the format or
// the start times decrease, or a flow is chained (Flow.HasAfter) or a
// message chain (Flow.Messages > 1). Group, MaxInFlight and Via are not
// part of the format and are not written.
func WriteNS3Flows(w io.Writer, flows []Flow) error {
	for i, fl := range flows {
		var err error
		switch {
		case fl.Src < 0 || fl.Src > maxNodeID || fl.Dst < 0 || fl.Dst > maxNodeID || fl.Src == fl.Dst:
			err = fmt.Errorf("invalid src %d / dst %d", fl.Src, fl.Dst)
		case fl.Prio < 1 || fl.Prio > 7:
			err = fmt.Errorf("pg %d not in [1, 7]", fl.Prio)
		case fl.DPort < 0 || fl.DPort > 65535:
			err = fmt.Errorf("dport %d not in [0, 65535]", fl.DPort)
		case fl.SizeBytes <= 0:
			err = fmt.Errorf("size %d is not positive", fl.SizeBytes)
		case fl.Start < 0 || fl.Start > maxStartSeconds*sim.Second:
			err = fmt.Errorf("start %v out of range", fl.Start)
		case i > 0 && fl.Start < flows[i-1].Start:
			err = fmt.Errorf("start %v earlier than the previous flow's", fl.Start)
		case fl.HasAfter || fl.Messages > 1:
			err = fmt.Errorf("a chained flow or message chain has no start time in the reference format")
		}
		if err != nil {
			return fmt.Errorf("workload: flow %d: %w", i, err)
		}
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%d\n", len(flows))
	for _, fl := range flows {
		fmt.Fprintf(bw, "%d %d %d %d %d %s\n", fl.Src, fl.Dst, fl.Prio, fl.DPort, fl.SizeBytes, FormatSeconds(fl.Start))
	}
	return bw.Flush()
}
