//go:build unix

package env

import "syscall"

// processCPU returns the user+system CPU time of the process in ns: on a
// shared machine a benchmark's wall time per op overstates its cost, its
// CPU time per op does not (ml/rl does the same).
func processCPU() int64 {
	var u syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &u) != nil {
		return 0
	}
	return u.Utime.Nano() + u.Stime.Nano()
}
