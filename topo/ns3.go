package topo

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ccsim/ccsim/internal/decimal"
	"github.com/ccsim/ccsim/internal/lineio"
	"github.com/ccsim/ccsim/sim"
)

// ParseError reports a malformed reference-format input: the 1-based line
// number (0 when the input ended early), the field concerned and the cause.
type ParseError struct {
	Line  int    // 1-based line number; 0 = end of input
	Field string // e.g. "nodes", "switch id", "link 3 rate"
	Err   error
}

// Error implements error.
func (e *ParseError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("topo: end of input: %s: %v", e.Field, e.Err)
	}
	return fmt.Sprintf("topo: line %d: %s: %v", e.Line, e.Field, e.Err)
}

// Unwrap returns the cause.
func (e *ParseError) Unwrap() error { return e.Err }

// Limits on header counts, so that a corrupt header cannot make ReadNS3
// allocate unbounded memory.
const (
	maxNS3Nodes = 1 << 24
	maxNS3Links = 1 << 26
)

// lineReader yields the whitespace-separated fields of the non-blank lines
// of an input, with their 1-based line numbers.
type lineReader struct {
	br   *bufio.Reader
	line int
	err  error
}

// next returns the fields of the next non-blank line, or ok=false at the end
// of input (or on a read error, kept in lr.err).
func (lr *lineReader) next() (fields []string, line int, ok bool) {
	for lr.err == nil {
		s, err := lineio.ReadLine(lr.br)
		if err != nil {
			lr.err = err
			if s == "" {
				break
			}
		}
		lr.line++
		if f := strings.Fields(s); len(f) > 0 {
			return f, lr.line, true
		}
	}
	return nil, 0, false
}

// endErr converts the terminal state of lr into the error to report when
// more input was required.
func (lr *lineReader) endErr(field string) error {
	if lr.err != nil && lr.err != io.EOF {
		return fmt.Errorf("topo: reading %s: %w", field, lr.err)
	}
	return &ParseError{Field: field, Err: io.ErrUnexpectedEOF}
}

// parseCount parses a non-negative decimal integer no larger than max.
func parseCount(s string, max int) (int, error) {
	v, err := strconv.ParseUint(s, 10, 63)
	if err != nil {
		return 0, fmt.Errorf("invalid count %q", s)
	}
	if v > uint64(max) {
		return 0, fmt.Errorf("%d exceeds the limit %d", v, max)
	}
	return int(v), nil
}

// ReadNS3 reads a topology in the reference simulator's format:
//
//	nodes switches links
//	switch ids (switches of them, whitespace separated; may wrap lines)
//	a b rate delay error_rate      (links lines, one per line)
//
// Node ids not listed as switches are hosts. Rates accept the ns-3 units
// (bps, b/s, Bps, B/s with k/K, M, G, T decimal and Ki, Mi, Gi binary
// prefixes, e.g. "100Gbps"); a fractional number of b/s is truncated as ns-3
// does, but the decimal itself is read exactly. Delays accept s, ms, us, ns,
// ps, fs, min, h, d (a bare number means seconds, as in ns-3) and must be a
// whole number of picoseconds; "0.5us" is 500,000 ps. Blank lines are
// ignored; anything after the last link is an error. Errors are
// *ParseError values naming the line and the field. The result passes
// Validate.
func ReadNS3(r io.Reader) (*Graph, error) {
	lr := &lineReader{br: bufio.NewReader(r)}
	f, line, ok := lr.next()
	if !ok {
		return nil, lr.endErr("header")
	}
	if len(f) != 3 {
		return nil, &ParseError{line, "header", fmt.Errorf("want 3 fields \"nodes switches links\", got %d", len(f))}
	}
	nodes, err := parseCount(f[0], maxNS3Nodes)
	if err != nil {
		return nil, &ParseError{line, "nodes", err}
	}
	switches, err := parseCount(f[1], maxNS3Nodes)
	if err != nil {
		return nil, &ParseError{line, "switches", err}
	}
	links, err := parseCount(f[2], maxNS3Links)
	if err != nil {
		return nil, &ParseError{line, "links", err}
	}
	if switches > nodes {
		return nil, &ParseError{line, "switches", fmt.Errorf("%d switches but only %d nodes", switches, nodes)}
	}
	g := &Graph{Kinds: make([]NodeKind, nodes)}

	// Switch ids: a token stream over as many lines as needed, ending at a
	// line end.
	for seen := 0; seen < switches; {
		f, line, ok = lr.next()
		if !ok {
			return nil, lr.endErr(fmt.Sprintf("switch id %d of %d", seen+1, switches))
		}
		for _, tok := range f {
			if seen == switches {
				return nil, &ParseError{line, "switch ids", fmt.Errorf("more than %d switch ids", switches)}
			}
			id, err := strconv.Atoi(tok)
			if err != nil {
				return nil, &ParseError{line, "switch id", fmt.Errorf("invalid node id %q", tok)}
			}
			if id < 0 || id >= nodes {
				return nil, &ParseError{line, "switch id", fmt.Errorf("node %d out of range [0, %d)", id, nodes)}
			}
			if g.Kinds[id] == Switch {
				return nil, &ParseError{line, "switch id", fmt.Errorf("node %d listed twice", id)}
			}
			g.Kinds[id] = Switch
			seen++
		}
	}

	g.Links = make([]Link, 0, min(links, 1<<12))
	for i := range links {
		f, line, ok = lr.next()
		if !ok {
			return nil, lr.endErr(fmt.Sprintf("link %d of %d", i+1, links))
		}
		l, err := parseNS3Link(f, nodes)
		if err != nil {
			err.Line = line
			err.Field = fmt.Sprintf("link %d %s", i+1, err.Field)
			return nil, err
		}
		g.Links = append(g.Links, l)
	}
	if f, line, ok = lr.next(); ok {
		return nil, &ParseError{line, "trailing data", fmt.Errorf("unexpected %q after the %d links the header announced", f[0], links)}
	}
	if lr.err != io.EOF {
		return nil, fmt.Errorf("topo: reading: %w", lr.err)
	}
	return g, nil
}

