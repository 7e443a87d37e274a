package cc

import (
	"fmt"

	"github.com/ccsim/ccsim/sim"
)

// Unit conversions and validation errors shared by the algorithms: one
// home, so that every parameter is converted and reported the same way.

// usToTime converts a parameter in µs to simulated time, rounded to the
// nearest picosecond.
func usToTime(us float64) sim.Time { return sim.Time(us*float64(sim.Microsecond) + 0.5) }

// mbpsToBps converts a rate parameter in Mb/s to b/s (truncated).
func mbpsToBps(mbps float64) int64 { return int64(mbps * 1e6) }

// longAgo is a time far enough in the past that now − longAgo exceeds every
// interval, without overflowing: the "never happened" value of per-flow
// and per-port last-event tables.
const longAgo = -sim.Never / 2

// rangeErr formats the project's standard out-of-range error.
func rangeErr(field string, v any, lo, hi string) error {
	return fmt.Errorf("%s = %v out of range [%s, %s]", field, v, lo, hi)
}

// rangeErrS formats the error of a string field with a fixed set of values.
func rangeErrS(field, v, allowed string) error {
	return fmt.Errorf("%s = %q: allowed values %s", field, v, allowed)
}
