// Package lineio reads text lines of bounded length, so that a parser of a
// line-based input file (the reference simulator's topology and flow
// files) given a device without line ends (/dev/zero) or a binary file
// stops with an error instead of exhausting memory (issue 19 §3.9).
package lineio

import (
	"bufio"
	"errors"
	"fmt"
)

// MaxLine is the longest line accepted, in bytes (a line of the reference
// simulator's files is at most a few kilobytes).
const MaxLine = 1 << 20

// ErrLong is returned for a line longer than MaxLine.
var ErrLong = fmt.Errorf("a line longer than %d bytes (not a text file of this format?)", MaxLine)

// ReadLine returns the next line of br including its '\n' (without it at
// the end of input), as bufio.Reader.ReadString('\n') does, but fails with
// ErrLong once a line passes MaxLine bytes.
func ReadLine(br *bufio.Reader) (string, error) {
	var buf []byte
	for {
		b, err := br.ReadSlice('\n')
		if len(buf)+len(b) > MaxLine {
			return "", ErrLong
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			buf = append(buf, b...)
			continue
		}
		if buf == nil {
			return string(b), err
		}
		return string(append(buf, b...)), err
	}
}
