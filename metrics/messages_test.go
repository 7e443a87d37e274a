package metrics

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/sim"
)

// TestSummarizeLatency: count, mean and the percentile rule (index ⌊n·p⌋).
func TestSummarizeLatency(t *testing.T) {
	us := sim.Microsecond
	got := SummarizeLatency([]sim.Time{4 * us, 1 * us, 3 * us, 2 * us})
	want := LatencySummary{Count: 4, MeanUs: 2.5, P50Us: 3, P99Us: 4, MinUs: 1, MaxUs: 4}
	if got != want {
		t.Errorf("%+v, want %+v", got, want)
	}
	var lat []sim.Time
	for i := range 200 {
		lat = append(lat, sim.Time(200-i)*us)
	}
	if s := SummarizeLatency(lat); s.P50Us != 101 || s.P99Us != 199 || s.MeanUs != 100.5 {
		t.Errorf("200 samples: %+v, want p50 101 (index 100), p99 199 (index 198), mean 100.5", s)
	}
	if s := SummarizeLatency(nil); s != (LatencySummary{}) {
		t.Errorf("empty: %+v", s)
	}
}

// TestMessagesCSV: header and rows.
func TestMessagesCSV(t *testing.T) {
	var b bytes.Buffer
	recs := []MessageRecord{{Flow: 2, Msg: 0, Post: 0, Done: 6404091600}, {Flow: 2, Msg: 1, Post: 6404091600, Done: 12808138080}}
	if err := WriteMessagesCSV(&b, recs); err != nil {
		t.Fatal(err)
	}
	want := "flow_id,msg,post_ns,done_ns,latency_ns\n2,0,0,6404091.6,6404091.6\n2,1,6404091.6,12808138.08,6404046.48\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// TestFlowsCSVGroupsAndUnstarted: the group column appears when a record
// has a group; a flow that never started has an empty start; both read
// back.
func TestFlowsCSVGroupsAndUnstarted(t *testing.T) {
	recs := []FlowRecord{
		{ID: 0, Src: 0, Dst: 1, SizeBytes: 1000, Start: 5000, Finish: 9000, IdealFCT: 3000, Done: true, Group: "cross"},
		{ID: 1, Src: 1, Dst: 0, SizeBytes: 64, IdealFCT: 2000, NotStarted: true},
	}
	var b bytes.Buffer
	if err := WriteFlowsCSV(&b, recs); err != nil {
		t.Fatal(err)
	}
	want := FlowsCSVHeaderGroup + "\n0,0,1,1000,5,9,4,3,1.333333,cross\n1,1,0,64,,,,2,,\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	back, err := ReadFlowsCSV(&b)
	if err != nil || len(back) != 2 || back[0].Group != "cross" || !back[1].NotStarted || back[0].Start != 5000 {
		t.Errorf("read back %+v, %v", back, err)
	}
	// without groups: the old header, 9 columns
	recs[0].Group = ""
	b.Reset()
	WriteFlowsCSV(&b, recs[:1])
	if !strings.HasPrefix(b.String(), FlowsCSVHeader+"\n0,0,1,1000,5,9,4,3,1.333333\n") {
		t.Errorf("no groups: %q", b.String())
	}
	for _, bad := range []string{
		FlowsCSVHeaderGroup + "\n0,0,1,1000,5,9,4,3,1\n",
		FlowsCSVHeader + "\n0,0,1,1000,,9,4,3,1\n",
		"flow_id,x\n",
	} {
		if _, err := ReadFlowsCSV(strings.NewReader(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
