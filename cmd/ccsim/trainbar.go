package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// trainBar is the progress display of a `ccsim train NAME` run: a bar on
// standard error when it is a terminal, else a plain line every 10 s (so a
// log file of a batch job shows progress without control characters).
// Trainers report through its Step method (done of total units, e.g.
// training rounds), which is safe to call from any goroutine.
type trainBar struct {
	mu    sync.Mutex
	bar   *progressbar.ProgressBar
	w     io.Writer
	label string
	start time.Time
	last  time.Time
}

// newTrainBar starts the display of a training run on standard error;
// unit names what Step counts ("rounds", "episodes").
func newTrainBar(label, unit string, total int) *trainBar {
	return newTrainBarOn(os.Stderr, term.IsTerminal(int(os.Stderr.Fd())), label, unit, total)
}

// newTrainBarOn is newTrainBar on w (terminal: draw a bar).
func newTrainBarOn(w io.Writer, terminal bool, label, unit string, total int) *trainBar {
	b := &trainBar{w: w, label: label, start: time.Now()}
	b.last = b.start
	if terminal && total > 0 {
		b.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription(label),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionSetItsString(unit),
			progressbar.OptionShowIts(),
			progressbar.OptionSetWidth(30),
			progressbar.OptionThrottle(200*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		)
	}
	return b
}

// Step records that done of total units are finished.
func (b *trainBar) Step(done, total int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.bar != nil {
		_ = b.bar.Set(done)
		if done >= total {
			_ = b.bar.Finish()
		}
		return
	}
	now := time.Now()
	if done >= total || now.Sub(b.last) >= 10*time.Second {
		b.last = now
		fmt.Fprintf(b.w, "%s: %d/%d (%s)\n", b.label, done, total, now.Sub(b.start).Round(time.Second))
	}
}
