package sim

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkQueueSteady models the fabric's steady state: about 60 pending
// events; each step consumes the earliest and schedules one 80 ns–1.1 µs
// later (a transmit completion or a link arrival).
func BenchmarkQueueSteady(b *testing.B) {
	var q Queue
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 60; i++ {
		q.Push(Time(r.IntN(1100_000)), 0, int32(i), 0)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e := q.Take()
		q.Push(e.At+80_000+Time(r.IntN(1_020_000)), 0, e.Idx, 0)
		q.Done()
	}
}

// BenchmarkQueueLanes is the same with arrivals and completions on lanes
// (four recurring delays) and one event in four at an arbitrary time.
func BenchmarkQueueLanes(b *testing.B) {
	var q Queue
	r := rand.New(rand.NewPCG(1, 2))
	delays := []Time{83_840, 1_083_840, 1_004_800, 4_800}
	for i := 0; i < 60; i++ {
		q.Push(Time(r.IntN(1100_000)), 0, int32(i), 0)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e := q.Take()
		if i&3 == 0 {
			q.Push(e.At+80_000+Time(r.IntN(1_020_000)), 0, e.Idx, 0)
		} else {
			q.PushDelay(e.At, delays[i&3], 0, e.Idx, 0)
		}
		q.Done()
	}
}
