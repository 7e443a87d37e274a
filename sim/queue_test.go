package sim

import (
	"math/rand/v2"
	"sort"
	"testing"
)

// TestQueueOrder checks that events come out ordered by (time, insertion
// sequence) under a random mix of Push, Pop and Take/Push/Done.
func TestQueueOrder(t *testing.T) {
	for seed := uint64(0); seed < 30; seed++ {
		queueOrder(t, seed, []Time{0, 3, 7, 7, 20, 49})
	}
}

// TestQueueOrderManyLanes uses up to 100 distinct delays: more sources than
// the linear scan handles (the heap of lanes), and more delays than lanes
// (the overflow into the general heap).
func TestQueueOrderManyLanes(t *testing.T) {
	delays := make([]Time, 100)
	for i := range delays {
		delays[i] = Time(i * 5 / 4)
	}
	for seed := uint64(0); seed < 30; seed++ {
		queueOrder(t, seed, delays)
		queueOrder(t, seed, delays[:10]) // 12 sources: the largest scan
		queueOrder(t, seed, delays[:12]) // 14 sources: the heap, no overflow
	}
}

func queueOrder(t *testing.T, seed uint64, delays []Time) {
	queueOrderTimers(t, seed, delays, 5)
}

// TestQueueOrderManyTimers arms up to 80 keyed timers: beyond the sorted
// ring's capacity (32), so the timers move into the heap.
func TestQueueOrderManyTimers(t *testing.T) {
	heaps := 0
	for seed := uint64(0); seed < 30; seed++ {
		if queueOrderTimers(t, seed, []Time{0, 3, 7, 20}, 80) {
			heaps++
		}
		queueOrderTimers(t, seed, []Time{0, 3, 7, 20}, 33)
	}
	if heaps == 0 {
		t.Fatal("no run armed more timers than the ring holds")
	}
}

// queueOrderTimers reports whether the keyed timers ended up in the heap.
func queueOrderTimers(t *testing.T, seed uint64, delays []Time, timers int) (heap bool) {
	r := rand.New(rand.NewPCG(7, seed))
	var q Queue
	type ev struct {
		at  Time
		seq uint64
	}
	var want []ev
	var got []ev
	seq := uint64(0)
	now := Time(0)
	// keyed timers: the live expiry of each id must come out once
	timerLive := map[int32]ev{}
	push := func() {
		seq++
		var at Time
		if r.IntN(16) == 0 {
			// cancel a live keyed timer
			id := int32(r.IntN(timers))
			if old, ok := timerLive[id]; ok {
				for i := range want {
					if want[i] == old {
						want = append(want[:i], want[i+1:]...)
						break
					}
				}
				delete(timerLive, id)
			}
			q.CancelTimer(id)
			return
		}
		if r.IntN(4) == 0 {
			id := int32(r.IntN(timers))
			at = now + Time(r.IntN(50))
			if old, ok := timerLive[id]; ok {
				// the old expiry is replaced: drop it from want
				for i := range want {
					if want[i] == old {
						want = append(want[:i], want[i+1:]...)
						break
					}
				}
			}
			q.SetTimer(id, at, 2, uint32(seq))
			timerLive[id] = ev{at, seq}
			want = append(want, ev{at, seq})
			return
		}
		if r.IntN(2) == 0 {
			at = now + Time(r.IntN(50)) // many ties
			q.Push(at, 1, int32(seq), 0)
		} else {
			d := delays[r.IntN(len(delays))]
			at = now + d
			q.PushDelay(now, d, 1, int32(seq), 0)
		}
		want = append(want, ev{at, seq})
	}
	for i := 0; i < 100; i++ {
		push()
	}
	for step := 0; step < 20000; step++ {
		for q.Len() == 0 {
			push()
		}
		var e Event
		if r.IntN(2) == 0 {
			e = q.Pop()
			if e.Kind() == 2 {
				delete(timerLive, e.Idx)
			}
		} else {
			e = q.Take()
			if e.Kind() == 2 {
				delete(timerLive, e.Idx)
			}
			for k := r.IntN(3); k > 0; k-- {
				now = e.At
				push()
			}
			q.Done()
		}
		if e.At < now {
			t.Fatalf("time went back: %v < %v", e.At, now)
		}
		now = e.At
		got = append(got, ev{e.At, idOf(e)})
		if r.IntN(3) == 0 {
			push()
		}
	}
	heap = q.tm.heap
	for q.Len() > 0 {
		e := q.Pop()
		got = append(got, ev{e.At, idOf(e)})
	}
	sort.Slice(want, func(i, j int) bool {
		return want[i].at < want[j].at || (want[i].at == want[j].at && want[i].seq < want[j].seq)
	})
	if len(got) != len(want) {
		t.Fatalf("got %d events, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("event %d: got %+v want %+v", i, got[i], want[i])
		}
	}
	return heap
}

