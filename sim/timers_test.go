package sim

import (
	"math/rand/v2"
	"testing"
)

// TestTimerHeapModel drives the keyed timers (sorted ring, then heap) with
// random arms, re-arms, cancels and pops, against a map of the live
// expiries: every pop must return the earliest live timer, and armed must
// agree with the model throughout.
func TestTimerHeapModel(t *testing.T) {
	for seed := uint64(0); seed < 40; seed++ {
		r := rand.New(rand.NewPCG(3, seed))
		var th timerHeap
		live := map[int32]Event{}
		seq := uint64(0)
		ids := 10 + r.IntN(60) // some runs stay in the ring, some overflow it
		for step := 0; step < 3000; step++ {
			switch op := r.IntN(10); {
			case op < 5: // arm or re-arm
				id := int32(r.IntN(ids))
				seq++
				e := Event{At: Time(r.IntN(200)), key: seq << 8, Idx: id}
				th.arm(e)
				live[id] = e
			case op < 6: // cancel
				id := int32(r.IntN(ids))
				_, want := live[id]
				if got := th.cancel(id); got != want {
					t.Fatalf("seed %d: cancel(%d) = %v, want %v", seed, id, got, want)
				}
				delete(live, id)
			case op < 8 && th.size() > 0: // re-arm the earliest later
				top := *th.top()
				seq++
				e := Event{At: top.At + Time(r.IntN(100)), key: seq << 8, Idx: top.Idx}
				th.replaceTop(e)
				live[top.Idx] = e
			default: // pop
				if th.size() == 0 {
					continue
				}
				top := *th.top()
				for _, e := range live {
					if e.before(&top) {
						t.Fatalf("seed %d step %d: top %+v but %+v is earlier", seed, step, top, e)
					}
				}
				if live[top.Idx] != top {
					t.Fatalf("seed %d: top %+v is not timer %d's live expiry %+v", seed, top, top.Idx, live[top.Idx])
				}
				th.pop()
				delete(live, top.Idx)
			}
			if th.size() != len(live) {
				t.Fatalf("seed %d step %d: size %d, want %d", seed, step, th.size(), len(live))
			}
			for id := int32(0); id < int32(ids); id++ {
				at, ok := th.armed(id)
				e, want := live[id]
				if ok != want || (ok && at != e.At) {
					t.Fatalf("seed %d step %d: armed(%d) = %v %v, want %v %v", seed, step, id, at, ok, e.At, want)
				}
			}
		}
	}
}
