//go:build amd64 || arm64

package prefetch

import "unsafe"

// T0 hints that the cache line holding p will be read soon (into all cache
// levels). It does not read *p and cannot fault.
//
//go:noescape
func T0(p unsafe.Pointer)