// idOf recovers the test's sequence number from an event: Idx for pushed
// events, Arg for keyed timers (whose Idx is the timer id).
func idOf(e Event) uint64 {
	if e.Kind() == 2 {
		return uint64(e.Arg)
	}
	return uint64(e.Idx)
}

func TestTimerGeneration(t *testing.T) {
	var tm Timer
	if _, ok := tm.Armed(); ok {
		t.Fatal("zero timer armed")
	}
	g1 := tm.Arm(10)
	g2 := tm.Arm(20)
	if tm.Fires(g1) {
		t.Fatal("stale generation fired")
	}
	if at, ok := tm.Armed(); !ok || at != 20 {
		t.Fatalf("armed = %v %v", at, ok)
	}
	if !tm.Fires(g2) {
		t.Fatal("live generation did not fire")
	}
	if tm.Fires(g2) {
		t.Fatal("fired twice")
	}
	g3 := tm.Arm(30)
	tm.Cancel()
	if tm.Fires(g3) {
		t.Fatal("cancelled timer fired")
	}
}

func TestTxTime(t *testing.T) {
	cases := []struct {
		n    int64
		bps  int64
		want Time
	}{
		{1048, 100e9, 83840},
		{1000, 100e9, 80000},
		{60, 100e9, 4800},
		{43, 400e9, 860},
		{1090, 40e9, 218000},
		{1, 3e9, 2666}, // 2666.67 ps rounded down
	}
	for _, c := range cases {
		if got := TxTime(c.n, c.bps); got != c.want {
			t.Errorf("TxTime(%d, %d) = %d, want %d", c.n, c.bps, got, c.want)
		}
	}
	if got := BytesIn(Microsecond, 100e9); got != 12500 {
		t.Errorf("BytesIn(1us, 100G) = %d", got)
	}
}

func TestStreamIndependence(t *testing.T) {
	a1 := Stream(1, "a").Uint64()
	a2 := Stream(1, "a").Uint64()
	b := Stream(1, "b").Uint64()
	c := Stream(2, "a").Uint64()
	if a1 != a2 {
		t.Fatal("same seed and name differ")
	}
	if a1 == b || a1 == c {
		t.Fatal("different names or seeds collide")
	}
}

// TestAhead: Ahead(k) is the event k places behind the taken one in its
// lane — exactly the event that lane gives k takes later when nothing
// else runs in between — and nothing when the lane is shorter, for a
// heap event, or before a Take.
func TestAhead(t *testing.T) {
	var q Queue
	if _, ok := q.Ahead(1); ok {
		t.Fatal("Ahead before any Take")
	}
	for i := range 10 {
		q.PushDelay(0, 5, 1, int32(i), 0)
	}
	q.Push(100, 2, 99, 0) // a heap event, after the lane's
	e, _ := q.Next()
	for k := range 12 {
		f, ok := q.Ahead(k)
		if want := k < 10-int(e.Idx); ok != want || (ok && f.Idx != e.Idx+int32(k)) {
			t.Fatalf("Ahead(%d) at event %d: %v %v", k, e.Idx, f, ok)
		}
	}
	for i := 1; i < 10; i++ {
		want, _ := q.Ahead(1)
		w := *want
		e, _ = q.Next()
		if e != w {
			t.Fatalf("event %d: Ahead(1) said %v, Next gave %v", i, w, e)
		}
	}
	e, _ = q.Next()
	if e.Idx != 99 {
		t.Fatalf("the heap event: %v", e)
	}
	if _, ok := q.Ahead(1); ok {
		t.Fatal("Ahead of a heap event")
	}
}
