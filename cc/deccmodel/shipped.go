package deccmodel

import (
	_ "embed"
	"sync"

	"github.com/ccsim/ccsim/ml/nn"
)

// TeacherFile is the shipped teacher's file name (what `ccsim train decc`
// writes; docs/algorithms/decc.md §10).
const TeacherFile = "teacher.bin"

// teacherBin is the shipped teacher actor, trained by `ccsim train decc`
// with the default configuration and seed; `go test ./train/decc -run
// TestShippedTeacher -rebuild` retrains it and compares the bytes.
//
//go:embed teacher.bin
var teacherBin []byte

// ShippedTeacherBytes returns a copy of the embedded teacher file.
func ShippedTeacherBytes() []byte { return append([]byte(nil), teacherBin...) }

var shipped struct {
	once sync.Once
	m    *nn.Sequential
	meta string
	err  error
}

// Shipped returns the embedded teacher actor and its meta text, decoded
// once. The network is shared: callers give each user its own workspace
// (nn.Sequential.NewWorkspace) or a clone, and never train it.
func Shipped() (*nn.Sequential, string, error) {
	shipped.once.Do(func() { shipped.m, shipped.meta, shipped.err = DecodeActor(teacherBin) })
	return shipped.m, shipped.meta, shipped.err
}
