package assemble_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/scenario/assemble"
)

// awaitAckYAML: 200 one-packet flows from host 0 to host 1 across a switch
// (PFC on: a lossless fabric, so no retransmission timeout unless
// host.rto_us says so); host 1's link loses 20 % of the packets in each
// direction (its data one way, its ACKs the other). Each flow loses its
// data packet, or its ACK, or nothing.
func awaitAckYAML(t *testing.T, host string) string {
	dir := t.TempDir()
	topo := filepath.Join(dir, "topo.txt")
	if err := os.WriteFile(topo, []byte("3 1 2\n2\n0 2 100Gbps 1000ns 0\n1 2 100Gbps 1000ns 0.2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var flows []string
	for i := range 200 {
		flows = append(flows, fmt.Sprintf("{src: 0, dst: 1, size_bytes: 1000, start_ns: %d}", i*1000))
	}
	return fmt.Sprintf("name: await-ack\nstop_ms: 5\ncc: [none]\ntopology: {kind: ns3, file: %q}\nhost: {payload_bytes: 1000%s}\nworkload: {flows: [%s]}\n",
		topo, host, strings.Join(flows, ", "))
}

// TestFlowsAwaitingAck: a flow whose data arrived but whose one ACK was
// lost stays unfinished in a lossless fabric; summary.json's
// losses.flows_awaiting_ack counts exactly those (docs/metrics.md §17).
// Each unfinished flow lost exactly one packet: its data (counted in
// flows_with_loss) or its ACK (awaiting), so unfinished = awaiting +
// flows with loss = link losses. A retransmission timeout alone does not
// help the awaiting flows (the resent packet is a duplicate, which the
// reference's receiver discards without an ACK); with host.ack_duplicates
// as well every flow finishes, and the field is absent from summary.json.
func TestFlowsAwaitingAck(t *testing.T) {
	b, err := assemble.Build(mustParse(t, awaitAckYAML(t, "")), "none", assemble.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := b.Run()
	l, f := r.Losses, r.Summary
	t.Logf("unfinished %d, awaiting ACK %d, data lost %d, link losses %d", f.Unfinished, l.FlowsAwaitingAck, l.FlowsWithLoss, r.LinkLosses)
	if l.FlowsAwaitingAck == 0 || l.FlowsWithLoss == 0 {
		t.Fatalf("want both kinds of stalled flow: awaiting %d, data lost %d", l.FlowsAwaitingAck, l.FlowsWithLoss)
	}
	if l.FlowsAwaitingAck+l.FlowsWithLoss != f.Unfinished || int64(f.Unfinished) != r.LinkLosses {
		t.Errorf("awaiting %d + data lost %d, unfinished %d, link losses %d: want awaiting + data lost = unfinished = link losses",
			l.FlowsAwaitingAck, l.FlowsWithLoss, f.Unfinished, r.LinkLosses)
	}
	if r.Bytes.InFlight != 0 || l.CtrlPackets != int64(l.FlowsAwaitingAck) {
		t.Errorf("in flight %d B, control drops %d: want 0 and one lost ACK per awaiting flow", r.Bytes.InFlight, l.CtrlPackets)
	}
	dir := filepath.Join(t.TempDir(), "run")
	if err := r.Write(dir); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Losses map[string]int64 `json:"losses"`
	}
	js, _ := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err := json.Unmarshal(js, &back); err != nil || back.Losses["flows_awaiting_ack"] != int64(l.FlowsAwaitingAck) {
		t.Errorf("summary.json losses %v (%v), want flows_awaiting_ack %d", back.Losses, err, l.FlowsAwaitingAck)
	}

	b, err = assemble.Build(mustParse(t, awaitAckYAML(t, ", rto_us: 100")), "none", assemble.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r = b.Run()
	if r.Losses.FlowsAwaitingAck == 0 || r.Losses.FlowsAwaitingAck != r.Summary.Unfinished {
		t.Errorf("rto_us alone: awaiting %d of %d unfinished: want every unfinished flow stalled on a lost last ACK (the timeout repairs lost data, not the ACK)",
			r.Losses.FlowsAwaitingAck, r.Summary.Unfinished)
	}
	b, err = assemble.Build(mustParse(t, awaitAckYAML(t, ", rto_us: 100, ack_duplicates: true")), "none", assemble.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r = b.Run()
	if r.Summary.Unfinished != 0 || r.Losses.FlowsAwaitingAck != 0 || r.LinkLosses == 0 {
		t.Errorf("with rto_us and ack_duplicates: unfinished %d, awaiting %d, link losses %d: want every flow finished despite losses",
			r.Summary.Unfinished, r.Losses.FlowsAwaitingAck, r.LinkLosses)
	}
	dir = filepath.Join(t.TempDir(), "run2")
	if err := r.Write(dir); err != nil {
		t.Fatal(err)
	}
	if js, _ := os.ReadFile(filepath.Join(dir, "summary.json")); strings.Contains(string(js), "flows_awaiting_ack") {
		t.Errorf("summary.json names flows_awaiting_ack when it is 0")
	}
}
