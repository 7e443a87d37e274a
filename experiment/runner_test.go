package experiment

import (
	"bytes"
	"strings"
	"testing"
)

// Without a terminal, progress is plain lines: at most one per period,
// always one at the end.
func TestProgressPlainLines(t *testing.T) {
	var b bytes.Buffer
	p := NewProgress(&b, false, "reproduce x", 3)
	p.Done(false)
	if b.Len() != 0 {
		t.Fatalf("a line before the period elapsed: %q", b.String())
	}
	p.every = 0
	p.Done(true)
	p.Done(false)
	p.Finish()
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("lines %q", lines)
	}
	if !strings.HasPrefix(lines[1], "reproduce x: 3/3 runs done (1 failed)") || !strings.Contains(lines[1], "ETA 0s") {
		t.Errorf("last line %q", lines[1])
	}
	// A terminal gets the bar, drawn by the progress-bar library.
	var tb bytes.Buffer
	q := NewProgress(&tb, true, "bar", 2)
	q.Done(false)
	q.Done(false)
	q.Finish()
	if !strings.Contains(tb.String(), "bar") {
		t.Errorf("terminal output %q lacks the bar's label", tb.String())
	}
}
