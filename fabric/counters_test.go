package fabric_test

import (
	"testing"

	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/sim"
	"github.com/ccsim/ccsim/topo"
	"github.com/ccsim/ccsim/workload"
)

func TestQPRateCuts(t *testing.T) {
	q := &fabric.QP{LineRateBps: 100, RateBps: 100}
	for _, c := range []struct {
		set  int64
		want int64
	}{{100, 0}, {50, 1}, {80, 1}, {80, 1}, {200, 1}, {10, 2}, {0, 3}} {
		q.SetRate(c.set)
		if q.RateCuts != c.want {
			t.Fatalf("after SetRate(%d): RateCuts = %d, want %d", c.set, q.RateCuts, c.want)
		}
	}
}

// Per-port payload counters: the host ports put exactly the network's data
// bytes on the wire, and the switch port to the receiver carries what was
// delivered; every port's wire bytes cover its payload.
func TestPortPayloadCounters(t *testing.T) {
	flows := workload.Incast([]int{0, 1, 2}, 3, []int64{300_000}, 0, 3)
	n := buildCC(t, topo.Star(4, 100e9, sim.Microsecond), fabric.DefaultConfig(), flows, "dcqcn")
	n.Run()
	var hostPayload int64
	for i := range n.Ports {
		p := &n.Ports[i]
		if p.Stats.TxPayloadBytes > p.Stats.TxBytes {
			t.Errorf("port %d: payload %d > wire %d", i, p.Stats.TxPayloadBytes, p.Stats.TxBytes)
		}
		if !n.Nodes[p.Node].Switch {
			hostPayload += p.Stats.TxPayloadBytes
		}
	}
	if hostPayload != n.Stats.DataTxBytes {
		t.Errorf("host ports sent %d payload bytes, network counted %d", hostPayload, n.Stats.DataTxBytes)
	}
	toRecv := &n.Ports[n.Ports[n.Nodes[3].FirstPort].Peer]
	if toRecv.Stats.TxPayloadBytes != n.Stats.DataRxBytes || n.Stats.DataRxBytes != 900_000 {
		t.Errorf("switch→receiver payload %d, delivered %d, want 900000", toRecv.Stats.TxPayloadBytes, n.Stats.DataRxBytes)
	}
}
