package topo

import (
	"errors"
	"io"
	"testing"

	"github.com/ccsim/ccsim/internal/lineio"
)

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// A topology "file" without line ends (/dev/zero) is an error after at
// most lineio.MaxLine bytes, not an endless read (issue 19 §3.9).
func TestReadNS3EndlessLine(t *testing.T) {
	_, err := ReadNS3(io.LimitReader(zeros{}, 8*lineio.MaxLine))
	if !errors.Is(err, lineio.ErrLong) {
		t.Fatalf("err = %v, want lineio.ErrLong", err)
	}
}
