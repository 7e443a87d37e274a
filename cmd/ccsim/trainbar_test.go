package main

import (
	"strings"
	"testing"
)

// Without a terminal the bar writes plain lines: the last step always, the
// steps between at most every 10 s (none here).
func TestTrainBarPlain(t *testing.T) {
	var w strings.Builder
	b := newTrainBarOn(&w, false, "train x", "rounds", 3)
	b.Step(1, 3)
	b.Step(2, 3)
	b.Step(3, 3)
	got := w.String()
	if !strings.HasPrefix(got, "train x: 3/3 (") || strings.Count(got, "\n") != 1 {
		t.Fatalf("plain progress = %q, want one line for 3/3", got)
	}
}
