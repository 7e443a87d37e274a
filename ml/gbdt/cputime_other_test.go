//go:build !linux

package gbdt

// threadCPU is unavailable here (see cputime_linux_test.go).
func threadCPU() int64 { return -1 }
