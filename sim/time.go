// Package sim is the discrete-event kernel of ccsim: integer time, a value-type
// event queue ordered by (time, insertion sequence), and named random streams.
//
// The kernel knows nothing about networks. The fabric package owns the event
// loop and dispatches on the event kind with a switch, so the hot path has no
// interface calls and no allocation.
package sim

import (
	"fmt"
	"math/bits"
)

// Time is simulated time in picoseconds. An int64 covers ±106 days.
type Time int64

// Units of Time.
const (
	Picosecond  Time = 1
	Nanosecond  Time = 1000
	Microsecond Time = 1000 * Nanosecond
	Millisecond Time = 1000 * Microsecond
	Second      Time = 1000 * Millisecond
	// Never is a time later than any event; used for "no deadline".
	Never Time = 1<<63 - 1
)

// Nanoseconds returns t in (fractional) nanoseconds.
func (t Time) Nanoseconds() float64 { return float64(t) / float64(Nanosecond) }

// Microseconds returns t in (fractional) microseconds.
func (t Time) Microseconds() float64 { return float64(t) / float64(Microsecond) }

// Seconds returns t in (fractional) seconds.
func (t Time) Seconds() float64 { return float64(t) / float64(Second) }

// String formats t with a unit chosen for readability.
func (t Time) String() string {
	switch {
	case t == Never:
		return "never"
	case t%Second == 0 && t != 0:
		return fmt.Sprintf("%ds", t/Second)
	case t >= Millisecond || t <= -Millisecond:
		return fmt.Sprintf("%.6gms", float64(t)/float64(Millisecond))
	case t >= Microsecond || t <= -Microsecond:
		return fmt.Sprintf("%.6gus", float64(t)/float64(Microsecond))
	default:
		return fmt.Sprintf("%.6gns", float64(t)/float64(Nanosecond))
	}
}

// TxTime is the exact serialization time of n bytes at bps bits per second,
// rounded down to a picosecond. It is exact for every rate that divides
// 8e12 (all multiples of 1 Gb/s up to 8 Tb/s that divide 8000 Gb/s, e.g. 10,
// 25, 40, 50, 100, 200, 400, 800 Gb/s). The 128-bit product never overflows.
func TxTime(n int64, bps int64) Time {
	if bps <= 0 || n <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(n)*8, uint64(Second))
	q, _ := bits.Div64(hi, lo, uint64(bps))
	return Time(q)
}

// BytesIn is the number of whole bytes that bps bits per second carry in d.
func BytesIn(d Time, bps int64) int64 {
	if d <= 0 || bps <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(d), uint64(bps))
	q, _ := bits.Div64(hi, lo, 8*uint64(Second))
	return int64(q)
}
