package assemble_test

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/scenario/assemble"
	"github.com/ccsim/ccsim/scenario/result"
)

// lossyYAML: a 4-to-1 incast of 50 KB at line rate through a switch
// without PFC and a 64 KiB buffer: drop-tail losses and go-back-N.
const lossyYAML = `
name: lossy-incast4
stop_ms: 50
cc: [none]
topology: {kind: star, hosts: 5, link_gbps: 100, link_delay_ns: 1000}
switch: {buffer_mib: 0.0625, pfc: "off", reserve_bytes: 0, headroom_rtts: 0}
host: {rto_us: 50, nack_interval_us: 5}
workload:
  incast:
    senders: [0, 1, 2, 3]
    receiver: 4
    sizes_bytes: [50000]
`

// TestLossesSummaryAndFile: summary.json's latency, losses and goodput
// agree with flow_losses.csv, every row conserves bytes (sent = received
// + in flight + dropped), the totals equal the network-wide counters
// (bytes.dropped), and the goodput of finished flows is their size.
func TestLossesSummaryAndFile(t *testing.T) {
	b, err := assemble.Build(mustParse(t, lossyYAML), "none", assemble.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := b.Run()
	dir := filepath.Join(t.TempDir(), "run")
	if err := r.Write(dir); err != nil {
		t.Fatal(err)
	}
	js, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var back result.Result
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatal(err)
	}
	if back.Latency != r.Latency || back.Losses != r.Losses || back.Goodput != r.Goodput {
		t.Errorf("summary.json read back: %+v %+v %+v", back.Latency, back.Losses, back.Goodput)
	}
	f, err := os.Open(filepath.Join(dir, "flow_losses.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	wantHdr := "flow_id,sent_bytes,received_bytes,in_flight_bytes,dropped_bytes,data_drops,ctrl_drops,goodput_bytes,duration_ns,goodput_gbps"
	if len(rows) != 5 || strings.Join(rows[0], ",") != wantHdr {
		t.Fatalf("flow_losses.csv: %d rows, header %q", len(rows), strings.Join(rows[0], ","))
	}
	var drops, dropBytes, ctrl, good, dup int64
	for i, row := range rows[1:] {
		v := make([]int64, 8)
		for k := range v {
			if v[k], err = strconv.ParseInt(row[k], 10, 64); err != nil {
				t.Fatalf("row %d col %d: %v", i, k, err)
			}
		}
		if v[0] != int64(i) || v[1] != v[2]+v[3]+v[4] {
			t.Errorf("row %v: flow id or sent = received + in flight + dropped fails", row)
		}
		if v[7] != 50_000 || !r.Flows[i].Done {
			t.Errorf("flow %d: goodput %d B, done %v", i, v[7], r.Flows[i].Done)
		}
		fct := float64(r.Flows[i].FCT()) / 1e3 // ns
		if d, _ := strconv.ParseFloat(row[8], 64); d != fct {
			t.Errorf("flow %d: duration %v ns, FCT %v ns", i, d, fct)
		}
		if g, _ := strconv.ParseFloat(row[9], 64); g < 50_000*8/fct*(1-1e-6) || g > 50_000*8/fct*(1+1e-6) {
			t.Errorf("flow %d: goodput %v Gb/s, want 400,000 b / FCT", i, g)
		}
		drops, dropBytes, ctrl, good, dup = drops+v[5], dropBytes+v[4], ctrl+v[6], good+v[7], dup+v[2]-v[7]
	}
	l, g := r.Losses, r.Goodput
	if l.DataPackets != drops || l.DataBytes != dropBytes || l.CtrlPackets != ctrl || l.DataBytes != r.Bytes.Dropped {
		t.Errorf("losses %+v; rows %d (%d B), ctrl %d; bytes.dropped %d", l, drops, dropBytes, ctrl, r.Bytes.Dropped)
	}
	if drops == 0 || l.FlowsWithLoss == 0 || l.Unattributed != 0 {
		t.Errorf("losses %+v: the scenario should drop data and no PFC frame", l)
	}
	if g.Bytes != good || g.Bytes != 200_000 || g.DuplicateBytes != dup || g.DuplicateBytes != r.Bytes.Delivered-200_000 || g.RetransmittedBytes <= 0 {
		t.Errorf("goodput %+v; rows %d, duplicates %d; bytes %+v", g, good, dup, r.Bytes)
	}
	if r.Latency.Packets == 0 || r.Latency.P99Ns < r.Latency.P50Ns || float64(r.Latency.P99Ns) > r.Latency.MaxNs {
		t.Errorf("latency %+v", r.Latency)
	}
}