// parseNS3Link parses one link line; the returned error's Line is unset.
func parseNS3Link(f []string, nodes int) (Link, *ParseError) {
	var l Link
	if len(f) != 5 {
		return l, &ParseError{Field: "fields", Err: fmt.Errorf("want 5 fields \"a b rate delay error_rate\", got %d", len(f))}
	}
	var err error
	for k, p := range []*int{&l.A, &l.B} {
		name := [...]string{"a", "b"}[k]
		if *p, err = strconv.Atoi(f[k]); err != nil {
			return l, &ParseError{Field: name, Err: fmt.Errorf("invalid node id %q", f[k])}
		}
		if *p < 0 || *p >= nodes {
			return l, &ParseError{Field: name, Err: fmt.Errorf("node %d out of range [0, %d)", *p, nodes)}
		}
	}
	if l.A == l.B {
		return l, &ParseError{Field: "b", Err: fmt.Errorf("self link on node %d", l.A)}
	}
	if l.Bps, err = ParseRate(f[2]); err != nil {
		return l, &ParseError{Field: "rate", Err: err}
	}
	if l.Delay, err = ParseDelay(f[3]); err != nil {
		return l, &ParseError{Field: "delay", Err: err}
	}
	e, err := strconv.ParseFloat(f[4], 64)
	if err != nil {
		return l, &ParseError{Field: "error_rate", Err: fmt.Errorf("invalid number %q", f[4])}
	}
	if !(e >= 0 && e <= 1) {
		return l, &ParseError{Field: "error_rate", Err: fmt.Errorf("%v not in [0, 1]", e)}
	}
	l.ErrRate = e
	return l, nil
}

// rateUnits maps an ns-3 DataRate unit to its factor in b/s.
var rateUnits = map[string]int64{
	"bps": 1, "b/s": 1, "Bps": 8, "B/s": 8,
	"kbps": 1e3, "kb/s": 1e3, "Kbps": 1e3, "Kb/s": 1e3,
	"kBps": 8e3, "kB/s": 8e3, "KBps": 8e3, "KB/s": 8e3,
	"Kibps": 1 << 10, "Kib/s": 1 << 10, "KiBps": 8 << 10, "KiB/s": 8 << 10,
	"Mbps": 1e6, "Mb/s": 1e6, "MBps": 8e6, "MB/s": 8e6,
	"Mibps": 1 << 20, "Mib/s": 1 << 20, "MiBps": 8 << 20, "MiB/s": 8 << 20,
	"Gbps": 1e9, "Gb/s": 1e9, "GBps": 8e9, "GB/s": 8e9,
	"Gibps": 1 << 30, "Gib/s": 1 << 30, "GiBps": 8 << 30, "GiB/s": 8 << 30,
	"Tbps": 1e12, "Tb/s": 1e12, "TBps": 8e12, "TB/s": 8e12,
}

// delayUnits maps an ns-3 Time unit to (factor, power of ten) in ps.
var delayUnits = map[string]struct {
	mul   int64
	exp10 int
}{
	"": {1, 12}, "s": {1, 12}, "ms": {1, 9}, "us": {1, 6}, "ns": {1, 3},
	"ps": {1, 0}, "fs": {1, -3}, "min": {60, 12}, "h": {3600, 12}, "d": {86400, 12},
}

// splitUnit splits "12.5Gbps" into "12.5" and "Gbps": the number is the
// longest prefix made of digits, '.', signs and exponent markers followed by
// a digit or sign.
func splitUnit(s string) (num, unit string) {
	i := 0
	for i < len(s) {
		c := s[i]
		if (c >= '0' && c <= '9') || c == '.' || c == '+' || c == '-' {
			i++
			continue
		}
		if (c == 'e' || c == 'E') && i+1 < len(s) {
			if n := s[i+1]; (n >= '0' && n <= '9') || n == '+' || n == '-' {
				i++
				continue
			}
		}
		break
	}
	return s[:i], s[i:]
}

