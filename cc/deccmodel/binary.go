package deccmodel

import (
	_ "embed"
	"fmt"
	"os"
	"sync"

	"github.com/ccsim/ccsim/ml/compress"
	"github.com/ccsim/ccsim/ml/nn"
)

// File names of DECC's students (what train/deccpost writes and this
// package embeds; docs/algorithms/decc.md §11).
const (
	BinaryFile = "binary.bin"    // the pruned, 4-bit network (ml/compress packed format)
	TreesFile  = "trees.json"    // the distilled oblivious trees (ml/gbdt CatBoost JSON)
	ReportFile = "students.json" // how they were made and their fidelity (deccpost.Report)
)

// The embedded students. On this branch they are derived from a seeded
// random teacher (train/deccpost/testdata), not from a trained one: they
// only exercise the senders. `go test ./train/deccpost -run
// TestShippedStudents -rebuild -write` regenerates them from the embedded
// teacher (docs/algorithms/decc.md §11).
var (
	//go:embed binary.bin
	binaryBin []byte
	//go:embed trees.json
	treesJSON []byte
	//go:embed students.json
	studentsJSON []byte
)

// ShippedStudentBytes returns copies of the embedded files: the packed
// network, the trees and the report.
func ShippedStudentBytes() (binary, trees, report []byte) {
	return append([]byte(nil), binaryBin...), append([]byte(nil), treesJSON...), append([]byte(nil), studentsJSON...)
}

// DecodeBinary decodes a packed compressed actor (docs/compress.md §5) and
// checks that it has the teacher actor's shape. It returns the packed model
// and its dequantised float network, whose outputs equal the packed
// inference's bit for bit (docs/compress.md §6) and which decc-binary runs
// because it is the faster of the two (docs/algorithms/decc.md §11).
func DecodeBinary(b []byte) (*compress.PackedModel, *nn.Sequential, error) {
	pm, err := compress.DecodePacked(b)
	if err != nil {
		return nil, nil, fmt.Errorf("DECC compressed actor: %w", err)
	}
	m, err := pm.Dequantize()
	if err != nil {
		return nil, nil, fmt.Errorf("DECC compressed actor: %w", err)
	}
	// the shape check of the teacher's files: through the nn format, which
	// compares every layer's kind, options and sizes
	enc, err := nn.Encode(m, "")
	if err == nil {
		_, _, err = DecodeActor(enc)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("DECC compressed actor: %w", err)
	}
	return pm, m, nil
}

// LoadBinaryFile reads a packed compressed actor; errors name the path.
func LoadBinaryFile(path string) (*compress.PackedModel, *nn.Sequential, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	pm, m, err := DecodeBinary(b)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return pm, m, nil
}

var shippedBinary struct {
	once sync.Once
	pm   *compress.PackedModel
	m    *nn.Sequential
	err  error
}

// ShippedBinary returns the embedded compressed actor, decoded once: the
// packed model and its dequantised network (shared, read only: give each
// user its own workspace).
func ShippedBinary() (*compress.PackedModel, *nn.Sequential, error) {
	s := &shippedBinary
	s.once.Do(func() { s.pm, s.m, s.err = DecodeBinary(binaryBin) })
	return s.pm, s.m, s.err
}
