package assemble_test

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/scenario/assemble"
)

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func atoi(t *testing.T, s string) int64 {
	t.Helper()
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// The binned series account for every byte: flow rates per sender sum to
// the senders' sizes, the receiver link's payload to the delivered bytes,
// its wire bytes to the port counter, the PFC bins to the pause frames.
func TestSeriesConserveBytes(t *testing.T) {
	s, err := scenario.Parse([]byte(`
name: series
cc: [dcqcn]
topology: {kind: star, hosts: 9, host_links: [{hosts: [8], gbps: 25}]}
switch: {buffer_mib: 1}
workload:
  incast: {senders: [0, 1, 2, 3, 4, 5, 6, 7], receiver: 8, sizes_bytes: [200000, 100000, 100000, 100000, 100000, 100000, 100000, 37001], qps_per_sender: 3}
outputs:
  series: {bin_us: 20, flow_rate: src, link_ports: [{node: 9, port: 8}], queue_ports: [{node: 9, port: 8}], ingress_ports: [{node: 9, port: 0}], pfc: true}
`))
	if err != nil {
		t.Fatal(err)
	}
	b, err := assemble.Build(s, "dcqcn", assemble.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := b.Run()
	dir := t.TempDir()
	if err := r.Write(dir); err != nil {
		t.Fatal(err)
	}
	if r.Summary.Finished != 24 {
		t.Fatalf("%d of 24 flows finished", r.Summary.Finished)
	}
	per := map[int64]int64{}
	rows := readCSV(t, filepath.Join(dir, "flow_rate.csv"))
	if got := rows[0]; got[2] != "src" || got[3] != "bytes" {
		t.Fatalf("flow_rate.csv header %v", got)
	}
	for _, row := range rows[1:] {
		per[atoi(t, row[2])] += atoi(t, row[3])
	}
	want := map[int64]int64{0: 200000, 1: 100000, 2: 100000, 3: 100000, 4: 100000, 5: 100000, 6: 100000, 7: 37001}
	for k, v := range want {
		if per[k] != v {
			t.Errorf("flow_rate.csv: sender %d delivered %d bytes in its bins, want %d", k, per[k], v)
		}
	}
	var wire, pay int64
	for _, row := range readCSV(t, filepath.Join(dir, "link_rate.csv"))[1:] {
		wire += atoi(t, row[4])
		pay += atoi(t, row[5])
	}
	port := &b.Net.Ports[b.Net.Nodes[9].FirstPort+8]
	if wire != port.Stats.TxBytes || pay != port.Stats.TxPayloadBytes || pay != 837001 {
		t.Errorf("link_rate.csv: wire %d payload %d; port counters %d / %d; delivered 837001", wire, pay, port.Stats.TxBytes, port.Stats.TxPayloadBytes)
	}
	var maxQ, maxIn int64
	for _, row := range readCSV(t, filepath.Join(dir, "queue_series.csv"))[1:] {
		lo, hi := atoi(t, row[5]), atoi(t, row[7])
		mean, _ := strconv.ParseFloat(row[6], 64)
		if !(float64(lo) <= mean && mean <= float64(hi)) {
			t.Errorf("queue_series.csv row %v: mean outside [min, max]", row)
		}
		switch {
		case row[1] == "9" && row[2] == "8" && row[3] == "egress":
			maxQ = max(maxQ, hi)
		case row[1] == "9" && row[2] == "0" && row[3] == "ingress":
			maxIn = max(maxIn, hi)
		default:
			t.Errorf("queue_series.csv row %v: unexpected port", row)
		}
	}
	// sender 0 sends 200 kB through ingress port 0; PFC (dynamic threshold
	// of a 1 MiB buffer) keeps what it holds well below that
	if maxIn == 0 || maxIn > 200_000 {
		t.Errorf("ingress queue of port 0 peaked at %d bytes", maxIn)
	}
	if maxQ == 0 || maxQ > port.Stats.MaxQueueBytes {
		t.Errorf("sampled max queue %d, port's maximum %d", maxQ, port.Stats.MaxQueueBytes)
	}
	var pauses int64
	for _, row := range readCSV(t, filepath.Join(dir, "pfc_bins.csv"))[1:] {
		pauses += atoi(t, row[6])
	}
	if pauses == 0 || pauses != r.PFC.PauseFrames {
		t.Errorf("pfc_bins.csv counts %d pause frames, summary %d (want equal and > 0)", pauses, r.PFC.PauseFrames)
	}
	var cnps int64
	for _, row := range readCSV(t, filepath.Join(dir, "flow_stats.csv"))[1:] {
		cnps += atoi(t, row[1])
	}
	if cnps != r.Congestion.CNPs || cnps == 0 {
		t.Errorf("flow_stats.csv CNPs %d, summary %d (want equal and > 0)", cnps, r.Congestion.CNPs)
	}
}

func TestSeriesErrors(t *testing.T) {
	base := "topology: {kind: star, hosts: 3}\nworkload: {flows: [{src: 0, dst: 1, size_bytes: 1}]}\noutputs:\n  series: "
	for _, c := range []struct{ series, want string }{
		{"{flow_rate: src}", "outputs.series.bin_us = 0 out of range [0.01, 1e+06]"},
		{"{bin_us: 10, flow_rate: host}", `outputs.series.flow_rate = "host": allowed values flow, src, dst`},
		{"{bin_us: 10, flow_rate: src, flow_rate_bin_us: 0}", "outputs.series.flow_rate_bin_us = 0 out of range"},
		{"{bin_us: 10, queue_ports: [{node: 3, port: 0}], queue_bin_us: 0}", "outputs.series.queue_bin_us = 0 out of range"},
		{"{bin_us: 10, queue_ports: [{node: 3, port: 0}], queue_sample_us: 0}", "outputs.series.queue_sample_us = 0 out of range"},
		{"{bin_us: 10, link_ports: [{node: 3, port: 9}]}", "outputs.series.link_ports[0]: node 3 port 9 does not exist"},
	} {
		dir := t.TempDir()
		path := filepath.Join(dir, "s.yaml")
		os.WriteFile(path, []byte(base+c.series+"\n"), 0o644)
		_, err := assemble.Check(path, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("series %s: error %v, want %q", c.series, err, c.want)
		}
	}
}