// ParseRate parses an ns-3 data rate string such as "100Gbps" or "2.5Gb/s"
// into bits per second. The decimal is read exactly and multiplied by the
// unit; a fractional number of b/s is truncated (as ns-3 does). The result
// must be positive.
func ParseRate(s string) (int64, error) {
	num, unit := splitUnit(s)
	mul, ok := rateUnits[unit]
	if !ok {
		return 0, fmt.Errorf("invalid rate %q: unknown unit %q (want e.g. Gbps, Mbps, Kbps, bps)", s, unit)
	}
	d, err := decimal.Parse(num)
	if err != nil {
		return 0, fmt.Errorf("invalid rate %q: %w", s, err)
	}
	v, _, err := d.Scale(mul, 0)
	if err != nil {
		return 0, fmt.Errorf("invalid rate %q: %w", s, err)
	}
	if v <= 0 {
		return 0, fmt.Errorf("rate %q is not positive", s)
	}
	return v, nil
}

// ParseDelay parses an ns-3 time string such as "1000ns", "1us" or "0.5us"
// into an exact sim.Time. The result must be non-negative and a whole number
// of picoseconds.
func ParseDelay(s string) (sim.Time, error) {
	num, unit := splitUnit(s)
	u, ok := delayUnits[unit]
	if !ok {
		return 0, fmt.Errorf("invalid delay %q: unknown unit %q (want e.g. ns, us, ms)", s, unit)
	}
	d, err := decimal.Parse(num)
	if err != nil {
		return 0, fmt.Errorf("invalid delay %q: %w", s, err)
	}
	v, exact, err := d.Scale(u.mul, u.exp10)
	if err != nil {
		return 0, fmt.Errorf("invalid delay %q: %w", s, err)
	}
	if !exact {
		return 0, fmt.Errorf("delay %q is not a whole number of picoseconds", s)
	}
	if v < 0 || d.Negative() {
		return 0, fmt.Errorf("delay %q is negative", s)
	}
	return sim.Time(v), nil
}

// FormatRate formats bps with the largest of the units Gbps, Mbps, Kbps,
// bps that represents it exactly ("100Gbps"); ParseRate reads it back.
func FormatRate(bps int64) string {
	switch {
	case bps != 0 && bps%1e9 == 0:
		return strconv.FormatInt(bps/1e9, 10) + "Gbps"
	case bps != 0 && bps%1e6 == 0:
		return strconv.FormatInt(bps/1e6, 10) + "Mbps"
	case bps != 0 && bps%1e3 == 0:
		return strconv.FormatInt(bps/1e3, 10) + "Kbps"
	}
	return strconv.FormatInt(bps, 10) + "bps"
}

// FormatDelay formats d in whole nanoseconds ("1000ns") when it is one, else
// in picoseconds ("1500ps"); ParseDelay reads it back.
func FormatDelay(d sim.Time) string {
	if d%sim.Nanosecond == 0 {
		return strconv.FormatInt(int64(d/sim.Nanosecond), 10) + "ns"
	}
	return strconv.FormatInt(int64(d), 10) + "ps"
}

// formatErrRate uses the reference files' "%.6f" style when that is exact,
// else the shortest representation that reads back to the same float64.
func formatErrRate(e float64) string {
	s := strconv.FormatFloat(e, 'f', 6, 64)
	if v, err := strconv.ParseFloat(s, 64); err == nil && v == e {
		return s
	}
	return strconv.FormatFloat(e, 'g', -1, 64)
}

// WriteNS3 writes g in the reference topology format read by ReadNS3 (switch
// ids ascending, links in order, rates via FormatRate, delays via
// FormatDelay). ReadNS3 of the output equals g. It fails if g does not pass
// Validate.
func WriteNS3(w io.Writer, g *Graph) error {
	if err := g.Validate(); err != nil {
		return err
	}
	if len(g.Kinds) > maxNS3Nodes || len(g.Links) > maxNS3Links {
		return errors.New("topo: graph too large for the reference format reader")
	}
	bw := bufio.NewWriter(w)
	var sw []string
	for i, k := range g.Kinds {
		if k == Switch {
			sw = append(sw, strconv.Itoa(i))
		}
	}
	fmt.Fprintf(bw, "%d %d %d\n%s\n", len(g.Kinds), len(sw), len(g.Links), strings.Join(sw, " "))
	for _, l := range g.Links {
		fmt.Fprintf(bw, "%d %d %s %s %s\n", l.A, l.B, FormatRate(l.Bps), FormatDelay(l.Delay), formatErrRate(l.ErrRate))
	}
	return bw.Flush()
}
