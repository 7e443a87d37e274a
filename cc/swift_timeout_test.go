package cc_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/sim"
)

// swiftTimeouts wraps Swift and records its window around each timeout.
type swiftTimeouts struct {
	fabric.Algorithm
	before, after *[]float64
	cnt           *[]int
}

func (w *swiftTimeouts) OnTimeout(q *fabric.QP, now sim.Time) {
	s := w.Algorithm.(*cc.Swift)
	*w.before = append(*w.before, s.Cwnd)
	s.OnTimeout(q, now)
	*w.after = append(*w.after, s.Cwnd)
	*w.cnt = append(*w.cnt, s.RetransmitCnt)
}

// End to end: on lossy links (2 % and 5 % of the packets lost on two
// senders' links) go-back-N NACKs repair most losses, but a lost NACK or a
// lost tail leaves a flow to the fabric's RTO, which reaches Swift's
// timeout branch (13 timeouts with seed 1, each the first of its run: an
// ACK came in between): each halves the window unless it was cut less than
// an RTT ago; a third consecutive one would set min_cwnd (TestSwiftTimeout
// covers that branch). All flows complete.
func TestSwiftScenarioTimeouts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lossy.txt")
	topo := "6 1 5\n5\n0 5 100Gbps 1000ns 0.02\n1 5 100Gbps 1000ns 0\n2 5 100Gbps 1000ns 0.05\n3 5 100Gbps 1000ns 0\n4 5 100Gbps 1000ns 0\n"
	if err := os.WriteFile(path, []byte(topo), 0o644); err != nil {
		t.Fatal(err)
	}
	src := `
name: swift-timeouts
stop_ms: 200
cc: [swift]
topology: {kind: ns3, file: ` + path + `}
switch: {buffer_mib: 32}
host: {payload_bytes: 1000, rto_us: 300}
workload:
  incast: {senders: [0, 1, 2, 3], receiver: 4, sizes_bytes: [2000000]}
`
	var before, after []float64
	var cnt []int
	r := runWrappedScenario(t, src, "swift", func(q *fabric.QP, a fabric.Algorithm) fabric.Algorithm {
		return &swiftTimeouts{Algorithm: a, before: &before, after: &after, cnt: &cnt}
	})
	min := cc.SwiftDefaults().MinCwnd
	t.Logf("%d timeouts (retransmit_cnt %v, cwnd before %.3g, after %.3g); drops %d; last FCT %.1f µs", len(cnt), cnt, before, after, r.Drops, r.Summary.FinishTimeUs)
	if len(cnt) == 0 {
		t.Fatal("no retransmission timeout reached Swift")
	}
	for k := range cnt {
		b, a := before[k], after[k]
		switch {
		case cnt[k] >= 3:
			if a != min {
				t.Errorf("timeout %d (retransmit_cnt %d): cwnd %v → %v, want min_cwnd", k, cnt[k], b, a)
			}
		case a != b && a != max(b*0.5, min):
			t.Errorf("timeout %d (retransmit_cnt %d): cwnd %v → %v, want unchanged or halved", k, cnt[k], b, a)
		}
	}
}
