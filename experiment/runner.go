package experiment

import (
	"fmt"
	"io"
	"runtime"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
)

// Progress shows a reproduction's progress: one live bar (runs done of
// total, elapsed, ETA) on a terminal, plain lines at most every
// plainEvery otherwise.
type Progress struct {
	mu       sync.Mutex
	w        io.Writer
	bar      *progressbar.ProgressBar
	total    int
	done     int
	failed   int
	start    time.Time
	last     time.Time
	every    time.Duration
	label    string
	terminal bool
}

// plainEvery is the period of plain progress lines.
const plainEvery = 10 * time.Second

// NewProgress starts the display of total runs on w (nil = none).
func NewProgress(w io.Writer, terminal bool, label string, total int) *Progress {
	p := &Progress{w: w, total: total, start: time.Now(), every: plainEvery, label: label, terminal: terminal}
	p.last = p.start
	if w != nil && terminal && total > 0 {
		p.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription(label),
			progressbar.OptionShowCount(),
			// the library's rate and ETA assume many small steps: with
			// runs of minutes they showed "39879 runs/s" and an ETA of 0 s
			// (issue 19 §3.6); the description carries ours instead
			progressbar.OptionSetPredictTime(false),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionSetWidth(30),
			progressbar.OptionThrottle(200*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		)
	}
	return p
}

// Done records a finished (or failed) run.
func (p *Progress) Done(failed bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	if failed {
		p.failed++
	}
	if p.bar != nil {
		p.bar.Describe(fmt.Sprintf("%s (ETA %s)", p.label, p.eta(time.Since(p.start))))
		p.bar.Add(1)
		return
	}
	if p.w == nil {
		return
	}
	now := time.Now()
	if now.Sub(p.last) >= p.every || p.done == p.total {
		p.last = now
		el := now.Sub(p.start)
		fmt.Fprintf(p.w, "%s: %d/%d runs done (%d failed), %s elapsed, ETA %s\n", p.label, p.done, p.total, p.failed, el.Round(time.Second), p.eta(el))
	}
}

// eta is the time the remaining runs take at the mean time per run so far
// ("?" before the first; the runs of one reproduction differ in length, so
// it is a rough guide).
func (p *Progress) eta(el time.Duration) string {
	if p.done == 0 {
		return "?"
	}
	return (el / time.Duration(p.done) * time.Duration(p.total-p.done)).Round(time.Second).String()
}

// Finish ends the display.
func (p *Progress) Finish() {
	if p.bar != nil {
		p.bar.Finish()
	}
}

// runAll executes the resolved runs on a pool of workers (0 = all
// cores). Each run's error lands in its slot; a failing run affects no
// other. A run whose lock another process holds (lock.go) is left to it:
// after its own runs, runAll waits until each such run is done, or runs
// it itself if its holder died; elsewhere marks those another process
// finished.
func runAll(st *Store, runs []*Resolved, workers int, prog *Progress) (errs []error, elsewhere []bool) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	errs = make([]error, len(runs))
	state := make([]lockState, len(runs))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, max(len(runs), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				state[i], errs[i] = st.executeLocked(runs[i])
				if state[i] != heldElsewhere {
					prog.Done(errs[i] != nil)
				}
			}
		}()
	}
	for i := range runs {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	// the runs other processes hold: wait for them
	for waiting := true; waiting; {
		waiting = false
		for i, r := range runs {
			switch {
			case state[i] != heldElsewhere:
			case st.Done(r.Hash):
				state[i] = doneElsewhere
				prog.Done(false)
			case !st.lockHeld(r.Hash):
				state[i], errs[i] = st.executeLocked(r) // its holder died
				if state[i] != heldElsewhere {
					prog.Done(errs[i] != nil)
				}
				waiting = waiting || state[i] == heldElsewhere
			default:
				waiting = true
			}
		}
		if waiting {
			time.Sleep(lockPoll)
		}
	}
	prog.Finish()
	elsewhere = make([]bool, len(runs))
	for i, s := range state {
		elsewhere[i] = s == doneElsewhere
	}
	return errs, elsewhere
}

// lockPoll is how often runAll looks at the runs other processes hold.
var lockPoll = time.Second

// lockState is what executeLocked did with a run.
type lockState int

const (
	ranHere       lockState = iota // run here (errs holds its error)
	heldElsewhere                  // another process holds its lock: not run
	doneElsewhere                  // another process had finished it
)

// executeLocked executes r under its lock, unless another process holds
// the lock or has finished the run.
func (st *Store) executeLocked(r *Resolved) (lockState, error) {
	if st.Done(r.Hash) {
		return doneElsewhere, nil
	}
	l, ok, err := st.tryLock(r.Hash)
	if err != nil {
		return ranHere, fmt.Errorf("%s: locking the run: %w", r.Spec.Key, err)
	}
	if !ok {
		return heldElsewhere, nil
	}
	defer l.release()
	if st.Done(r.Hash) { // finished between the check and the lock
		return doneElsewhere, nil
	}
	return ranHere, st.Execute(r)
}
