package gbdt

import "syscall"

// threadCPU returns the calling thread's CPU time in nanoseconds (user +
// system), or -1 when unavailable. Benchmarks lock their goroutine to one
// thread and report CPU ns/op beside wall ns/op, because on a machine shared
// with other work the wall time also counts the time the thread waited for
// a core.
func threadCPU() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru) != nil {
		return -1
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
