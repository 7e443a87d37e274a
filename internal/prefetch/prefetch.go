// Package prefetch issues software prefetches: a hint to the CPU to start
// loading a cache line that the caller will read soon, without waiting for
// it. The simulator's hot path knows several events ahead which packet it
// will touch (the next packet of a queue, the packet of a later arrival in
// the same lane); on runs whose packets outgrow the caches a plain load
// there would stall the core until the line arrives (a profile of paper
// 002's cross-DC web-search run put 48 % of the run on two such loads),
// whereas a prefetch retires at once and the load overlaps with the work
// in between.
//
// Go has no public prefetch intrinsic, so T0 is one instruction of
// assembly on amd64 (PREFETCHT0) and arm64 (PRFM PLDL1KEEP) and does
// nothing elsewhere. It never faults and changes no state a program can
// observe: results are identical with or without it.
package prefetch
