package metrics

import (
	"io"
	"strconv"

	"github.com/ccsim/ccsim/sim"
)

// FlowsCSVHeader is the header line (without newline) of WriteFlowsCSV.
const FlowsCSVHeader = "flow_id,src,dst,size_bytes,start_ns,finish_ns,fct_ns,ideal_fct_ns,slowdown"

// FlowsCSVHeaderGroup is the header of WriteFlowsCSV when some flow has a
// group: a last column `group`.
const FlowsCSVHeaderGroup = FlowsCSVHeader + ",group"

// WriteFlowsCSV writes recs as CSV, one row per record in the order given,
// after the header FlowsCSVHeader. Times are in nanoseconds at full
// picosecond precision with no superfluous digits (see AppendNs), e.g.
// 2000000000 or 1502758.5. slowdown is printed with %.6f. For unfinished
// flows finish_ns, fct_ns and slowdown are empty; for a chained flow that
// never started (NotStarted) start_ns too. When some record has a Group,
// the header is FlowsCSVHeaderGroup and every row ends with its group
// (empty if none). The output is byte-deterministic.
func WriteFlowsCSV(w io.Writer, recs []FlowRecord) error {
	groups := false
	for i := range recs {
		groups = groups || recs[i].Group != ""
	}
	buf := make([]byte, 0, min(flushBytes, 96*len(recs))+128)
	if groups {
		buf = append(buf, FlowsCSVHeaderGroup...)
	} else {
		buf = append(buf, FlowsCSVHeader...)
	}
	buf = append(buf, '\n')
	for i := range recs {
		r := &recs[i]
		buf = strconv.AppendInt(buf, int64(r.ID), 10)
		buf = append(buf, ',')
		buf = strconv.AppendInt(buf, int64(r.Src), 10)
		buf = append(buf, ',')
		buf = strconv.AppendInt(buf, int64(r.Dst), 10)
		buf = append(buf, ',')
		buf = strconv.AppendInt(buf, r.SizeBytes, 10)
		buf = append(buf, ',')
		if !r.NotStarted {
			buf = AppendNs(buf, r.Start)
		}
		buf = append(buf, ',')
		if r.Done {
			buf = AppendNs(buf, r.Finish)
		}
		buf = append(buf, ',')
		if r.Done {
			buf = AppendNs(buf, r.FCT())
		}
		buf = append(buf, ',')
		buf = AppendNs(buf, r.IdealFCT)
		buf = append(buf, ',')
		if r.Done {
			buf = strconv.AppendFloat(buf, r.Slowdown(), 'f', 6, 64)
		}
		if groups {
			buf = append(buf, ',')
			buf = append(buf, r.Group...)
		}
		buf = append(buf, '\n')
		var err error
		if buf, err = flushFull(w, buf); err != nil {
			return err
		}
	}
	_, err := w.Write(buf)
	return err
}

// AppendNs appends t in nanoseconds as an exact decimal: the integer part,
// then, only if t is not a whole number of nanoseconds, a '.' and up to 3
// fractional digits with trailing zeros removed. Examples (t in ps):
// 2000000000000 -> "2000000000", 1502758500 -> "1502758.5",
// 1 -> "0.001", -1500 -> "-1.5".
func AppendNs(dst []byte, t sim.Time) []byte {
	v := int64(t)
	if v < 0 {
		dst = append(dst, '-')
	}
	// Work with the magnitude as uint64 so math.MinInt64 is handled.
	u := uint64(v)
	if v < 0 {
		u = -u
	}
	ns, ps := u/uint64(sim.Nanosecond), u%uint64(sim.Nanosecond)
	dst = strconv.AppendUint(dst, ns, 10)
	if ps == 0 {
		return dst
	}
	frac := [3]byte{byte('0' + ps/100), byte('0' + ps/10%10), byte('0' + ps%10)}
	n := 3
	for frac[n-1] == '0' {
		n--
	}
	dst = append(dst, '.')
	return append(dst, frac[:n]...)
}
