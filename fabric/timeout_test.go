package fabric

import (
	"testing"

	"github.com/ccsim/ccsim/sim"
	"github.com/ccsim/ccsim/workload"
)

// timeoutRec is an algorithm with a timeout reaction: it records each
// OnTimeout call with the sender's state at that moment.
type timeoutRec struct {
	noCC
	at             []sim.Time
	sndNxt, sndUna []int64
}

func (r *timeoutRec) OnTimeout(q *QP, now sim.Time) {
	r.at = append(r.at, now)
	r.sndNxt = append(r.sndNxt, q.SndNxt)
	r.sndUna = append(r.sndUna, q.SndUna)
}

// TestTimeoutAlgorithmCalled: the last packet of a 200-packet flow over
// chain() is dropped three times. Each RTO (100 µs after the last ACK
// progress, then 100 µs after the previous timeout) calls OnTimeout once,
// after go-back-N rewound SndNxt to SndUna = 199000 and before the resend;
// the fourth transmission completes the flow (see TestTailLossRTO for the
// timing). An algorithm without OnTimeout is not called (noCC, the other
// tests).
func TestTimeoutAlgorithmCalled(t *testing.T) {
	T, A, d := sim.TxTime(1048, 100e9), sim.TxTime(60, 100e9), sim.Microsecond
	rto := 100 * sim.Microsecond
	cfg := DefaultConfig()
	cfg.RTO = rto
	rec := &timeoutRec{}
	n := buildNet(t, chain(), cfg, []workload.Flow{{Src: 0, Dst: 1, Prio: 3, SizeBytes: 200_000}},
		func(*QP) Algorithm { return rec })
	li := &lossInjector{qp: 0, seq: 199_000, times: 3, to: 3}
	n.AddFeature(2, li)
	n.SetStop(sim.Second)
	n.Run()
	q := &n.QPs[0]
	if !q.Done || n.Stats.Timeouts != 3 || len(li.at) != 3 {
		t.Fatalf("done %v, timeouts %d, losses %d; want done, 3, 3", q.Done, n.Stats.Timeouts, len(li.at))
	}
	if _, ok := q.CC.(TimeoutAlgorithm); !ok || q.tmo == nil {
		t.Fatal("the QP did not pick up the algorithm's OnTimeout")
	}
	last := q.Start + 201*T + 6*d + 3*A // ACK of packet 198: the last progress
	if len(rec.at) != 3 {
		t.Fatalf("OnTimeout called %d times, want 3", len(rec.at))
	}
	for k := range rec.at {
		if want := last + sim.Time(k+1)*rto; rec.at[k] != want {
			t.Errorf("timeout %d at %d ps, want %d ps", k+1, rec.at[k], want)
		}
		if rec.sndNxt[k] != 199_000 || rec.sndUna[k] != 199_000 {
			t.Errorf("timeout %d: SndNxt %d SndUna %d, want both 199000 (rewound before the call)", k+1, rec.sndNxt[k], rec.sndUna[k])
		}
	}
	if want := last + 3*rto + 3*T + 6*d + 3*A; q.Finish != want {
		t.Errorf("finish %d ps, want %d ps", q.Finish, want)
	}
}
