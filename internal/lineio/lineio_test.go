package lineio

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
)

// ReadLine returns what ReadString('\n') returns for lines up to MaxLine,
// including lines longer than the reader's buffer.
func TestReadLine(t *testing.T) {
	long := strings.Repeat("x", 100_000)
	br := bufio.NewReaderSize(strings.NewReader("a b\n\n"+long+"\nlast"), 16)
	for _, want := range []string{"a b\n", "\n", long + "\n"} {
		if got, err := ReadLine(br); got != want || err != nil {
			t.Fatalf("ReadLine = %.20q, %v; want %.20q", got, err, want)
		}
	}
	if got, err := ReadLine(br); got != "last" || err != io.EOF {
		t.Fatalf("last line = %q, %v", got, err)
	}
}

// A line without end stops at MaxLine (issue 19 §3.9: /dev/zero).
func TestReadLineTooLong(t *testing.T) {
	zeros := bufio.NewReader(io.LimitReader(zeroReader{}, 10*MaxLine))
	if _, err := ReadLine(zeros); !errors.Is(err, ErrLong) {
		t.Fatalf("err = %v, want ErrLong", err)
	}
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}
