package workload

import (
	"bytes"
	"errors"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/sim"
)

// refDir holds the reference input files copied from the anchors.
const refDir = "../scenarios/reference/ns3/"

func readRefFlows(t testing.TB, name string) []Flow {
	t.Helper()
	f, err := os.Open(refDir + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	flows, err := ReadNS3Flows(f)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return flows
}

const ns = sim.Nanosecond

func TestReadNS3FlowsInline(t *testing.T) {
	in := "5 \n" +
		"297 179 3 100 1005 2.000000223\n" +
		"306 29 3 100 226483 2.000002904\n" +
		"\n" +
		"297 179 3 100 7 2.000016704\n" +
		"179 297 1 7 1 2.001\n" +
		"297 179 7 65535 9000000000 2.001000000001\n"
	want := []Flow{
		{Src: 297, Dst: 179, Prio: 3, SPort: 10000, DPort: 100, SizeBytes: 1005, Start: 2_000_000_223_000, RefStart: 2_000_000_222 * ns},
		{Src: 306, Dst: 29, Prio: 3, SPort: 10000, DPort: 100, SizeBytes: 226483, Start: 2_000_002_904_000, RefStart: 2_000_002_904 * ns},
		{Src: 297, Dst: 179, Prio: 3, SPort: 10001, DPort: 100, SizeBytes: 7, Start: 2_000_016_704_000, RefStart: 2_000_016_704 * ns},
		{Src: 179, Dst: 297, Prio: 1, SPort: 10000, DPort: 7, SizeBytes: 1, Start: 2_001_000_000_000, RefStart: 2_000_999_999 * ns},
		{Src: 297, Dst: 179, Prio: 7, SPort: 10002, DPort: 65535, SizeBytes: 9_000_000_000, Start: 2_001_000_000_001, RefStart: 2_001_000_000 * ns},
	}
	got, err := ReadNS3Flows(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ReadNS3Flows =\n%+v\nwant\n%+v", got, want)
	}
	for i, f := range got {
		if r := RefStartTime(f.Start); r != f.RefStart {
			t.Errorf("flow %d: RefStartTime(%d) = %d, RefStart %d", i, f.Start, r, f.RefStart)
		}
	}
}

func TestReadNS3FlowsAnchors(t *testing.T) {
	for _, tc := range []struct {
		name string
		size int64
	}{{"incast20_1MB.txt", 1_000_000}, {"incast20_10MB.txt", 10_000_000}} {
		flows := readRefFlows(t, tc.name)
		if len(flows) != 20 {
			t.Fatalf("%s: %d flows, want 20", tc.name, len(flows))
		}
		for i, f := range flows {
			want := Flow{Src: i, Dst: 20, Prio: 3, SPort: 10000, DPort: 100, SizeBytes: tc.size, Start: 2 * sim.Second, RefStart: 2 * sim.Second}
			if f != want {
				t.Fatalf("%s flow %d = %+v, want %+v", tc.name, i, f, want)
			}
		}
		if in := Incast(seq(20), 20, []int64{tc.size}, 2*sim.Second, 3); !reflect.DeepEqual(in, flows) {
			t.Fatalf("Incast differs from %s", tc.name)
		}
	}

	flows := readRefFlows(t, "fat_websearch_l30_10ms.txt")
	if len(flows) != 6677 {
		t.Fatalf("fat_websearch_l30_10ms.txt: %d flows, want 6677", len(flows))
	}
	// Values checked against the reference's fct file (start_ns, sport).
	checks := map[int]Flow{
		0:    {Src: 297, Dst: 179, Prio: 3, SPort: 10000, DPort: 100, SizeBytes: 1005, Start: 2_000_000_223_000, RefStart: 2_000_000_222 * ns},
		3:    {Src: 15, Dst: 317, Prio: 3, SPort: 10000, DPort: 100, SizeBytes: 18104, Start: 2_000_008_893_000, RefStart: 2_000_008_892 * ns},
		6676: flows[6676],
	}
	for i, want := range checks {
		if flows[i] != want {
			t.Errorf("flow %d = %+v, want %+v", i, flows[i], want)
		}
	}
	last := flows[6676]
	if last.Start != 2_009_982_036_000 || last.RefStart != 2_009_982_035*ns {
		t.Errorf("last flow %+v", last)
	}
	var maxSPort int
	for _, f := range flows {
		maxSPort = max(maxSPort, f.SPort)
	}
	if maxSPort != 10003 {
		t.Errorf("max sport %d, want 10003", maxSPort)
	}
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

func TestReadNS3FlowsErrors(t *testing.T) {
	tests := []struct {
		name, in string
		line     int
		field    string
		msg      string
	}{
		{"empty", "", 0, "count", "unexpected EOF"},
		{"bad count", "x\n", 1, "count", "invalid count"},
		{"negative count", "-1\n", 1, "count", "invalid count"},
		{"two counts", "1 2\n", 1, "count", "want 1 field"},
		{"missing flow", "2\n0 1 3 100 10 2\n", 0, "flow 2 of 2", "unexpected EOF"},
		{"fields", "1\n0 1 3 100 10\n", 2, "fields", "want 6 fields"},
		{"src", "1\nx 1 3 100 10 2\n", 2, "src", "invalid integer"},
		{"negative src", "1\n-1 1 3 100 10 2\n", 2, "src", "not in [0,"},
		{"dst", "1\n0 1.5 3 100 10 2\n", 2, "dst", "invalid integer"},
		{"self", "1\n4 4 3 100 10 2\n", 2, "dst", "to itself"},
		{"pg", "1\n0 1 8 100 10 2\n", 2, "pg", "not in [1, 7]"},
		{"pg 0", "1\n\n0 1 0 100 10 2\n", 3, "pg", "class 0 carries ccsim's control packets"}, // issue 19 §3.10: was "flow 0: prio 0" from the fabric
		{"dport", "1\n0 1 3 65536 10 2\n", 2, "dport", "not in [0, 65535]"},
		{"size zero", "1\n0 1 3 100 0 2\n", 2, "size", "not positive"},
		{"size syntax", "1\n0 1 3 100 1e6 2\n", 2, "size", "invalid integer"},
		{"start syntax", "1\n0 1 3 100 10 2s\n", 2, "start", "invalid time"},
		{"start negative", "1\n0 1 3 100 10 -2\n", 2, "start", "negative"},
		{"start tiny negative", "1\n0 1 3 100 10 -1e-17\n", 2, "start", "negative"},
		{"start range", "1\n0 1 3 100 10 1e7\n", 2, "start", "out of range"},
		{"start nan", "1\n0 1 3 100 10 NaN\n", 2, "start", "invalid time"},
		{"unsorted", "3\n0 1 3 100 10 2.1\n\n0 1 3 100 10 2.2\n0 1 3 100 10 2.15\n", 5, "start", "earlier than the previous"},
		{"trailing", "1\n0 1 3 100 10 2\n0 1 3 100 10 2\n", 3, "trailing data", "after the 1 flows"},
	}
	for _, tc := range tests {
		got, err := ReadNS3Flows(strings.NewReader(tc.in))
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("%s: ReadNS3Flows = %v, %v; want *ParseError", tc.name, got, err)
			continue
		}
		if pe.Line != tc.line || pe.Field != tc.field || !strings.Contains(pe.Err.Error(), tc.msg) {
			t.Errorf("%s: error %q (line %d, field %q); want line %d, field %q, cause containing %q",
				tc.name, err, pe.Line, pe.Field, tc.line, tc.field, tc.msg)
		}
	}
	_, err := ReadNS3Flows(strings.NewReader("1\n0 1 9 100 10 2\n"))
	if want := "workload: line 2: pg: 9 not in [1, 7]"; err == nil || err.Error() != want {
		t.Errorf("error = %v, want %q", err, want)
	}
}

type failReader struct{}

func (failReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

func TestReadNS3FlowsReadError(t *testing.T) {
	_, err := ReadNS3Flows(io.MultiReader(strings.NewReader("2\n0 1 3 100 10 2\n"), failReader{}))
	if err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Fatalf("err = %v, want the read error", err)
	}
}

func TestParseFormatSeconds(t *testing.T) {
	tests := []struct {
		in   string
		want sim.Time
		out  string // FormatSeconds(want)
	}{
		{"2.000000223", 2_000_000_223_000, "2.000000223"},
		{"2", 2 * sim.Second, "2.000000000"},
		{"2.", 2 * sim.Second, "2.000000000"},
		{".5", sim.Second / 2, "0.500000000"},
		{"0", 0, "0.000000000"},
		{"0.000000000001", 1, "0.000000000001"},
		{"0.0000000000019", 1, "0.000000000001"}, // truncated below 1 ps
		{"1.2345678901239999", 1_234_567_890_123, "1.234567890123"},
		{"2e0", 2 * sim.Second, "2.000000000"},
		{"25E-1", 2_500_000_000_000, "2.500000000"},
		{"+3.01", 3_010_000_000_000, "3.010000000"},
		{"1e-30", 0, "0.000000000"},
	}
	for _, tc := range tests {
		got, err := parseSeconds(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("parseSeconds(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
		if s := FormatSeconds(tc.want); s != tc.out {
			t.Errorf("FormatSeconds(%d) = %q, want %q", tc.want, s, tc.out)
		}
	}
}

func TestRefStartTime(t *testing.T) {
	tests := []struct {
		start, want sim.Time
	}{
		{2_000_000_223_000, 2_000_000_222 * ns},
		{2_000_016_704_000, 2_000_016_704 * ns},
		{2_001_000_000_000, 2_000_999_999 * ns},
		{2 * sim.Second, 2 * sim.Second},
		{0, 0},
		{1500, 1 * ns},
		{3_010_000_000_000, 3_009_999_999 * ns},
	}
	for _, tc := range tests {
		if got := RefStartTime(tc.start); got != tc.want {
			t.Errorf("RefStartTime(%d) = %d, want %d", tc.start, got, tc.want)
		}
	}
}

func TestAssignRefSPorts(t *testing.T) {
	flows := []Flow{{Src: 0, Dst: 1}, {Src: 1, Dst: 0}, {Src: 0, Dst: 1}, {Src: 0, Dst: 2}, {Src: 0, Dst: 1}}
	AssignRefSPorts(flows)
	want := []int{10000, 10000, 10001, 10000, 10002}
	for i, f := range flows {
		if f.SPort != want[i] {
			t.Errorf("flow %d SPort = %d, want %d", i, f.SPort, want[i])
		}
	}
	many := make([]Flow, 55537)
	AssignRefSPorts(many)
	if many[55535].SPort != 65535 || many[55536].SPort != 0 {
		t.Errorf("wrap: %d %d, want 65535 0", many[55535].SPort, many[55536].SPort)
	}
}

func TestWriteNS3FlowsRoundTrip(t *testing.T) {
	for _, name := range []string{"incast20_1MB.txt", "fat_websearch_l30_10ms.txt"} {
		flows := readRefFlows(t, name)
		var buf bytes.Buffer
		if err := WriteNS3Flows(&buf, flows); err != nil {
			t.Fatal(err)
		}
		back, err := ReadNS3Flows(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back, flows) {
			t.Fatalf("%s: round trip differs", name)
		}
	}
	// Byte-exact for the reference incast file.
	var buf bytes.Buffer
	if err := WriteNS3Flows(&buf, readRefFlows(t, "incast20_1MB.txt")); err != nil {
		t.Fatal(err)
	}
	ref, err := os.ReadFile(refDir + "incast20_1MB.txt")
	if err != nil {
		t.Fatal(err)
	}
	if buf.String() != string(ref) {
		t.Fatalf("WriteNS3Flows =\n%s\nwant\n%s", buf.String(), ref)
	}
	// Sub-ns start times survive.
	flows := []Flow{{Src: 1, Dst: 2, Prio: 3, DPort: 100, SizeBytes: 5, Start: 1_000_000_000_001}}
	buf.Reset()
	if err := WriteNS3Flows(&buf, flows); err != nil {
		t.Fatal(err)
	}
	if want := "1\n1 2 3 100 5 1.000000000001\n"; buf.String() != want {
		t.Fatalf("got %q, want %q", buf.String(), want)
	}
}

func TestWriteNS3FlowsInvalid(t *testing.T) {
	ok := Flow{Src: 0, Dst: 1, Prio: 3, DPort: 100, SizeBytes: 10, Start: 5}
	tests := []struct {
		name string
		mod  func(*Flow)
	}{
		{"self", func(f *Flow) { f.Dst = 0 }},
		{"prio", func(f *Flow) { f.Prio = 8 }},
		{"dport", func(f *Flow) { f.DPort = -1 }},
		{"size", func(f *Flow) { f.SizeBytes = 0 }},
		{"start", func(f *Flow) { f.Start = -1 }},
		{"unsorted", func(f *Flow) { f.Start = 4 }},
	}
	for _, tc := range tests {
		f := ok
		tc.mod(&f)
		var buf bytes.Buffer
		if err := WriteNS3Flows(&buf, []Flow{ok, f}); err == nil || buf.Len() != 0 {
			t.Errorf("%s: WriteNS3Flows = %v, wrote %d bytes; want error, nothing written", tc.name, err, buf.Len())
		}
	}
}

func TestIncast(t *testing.T) {
	got := Incast([]int{4, 2, 4}, 7, []int64{100, 200, 300}, 1500*ns, 3)
	want := []Flow{
		{Src: 4, Dst: 7, Prio: 3, SPort: 10000, DPort: 100, SizeBytes: 100, Start: 1500 * ns, RefStart: 1499 * ns},
		{Src: 2, Dst: 7, Prio: 3, SPort: 10000, DPort: 100, SizeBytes: 200, Start: 1500 * ns, RefStart: 1499 * ns},
		{Src: 4, Dst: 7, Prio: 3, SPort: 10001, DPort: 100, SizeBytes: 300, Start: 1500 * ns, RefStart: 1499 * ns},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Incast =\n%+v\nwant\n%+v", got, want)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("Incast with mismatched sizes did not panic")
		}
	}()
	Incast([]int{1, 2}, 0, []int64{1, 2, 3}, 0, 3)
}

func FuzzReadNS3Flows(f *testing.F) {
	b, err := os.ReadFile(refDir + "incast20_1MB.txt")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte("3\n297 179 3 100 1005 2.000000223\n306 29 3 100 226483 2.000002904\n0 1 3 100 1 2.1e0\n"))
	f.Add([]byte("1\n0 1 3 100 10 -2e-99999\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		flows, err := ReadNS3Flows(bytes.NewReader(data))
		if err != nil {
			if flows != nil {
				t.Fatal("non-nil flows with error")
			}
			return
		}
		for i, fl := range flows {
			if fl.RefStart > fl.Start+sim.Nanosecond || fl.RefStart < fl.Start-2*sim.Nanosecond {
				t.Fatalf("flow %d: RefStart %d far from Start %d", i, fl.RefStart, fl.Start)
			}
		}
		var buf bytes.Buffer
		if err := WriteNS3Flows(&buf, flows); err != nil {
			t.Fatalf("WriteNS3Flows: %v", err)
		}
		back, err := ReadNS3Flows(&buf)
		if err != nil || len(back) != len(flows) {
			t.Fatalf("round trip: %v", err)
		}
		for i := range back {
			b, f := back[i], flows[i]
			b.RefStart, f.RefStart = 0, 0 // may differ if the input had > 12 fractional digits
			if b != f {
				t.Fatalf("round trip flow %d: %+v != %+v", i, back[i], flows[i])
			}
		}
	})
}
