package result_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/metrics"
	"github.com/ccsim/ccsim/scenario/result"
	"github.com/ccsim/ccsim/sim"
)

// A result directory only ever holds one run's files: writing replaces it
// as a whole (a fresh directory renamed into place), and a directory that
// is not a result directory is not replaced.
func TestWriteReplacesTheResultDirectory(t *testing.T) {
	r := &result.Result{Scenario: "w", CC: "none", Seed: 1,
		Flows:     []metrics.FlowRecord{{ID: 0, Src: 0, Dst: 1, SizeBytes: 1000, Done: true, Finish: sim.Microsecond}},
		FlowStats: []result.FlowStat{{ID: 0, TxPackets: 1}}}
	root := t.TempDir()
	dir := filepath.Join(root, "none")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// a previous run's files, one of which this run does not write
	for _, f := range []string{"summary.json", "flows.csv", "queue.csv"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Write(dir); err != nil {
		t.Fatal(err)
	}
	names := func(d string) []string {
		es, err := os.ReadDir(d)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range es {
			out = append(out, e.Name())
		}
		return out
	}
	if got := names(dir); !slices.Equal(got, []string{"flow_losses.csv", "flow_stats.csv", "flows.csv", "summary.json"}) {
		t.Errorf("result directory holds %v, want only this run's flow_losses.csv, flow_stats.csv, flows.csv, summary.json", got)
	}
	if got := names(root); !slices.Equal(got, []string{"none"}) {
		t.Errorf("beside it: %v, want nothing left over", got)
	}
	if st, err := os.Stat(dir); err != nil || st.Mode().Perm() != 0o755 {
		t.Errorf("result directory mode: %v %v", st.Mode(), err)
	}
	// not a result directory: kept, and an error
	other := filepath.Join(root, "mine")
	os.MkdirAll(other, 0o755)
	os.WriteFile(filepath.Join(other, "notes.txt"), []byte("keep"), 0o644)
	if err := r.Write(other); err == nil || !strings.Contains(err.Error(), "not a ccsim result directory") {
		t.Errorf("Write over a foreign directory: %v", err)
	}
	if got := names(other); !slices.Equal(got, []string{"notes.txt"}) {
		t.Errorf("foreign directory now holds %v", got)
	}
}

// readFile reads dir/name, failing the test if it is missing.
func readFile(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Files selects the optional files; the CSV writers give these exact
// bytes (docs/outputs.md §6, §12, §15).
func TestWriteOptionalFiles(t *testing.T) {
	base := func() *result.Result {
		return &result.Result{Scenario: "f", CC: "none",
			Flows:     []metrics.FlowRecord{{ID: 0, Src: 0, Dst: 1, SizeBytes: 1000, Done: true, Finish: sim.Microsecond}},
			FlowStats: []result.FlowStat{{ID: 0, CNPs: 1, RateCuts: 2, TxPackets: 3, RetxByte: 4, Decisions: 5}},
			FlowLosses: []result.FlowLoss{{ID: 0, SentBytes: 9000, RxBytes: 5000, InFlightBytes: 1000, DataDrops: 3, DropBytes: 3000,
				CtrlDrops: 1, GoodputBytes: 4000, Duration: 2*sim.Microsecond + 500*sim.Picosecond}},
			PerRTT:   []result.PerRTTSample{{Flow: 2, At: 1500 * sim.Picosecond, RTT: 10 * sim.Microsecond}},
			Messages: []metrics.MessageRecord{{Flow: 0, Msg: 0, Post: 0, Done: sim.Microsecond}},
		}
	}
	dir := filepath.Join(t.TempDir(), "off")
	if err := base().Write(dir); err != nil {
		t.Fatal(err)
	}
	es, _ := os.ReadDir(dir)
	var got []string
	for _, e := range es {
		got = append(got, e.Name())
	}
	if !slices.Equal(got, []string{"flow_losses.csv", "flow_stats.csv", "flows.csv", "summary.json"}) {
		t.Errorf("without Files: %v", got)
	}
	if s := readFile(t, dir, "flow_stats.csv"); s != "flow_id,cnps_rx,rate_cuts,tx_packets,retx_bytes,decisions\n0,1,2,3,4,5\n" {
		t.Errorf("flow_stats.csv = %q", s)
	}
	// 4000 B in 2000.5 ns: 32,000 b / 2000.5 ns = 15.996001 Gb/s
	if s := readFile(t, dir, "flow_losses.csv"); s != "flow_id,sent_bytes,received_bytes,in_flight_bytes,dropped_bytes,data_drops,ctrl_drops,goodput_bytes,duration_ns,goodput_gbps\n"+
		"0,9000,5000,1000,3000,3,1,4000,2000.5,15.996001\n" {
		t.Errorf("flow_losses.csv = %q", s)
	}

	r := base()
	r.Files = result.Files{RefFCT: true, RefPFC: true, FlowFile: true, RTTPerRTT: true, Messages: true}
	r.Queue = []result.QueueSample{{At: 2 * sim.Microsecond, Port: 0, Bytes: 100}}
	r.QueuePorts = []result.Port{{Node: 5, Port: 4}}
	r.QueueCDFs = &metrics.QueueCDFs{}
	r.QueueCDFs.Add("host", 1000)
	dir = filepath.Join(t.TempDir(), "on")
	if err := r.Write(dir); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"fct.txt", "pfc.txt", "flows.txt", "messages.csv", "queue_cdf.csv"} {
		readFile(t, dir, f)
	}
	if s := readFile(t, dir, "rtt_per_rtt.csv"); s != "flow_id,time_ns,rtt_ns\n2,1.5,10000\n" {
		t.Errorf("rtt_per_rtt.csv = %q", s)
	}
	if s := readFile(t, dir, "queue.csv"); s != "time_ns,node,port,bytes\n2000,5,4,100\n" {
		t.Errorf("queue.csv = %q", s)
	}
}

// The series files: times relative to the first flow start, rates in
// Gb/s, ingress rows after the egress ones (docs/outputs.md §13).
func TestWriteSeries(t *testing.T) {
	us := sim.Microsecond
	r := &result.Result{CC: "none", Series: &result.Series{
		First: us,
		FlowRate: &result.FlowRateSeries{By: "src", IDs: []int{4, 7}, Rows: []result.FlowRateRow{
			{Start: us, Length: 10 * us, Group: 1, Bytes: 12500}, {Start: 11 * us, Length: 0, Group: 0, Bytes: 0}}},
		LinkRate: &result.LinkRateSeries{Ports: []result.Port{{Node: 3, Port: 1}}, Rows: []result.LinkRateRow{
			{Start: us, Length: 10 * us, Link: 0, Wire: 25000, Payload: 12500}}},
		Queue: &result.QueueSeries{Ports: []result.Port{{Node: 3, Port: 1}, {Node: 2, Port: 0}}, Ingress: 1, Rows: []result.QueueRow{
			{Start: us, Port: 0, Min: 0, Max: 3000, Sum: 3001, N: 2}, {Start: 11 * us, Port: 1, Min: 5, Max: 5, Sum: 10, N: 2}}},
		PFC: &result.PFCSeries{Bin: 10 * us, Rows: []result.PFCRow{{Bin: 2, FromNode: 3, FromPort: 1, ToNode: 0, ToPort: 0, Pauses: 4}}},
	}}
	dir := filepath.Join(t.TempDir(), "s")
	if err := r.Write(dir); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"flow_rate.csv":    "bin_start_ns,bin_ns,src,bytes,gbps\n0,10000,7,12500,10\n10000,0,4,0,0\n",
		"link_rate.csv":    "bin_start_ns,bin_ns,node,port,wire_bytes,payload_bytes,wire_gbps,payload_gbps\n0,10000,3,1,25000,12500,20,10\n",
		"queue_series.csv": "bin_start_ns,node,port,dir,samples,min_bytes,mean_bytes,max_bytes\n0,3,1,egress,2,0,1500.5,3000\n10000,2,0,ingress,2,5,5.0,5\n",
		"pfc_bins.csv":     "bin_start_ns,bin_ns,from_node,from_port,to_node,to_port,pause_frames\n20000,10000,3,1,0,0,4\n",
	} {
		if got := readFile(t, dir, name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	// a series that is off writes no file
	r.Series = &result.Series{First: us}
	dir = filepath.Join(t.TempDir(), "none")
	if err := r.Write(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "flow_rate.csv")); err == nil {
		t.Error("flow_rate.csv written without a flow-rate series")
	}
}

// summary.json keeps its field names and order; the per-sample data and
// the file selection are not part of it.
func TestSummaryJSON(t *testing.T) {
	r := &result.Result{Scenario: "j", CC: "none", Seed: 3, Files: result.Files{RefFCT: true},
		RTTPerRTT: &result.RTTSummary{Samples: 1}, PerRTT: []result.PerRTTSample{{Flow: 1}},
		Series: &result.Series{}, QueuePorts: []result.Port{{Node: 1}}}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.Token() // {
	var keys []string
	for dec.More() {
		k, _ := dec.Token()
		keys = append(keys, k.(string))
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"scenario", "cc", "seed", "fct", "rtt", "rtt_per_rtt", "pfc", "bytes", "drops", "link_losses",
		"ecn_marked", "jain_goodput", "events", "wall_seconds", "events_per_second", "sim_end_ns", "congestion",
		"latency", "losses", "goodput"}
	if !slices.Equal(keys, want) {
		t.Errorf("summary.json keys %v, want %v", keys, want)
	}
	// read back (as report and experiment do)
	var back result.Result
	if err := json.Unmarshal(b, &back); err != nil || back.Seed != 3 || back.RTTPerRTT == nil || back.RTTPerRTT.Samples != 1 {
		t.Errorf("read back: %+v, %v", back, err)
	}
}
