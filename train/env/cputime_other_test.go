//go:build !unix

package env

func processCPU() int64 { return 0 }
