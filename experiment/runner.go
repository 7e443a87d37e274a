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
// other.
func runAll(st *Store, runs []*Resolved, workers int, prog *Progress) []error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	errs := make([]error, len(runs))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, max(len(runs), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				errs[i] = st.Execute(runs[i])
				prog.Done(errs[i] != nil)
			}
		}()
	}
	for i := range runs {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	prog.Finish()
	return errs
}
