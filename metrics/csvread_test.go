package metrics

import (
	"bytes"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/sim"
)

func TestParseNs(t *testing.T) {
	for _, v := range []int64{0, 1, 10, 999, 1000, 1500, 1502758500, 2000000000000, -1, -1500, math.MaxInt64, math.MinInt64 + 1} {
		s := string(AppendNs(nil, sim.Time(v)))
		got, err := ParseNs(s)
		if err != nil || got != sim.Time(v) {
			t.Errorf("ParseNs(%q) = %d, %v; want %d", s, got, err, v)
		}
	}
	for s, want := range map[string]sim.Time{"1.5": 1500, "1.05": 1050, "0.001": 1, "7": 7000, "-0.5": -500, "12.340": 12340} {
		if got, err := ParseNs(s); err != nil || got != want {
			t.Errorf("ParseNs(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", "-", ".5", "1.", "1.2345", "1e3", "+1", "1.-5", "--1", "1_000", "abc", " 1", "9223372036854776", "9223372036854775.9"} {
		if got, err := ParseNs(s); err == nil {
			t.Errorf("ParseNs(%q) = %d, want error", s, got)
		}
	}
}

func TestReadFlowsCSVRoundTrip(t *testing.T) {
	ns := sim.Nanosecond
	recs := []FlowRecord{
		{ID: 0, Src: 1, Dst: 20, SizeBytes: 1000000, Start: 2_000_000_000 * ns, Finish: 2_000_100_000*ns + 500, IdealFCT: 82_000*ns + 1, Done: true},
		{ID: 1, Src: 2, Dst: 20, SizeBytes: 5000, Start: 3 * ns, IdealFCT: 9 * ns},
		{ID: 7, Src: 3, Dst: 4, SizeBytes: 1, Start: 1, Finish: 2, IdealFCT: 5, Done: true},
	}
	var buf bytes.Buffer
	if err := WriteFlowsCSV(&buf, recs); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFlowsCSV(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, recs) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, recs)
	}
	// CRLF line ends and blank lines are accepted.
	crlf := FlowsCSVHeader + "\r\n0,1,2,10,0,5,5,5,1.000000\r\n\r\n"
	if got, err := ReadFlowsCSV(strings.NewReader(crlf)); err != nil || len(got) != 1 || !got[0].Done {
		t.Errorf("CRLF: %+v, %v", got, err)
	}
	// Header only: no records, no error.
	if got, err := ReadFlowsCSV(strings.NewReader(FlowsCSVHeader + "\n")); err != nil || len(got) != 0 {
		t.Errorf("header only: %+v, %v", got, err)
	}
}

func TestReadFlowsCSVErrors(t *testing.T) {
	h := FlowsCSVHeader + "\n"
	for in, want := range map[string]string{
		"":                                    "empty file",
		"a,b\n":                               "line 1: header",
		h + "0,1,2,10,0,5,5,5\n":              "line 2: want 9 fields, got 8",
		h + "x,1,2,10,0,5,5,5,1\n":            `line 2: flow_id "x"`,
		h + "0,1,2,1.5,0,5,5,5,1\n":           `size_bytes "1.5"`,
		h + "0,1,2,10,zz,5,5,5,1\n":           "start_ns: invalid time",
		h + "0,1,2,10,0,5,5,,1\n":             "ideal_fct_ns: invalid time",
		h + "0,1,2,10,0,5,4,5,1\n":            "fct_ns 4 != finish_ns 5 - start_ns 0",
		h + "0,1,2,10,0,,5,5,\n":              "unfinished flow",
		h + "0,1,2,10,0,5,,5,1\n":             "fct_ns: invalid time",
		h + "0,1,2,10,0,5,5,5,1\n1,2\n":       "line 3: want 9 fields",
		h + "0,1,2,10,0,5.1234,5,5,1\n":       "finish_ns: invalid time",
		h + "0,1,2,10,0,5,5,5,1\n\n0,1,2,3\n": "line 4",
	} {
		_, err := ReadFlowsCSV(strings.NewReader(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ReadFlowsCSV(%q) error = %v, want it to contain %q", in, err, want)
		}
	}
}
