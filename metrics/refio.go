package metrics

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/ccsim/ccsim/sim"
)

// flushBytes is the buffered output size after which writers flush.
const flushBytes = 64 << 10

// flushFull writes buf to w once it holds flushBytes or more and returns
// it emptied; a shorter buf is returned as it is.
func flushFull(w io.Writer, buf []byte) ([]byte, error) {
	if len(buf) < flushBytes {
		return buf, nil
	}
	if _, err := w.Write(buf); err != nil {
		return buf, err
	}
	return buf[:0], nil
}

// RefIP is the reference simulator's node-id-to-IPv4 mapping
// (node_id_to_ip): 11.x.y.1 with x = node/256 and y = node%256.
func RefIP(node int) uint32 {
	return 0x0B000001 + uint32(node/256)*0x10000 + uint32(node%256)*0x100
}

// truncNs converts t to whole nanoseconds, truncating toward zero.
func truncNs(t sim.Time) int64 { return int64(t / sim.Nanosecond) }

// WriteRefFCT writes the finished flows of recs in the reference
// simulator's fct.txt format, in completion order (by Finish, then ID):
//
//	"%08x %08x %d %d %d %d %d %d\n" = sip dip sport dport size_bytes start_ns fct_ns ideal_fct_ns
//
// with times truncated to whole nanoseconds and sip/dip = ipOf(Src/Dst)
// (use RefIP to mirror the reference). recs is not modified.
func WriteRefFCT(w io.Writer, recs []FlowRecord, ipOf func(node int) uint32) error {
	idx := make([]int, 0, len(recs))
	for i := range recs {
		if recs[i].Done {
			idx = append(idx, i)
		}
	}
	slices.SortFunc(idx, func(a, b int) int {
		if c := cmp.Compare(recs[a].Finish, recs[b].Finish); c != 0 {
			return c
		}
		return cmp.Compare(recs[a].ID, recs[b].ID)
	})
	buf := make([]byte, 0, min(flushBytes, 96*len(idx))+96)
	for _, i := range idx {
		r := &recs[i]
		buf = fmt.Appendf(buf, "%08x %08x %d %d %d %d %d %d\n",
			ipOf(r.Src), ipOf(r.Dst), r.SPort, r.DPort, r.SizeBytes,
			truncNs(r.Start), truncNs(r.FCT()), truncNs(r.IdealFCT))
		var err error
		if buf, err = flushFull(w, buf); err != nil {
			return err
		}
	}
	_, err := w.Write(buf)
	return err
}

// RefFCTLine is one parsed line of a reference fct.txt file.
type RefFCTLine struct {
	// SIP and DIP are the source and destination IPv4 addresses.
	SIP, DIP uint32
	// SPort and DPort are the source and destination ports.
	SPort, DPort int
	// SizeBytes is the flow size in bytes.
	SizeBytes int64
	// StartNs is the flow start time in nanoseconds.
	StartNs int64
	// FCTNs is the flow completion time in nanoseconds.
	FCTNs int64
	// IdealNs is the ideal (standalone) FCT in nanoseconds.
	IdealNs int64
}

// Slowdown is FCTNs/IdealNs clamped below at 1, exactly as the reference
// analysis computes it; NaN when IdealNs <= 0.
func (l RefFCTLine) Slowdown() float64 {
	return slowdown(sim.Time(l.FCTNs), sim.Time(l.IdealNs))
}

// Record converts l to a finished FlowRecord with the given id. Src and Dst
// are left 0 (the file holds IPs, not node ids); times are exact
// nanosecond values.
func (l RefFCTLine) Record(id int) FlowRecord {
	start := sim.Time(l.StartNs) * sim.Nanosecond
	return FlowRecord{
		ID: id, SPort: l.SPort, DPort: l.DPort, SizeBytes: l.SizeBytes,
		Start: start, Finish: start + sim.Time(l.FCTNs)*sim.Nanosecond,
		IdealFCT: sim.Time(l.IdealNs) * sim.Nanosecond, Done: true,
	}
}

// ReadRefFCT parses a reference fct.txt file (see WriteRefFCT). Blank lines
// are skipped; any other line must have exactly 8 fields.
func ReadRefFCT(r io.Reader) ([]RefFCTLine, error) {
	var out []RefFCTLine
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	lineNo := 0
	for sc.Scan() {
		lineNo++
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if len(f) != 8 {
			return out, fmt.Errorf("metrics: fct line %d: want 8 fields, got %d", lineNo, len(f))
		}
		var l RefFCTLine
		var u [2]uint64
		var v [6]int64
		var err error
		for i := 0; i < 2 && err == nil; i++ {
			u[i], err = strconv.ParseUint(f[i], 16, 32)
		}
		for i := 0; i < 6 && err == nil; i++ {
			v[i], err = strconv.ParseInt(f[2+i], 10, 64)
		}
		if err != nil {
			return out, fmt.Errorf("metrics: fct line %d: %w", lineNo, err)
		}
		l.SIP, l.DIP = uint32(u[0]), uint32(u[1])
		l.SPort, l.DPort = int(v[0]), int(v[1])
		l.SizeBytes, l.StartNs, l.FCTNs, l.IdealNs = v[2], v[3], v[4], v[5]
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("metrics: fct line %d: %w", lineNo+1, err)
	}
	return out, nil
}

// PFCEvent is one PFC pause or resume sent by a port.
type PFCEvent struct {
	// At is when the frame was sent.
	At sim.Time
	// Node is the sending node's id.
	Node int
	// IsSwitch reports whether Node is a switch (else a host).
	IsSwitch bool
	// Port is the sending port's index on Node.
	Port int
	// Pause is true for a pause frame, false for a resume.
	Pause bool
}

// WriteRefPFC writes evs in the order given in the reference simulator's
// pfc.txt format: "time_ns node_id node_type port type\n", with time
// truncated to whole nanoseconds, node_type 1 for a switch and 0 for a
// host, and type 1 for pause and 0 for resume.
func WriteRefPFC(w io.Writer, evs []PFCEvent) error {
	buf := make([]byte, 0, min(flushBytes, 40*len(evs))+40)
	for _, e := range evs {
		buf = strconv.AppendInt(buf, truncNs(e.At), 10)
		buf = append(buf, ' ')
		buf = strconv.AppendInt(buf, int64(e.Node), 10)
		buf = append(buf, ' ', b2c(e.IsSwitch), ' ')
		buf = strconv.AppendInt(buf, int64(e.Port), 10)
		buf = append(buf, ' ', b2c(e.Pause), '\n')
		var err error
		if buf, err = flushFull(w, buf); err != nil {
			return err
		}
	}
	_, err := w.Write(buf)
	return err
}

// b2c returns '1' for true and '0' for false.
func b2c(b bool) byte {
	if b {
		return '1'
	}
	return '0'
}
