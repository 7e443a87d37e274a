package topo

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

func readRef(t testing.TB, name string) *Graph {
	t.Helper()
	f, err := os.Open(refDir + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g, err := ReadNS3(f)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return g
}

func TestParseRate(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		err  string // substring; "" = success
	}{
		{"100Gbps", 100e9, ""},
		{"400Gbps", 400e9, ""},
		{"25Gbps", 25e9, ""},
		{"10Gbps", 10e9, ""},
		{"40Gbps", 40e9, ""},
		{"2.5Gbps", 2_500_000_000, ""},
		{"100Gb/s", 100e9, ""},
		{"100Mbps", 100e6, ""},
		{"100Mb/s", 100e6, ""},
		{"1000Kbps", 1e6, ""},
		{"1000kbps", 1e6, ""},
		{"12345bps", 12345, ""},
		{"1.5bps", 1, ""}, // truncated like ns-3
		{"1GBps", 8e9, ""},
		{"1Kibps", 1024, ""},
		{"1e2Gbps", 100e9, ""},
		{"0.1Gbps", 100e6, ""},
		{"1Tbps", 1e12, ""},
		{"100", 0, "unknown unit"},
		{"100gbps", 0, "unknown unit"},
		{"Gbps", 0, "not a decimal"},
		{"1.2.3Gbps", 0, "not a decimal"},
		{"0Gbps", 0, "not positive"},
		{"0.1bps", 0, "not positive"},
		{"-1Gbps", 0, "not positive"},
		{"10000000000Gbps", 0, "out of range"},
		{"1e99999999999Gbps", 0, "out of range"},
	}
	for _, tc := range tests {
		got, err := ParseRate(tc.in)
		if tc.err == "" {
			if err != nil || got != tc.want {
				t.Errorf("ParseRate(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("ParseRate(%q) = %d, %v; want error containing %q", tc.in, got, err, tc.err)
		}
	}
}

func TestParseDelay(t *testing.T) {
	tests := []struct {
		in   string
		want sim.Time
		err  string
	}{
		{"1000ns", 1000 * sim.Nanosecond, ""},
		{"1us", sim.Microsecond, ""},
		{"1ms", sim.Millisecond, ""},
		{"0.5us", 500 * sim.Nanosecond, ""},
		{"0.5ns", 500, ""},
		{"1500ps", 1500, ""},
		{"2000fs", 2, ""},
		{"0ns", 0, ""},
		{"-0ns", 0, ""},
		{"1s", sim.Second, ""},
		{"0.000001", sim.Microsecond, ""}, // bare number = seconds, as in ns-3
		{"1min", 60 * sim.Second, ""},
		{"1h", 3600 * sim.Second, ""},
		{"1d", 86400 * sim.Second, ""},
		{"1.5e3ns", 1500 * sim.Nanosecond, ""},
		{"1E-3ms", sim.Microsecond, ""},
		{"0.0001ns", 0, "whole number of picoseconds"},
		{"1500fs", 0, "whole number of picoseconds"},
		{"-1ns", 0, "negative"},
		{"1sec", 0, "unknown unit"},
		{"ns", 0, "not a decimal"},
		{"1e", 0, "unknown unit"},
		{"1000000d", 0, "out of range"},
	}
	for _, tc := range tests {
		got, err := ParseDelay(tc.in)
		if tc.err == "" {
			if err != nil || got != tc.want {
				t.Errorf("ParseDelay(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("ParseDelay(%q) = %d, %v; want error containing %q", tc.in, got, err, tc.err)
		}
	}
}

func TestFormatRateDelay(t *testing.T) {
	rates := []struct {
		bps  int64
		want string
	}{
		{100e9, "100Gbps"}, {2_500_000_000, "2500Mbps"}, {1e6, "1Mbps"}, {1500, "1500bps"},
		{25_000, "25Kbps"}, {1, "1bps"},
	}
	for _, tc := range rates {
		if got := FormatRate(tc.bps); got != tc.want {
			t.Errorf("FormatRate(%d) = %q, want %q", tc.bps, got, tc.want)
		}
		if back, err := ParseRate(tc.want); err != nil || back != tc.bps {
			t.Errorf("ParseRate(%q) = %d, %v", tc.want, back, err)
		}
	}
	delays := []struct {
		d    sim.Time
		want string
	}{
		{1000 * sim.Nanosecond, "1000ns"}, {0, "0ns"}, {1500, "1500ps"}, {sim.Millisecond, "1000000ns"},
	}
	for _, tc := range delays {
		if got := FormatDelay(tc.d); got != tc.want {
			t.Errorf("FormatDelay(%d) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

func TestReadNS3Incast20(t *testing.T) {
	g := readRef(t, "incast20_topology.txt")
	want := Star(21, 100e9, 1000*sim.Nanosecond)
	if !reflect.DeepEqual(g, want) {
		t.Fatalf("ReadNS3(incast20_topology.txt) = %+v\nwant Star(21, 100e9, 1000ns) = %+v", g, want)
	}
}

func TestReadNS3Fat(t *testing.T) {
	g := readRef(t, "fat_topology.txt")
	if len(g.Kinds) != 376 || len(g.Links) != 480 {
		t.Fatalf("nodes %d links %d, want 376 480", len(g.Kinds), len(g.Links))
	}
	hosts := g.Hosts()
	if len(hosts) != 320 || hosts[0] != 0 || hosts[319] != 319 {
		t.Fatalf("hosts = %d (first %d, last %d), want 0..319", len(hosts), hosts[0], hosts[len(hosts)-1])
	}
	var n100, n400 int
	for _, l := range g.Links {
		if l.Delay != 1000*sim.Nanosecond || l.ErrRate != 0 {
			t.Fatalf("link %+v: want 1000ns, error rate 0", l)
		}
		switch l.Bps {
		case 100e9:
			n100++
		case 400e9:
			n400++
		}
	}
	if n100 != 320 || n400 != 160 {
		t.Fatalf("100G links %d, 400G links %d; want 320, 160", n100, n400)
	}
	if g.Links[0] != (Link{A: 0, B: 320, Bps: 100e9, Delay: 1000 * sim.Nanosecond}) {
		t.Fatalf("first link %+v", g.Links[0])
	}
	if g.Links[479] != (Link{A: 359, B: 375, Bps: 400e9, Delay: 1000 * sim.Nanosecond}) {
		t.Fatalf("last link %+v", g.Links[479])
	}
}

func TestNS3RoundTrip(t *testing.T) {
	graphs := map[string]*Graph{
		"star":   Star(3, 25e9, 1500),
		"incast": readRef(t, "incast20_topology.txt"),
		"fat":    readRef(t, "fat_topology.txt"),
		"mixed": {
			Kinds: []NodeKind{Host, Switch, Host, Switch},
			Links: []Link{
				{A: 0, B: 1, Bps: 12345, Delay: 1, ErrRate: 0.001},
				{A: 1, B: 3, Bps: 2_500_000_000, Delay: sim.Millisecond, ErrRate: 1e-9},
				{A: 3, B: 2, Bps: 40e9, Delay: 0, ErrRate: 0.1},
			},
		},
	}
	for name, g := range graphs {
		var buf bytes.Buffer
		if err := WriteNS3(&buf, g); err != nil {
			t.Fatalf("%s: WriteNS3: %v", name, err)
		}
		back, err := ReadNS3(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatalf("%s: ReadNS3: %v\n%s", name, err, buf.String())
		}
		if !reflect.DeepEqual(back, g) {
			t.Fatalf("%s: round trip differs:\n%+v\n%+v", name, back, g)
		}
	}
	// The writer reproduces the reference file byte for byte.
	var buf bytes.Buffer
	if err := WriteNS3(&buf, Star(21, 100e9, 1000*sim.Nanosecond)); err != nil {
		t.Fatal(err)
	}
	ref, err := os.ReadFile(refDir + "incast20_topology.txt")
	if err != nil {
		t.Fatal(err)
	}
	if buf.String() != string(ref) {
		t.Fatalf("WriteNS3(Star(21)) =\n%s\nwant\n%s", buf.String(), ref)
	}
}

func TestWriteNS3Invalid(t *testing.T) {
	g := &Graph{Kinds: []NodeKind{Host, Host}, Links: []Link{{A: 0, B: 1, Bps: 0}}}
	if err := WriteNS3(io.Discard, g); err == nil {
		t.Fatal("WriteNS3 accepted a zero-rate link")
	}
}

func TestReadNS3Lenient(t *testing.T) {
	// Switch ids may wrap lines; blank lines are ignored; zero switches.
	tests := []struct {
		name, in string
		want     *Graph
	}{
		{"wrapped switch ids", "\n4 2 3\n2\n3\n\n0 2 1Gbps 1us 0\n2 3 1Gbps 1us 0\n3 1 1Gbps 1us 0.5\n\n",
			&Graph{Kinds: []NodeKind{Host, Host, Switch, Switch}, Links: []Link{
				{A: 0, B: 2, Bps: 1e9, Delay: sim.Microsecond},
				{A: 2, B: 3, Bps: 1e9, Delay: sim.Microsecond},
				{A: 3, B: 1, Bps: 1e9, Delay: sim.Microsecond, ErrRate: 0.5},
			}}},
		{"no switches", "2 0 1\n0 1 10Gbps 0.5us 0.000000", &Graph{Kinds: []NodeKind{Host, Host},
			Links: []Link{{A: 0, B: 1, Bps: 10e9, Delay: 500 * sim.Nanosecond}}}},
		{"no links", "1 1 0\n0\n", &Graph{Kinds: []NodeKind{Switch}, Links: []Link{}}},
		{"crlf", "2 0 1\r\n\r\n0 1 10Gbps 1ns 0\r\n", &Graph{Kinds: []NodeKind{Host, Host},
			Links: []Link{{A: 0, B: 1, Bps: 10e9, Delay: sim.Nanosecond}}}},
	}
	for _, tc := range tests {
		g, err := ReadNS3(strings.NewReader(tc.in))
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if !reflect.DeepEqual(g, tc.want) {
			t.Errorf("%s: got %+v, want %+v", tc.name, g, tc.want)
		}
	}
}

func TestReadNS3Errors(t *testing.T) {
	tests := []struct {
		name, in string
		line     int
		field    string
		msg      string // substring of the cause
	}{
		{"empty", "", 0, "header", "unexpected EOF"},
		{"blank only", "\n\n  \n", 0, "header", "unexpected EOF"},
		{"short header", "3 1\n", 1, "header", "want 3 fields"},
		{"bad nodes", "x 1 1\n", 1, "nodes", "invalid count"},
		{"negative links", "3 1 -1\n", 1, "links", "invalid count"},
		{"too many nodes", "99999999999 1 1\n", 1, "nodes", "exceeds the limit"},
		{"switches > nodes", "2 3 1\n", 1, "switches", "only 2 nodes"},
		{"missing switch ids", "3 2 1\n2\n", 0, "switch id 2 of 2", "unexpected EOF"},
		{"bad switch id", "3 1 1\nfoo\n", 2, "switch id", "invalid node id"},
		{"switch id range", "3 1 1\n3\n", 2, "switch id", "out of range"},
		{"duplicate switch", "3 2 1\n2 2\n", 2, "switch id", "listed twice"},
		{"extra switch id", "3 1 1\n2 1\n", 2, "switch ids", "more than 1"},
		{"missing link", "3 1 2\n2\n0 2 1Gbps 1ns 0\n", 0, "link 2 of 2", "unexpected EOF"},
		{"link fields", "3 1 1\n2\n0 2 1Gbps 1ns\n", 3, "link 1 fields", "want 5 fields"},
		{"link a", "3 1 1\n2\n\nx 2 1Gbps 1ns 0\n", 4, "link 1 a", "invalid node id"},
		{"link b range", "3 1 1\n2\n0 7 1Gbps 1ns 0\n", 3, "link 1 b", "out of range"},
		{"negative node", "3 1 1\n2\n-1 2 1Gbps 1ns 0\n", 3, "link 1 a", "out of range"},
		{"self link", "3 1 1\n2\n2 2 1Gbps 1ns 0\n", 3, "link 1 b", "self link"},
		{"rate unit", "3 1 1\n2\n0 2 1Gbs 1ns 0\n", 3, "link 1 rate", "unknown unit"},
		{"zero rate", "3 1 1\n2\n0 2 0Gbps 1ns 0\n", 3, "link 1 rate", "not positive"},
		{"delay unit", "3 1 1\n2\n0 2 1Gbps 1nsec 0\n", 3, "link 1 delay", "unknown unit"},
		{"negative delay", "3 1 1\n2\n0 2 1Gbps -1ns 0\n", 3, "link 1 delay", "negative"},
		{"sub-ps delay", "3 1 1\n2\n0 2 1Gbps 0.1ps 0\n", 3, "link 1 delay", "whole number"},
		{"error rate", "3 1 1\n2\n0 2 1Gbps 1ns x\n", 3, "link 1 error_rate", "invalid number"},
		{"error rate range", "3 1 1\n2\n0 2 1Gbps 1ns 1.5\n", 3, "link 1 error_rate", "not in [0, 1]"},
		{"error rate nan", "3 1 1\n2\n0 2 1Gbps 1ns NaN\n", 3, "link 1 error_rate", "not in [0, 1]"},
		{"second link", "3 1 2\n2\n0 2 1Gbps 1ns 0\n1 2 1Gbps 1ns 0 0\n", 4, "link 2 fields", "got 6"},
		{"trailing", "3 1 1\n2\n0 2 1Gbps 1ns 0\n1 2 1Gbps 1ns 0\n", 4, "trailing data", "after the 1 links"},
	}
	for _, tc := range tests {
		g, err := ReadNS3(strings.NewReader(tc.in))
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("%s: ReadNS3 = %v, %v; want *ParseError", tc.name, g, err)
			continue
		}
		if pe.Line != tc.line || pe.Field != tc.field || !strings.Contains(pe.Err.Error(), tc.msg) {
			t.Errorf("%s: error %q (line %d, field %q); want line %d, field %q, cause containing %q",
				tc.name, err, pe.Line, pe.Field, tc.line, tc.field, tc.msg)
		}
	}
	// The message names line and field.
	_, err := ReadNS3(strings.NewReader("3 1 1\n2\n0 2 1Gbs 1ns 0\n"))
	if want := `topo: line 3: link 1 rate: invalid rate "1Gbs": unknown unit "Gbs"`; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error = %v, want prefix %q", err, want)
	}
}

type failReader struct{}

func (failReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

func TestReadNS3ReadError(t *testing.T) {
	_, err := ReadNS3(io.MultiReader(strings.NewReader("3 1 1\n2\n"), failReader{}))
	if err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Fatalf("err = %v, want the read error", err)
	}
}

func FuzzReadNS3(f *testing.F) {
	for _, name := range []string{"incast20_topology.txt"} {
		b, err := os.ReadFile(refDir + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("4 2 3\n2 3\n0 2 1Gbps 1us 0\n2 3 2.5Mb/s 0.5us 0\n3 1 1e3Kbps 1e-6 0.5\n"))
	f.Add([]byte("2 0 1\n0 1 10Gbps 1ns 0\n"))
	f.Add([]byte("3 1 1\n2\n0 2 1e99999Gbps -1ns nan\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := ReadNS3(bytes.NewReader(data))
		if err != nil {
			if g != nil {
				t.Fatal("non-nil graph with error")
			}
			return
		}
		if err := g.Validate(); err != nil {
			t.Fatalf("ReadNS3 returned an invalid graph: %v", err)
		}
		var buf bytes.Buffer
		if err := WriteNS3(&buf, g); err != nil {
			t.Fatalf("WriteNS3: %v", err)
		}
		back, err := ReadNS3(&buf)
		if err != nil || !reflect.DeepEqual(back, g) {
			t.Fatalf("round trip: %v", err)
		}
		if len(g.Kinds) <= 64 {
			r := g.NextHops()
			for _, h := range g.Hosts() {
				for v := range g.Kinds {
					if d := r.Dist(v, h); (d > 0) != (len(r.Next(v, h)) > 0) {
						t.Fatalf("Dist(%d,%d) = %d but Next = %v", v, h, d, r.Next(v, h))
					}
				}
			}
			g.MaxRTT(1000)
		}
	})
}
