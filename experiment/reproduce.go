package experiment

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	"github.com/ccsim/ccsim/report"
	"github.com/ccsim/ccsim/version"
)

// Options configure a reproduction.
type Options struct {
	Scale Scale
	Out   string // result root; the paper's results go to Out/PAPER
	// Experiments to run (ids; empty = all). The report always covers
	// every experiment of the paper: those not selected are analysed from
	// the results already in Out, or shown as not run.
	Experiments []string
	Workers     int       // parallel runs (0 = all cores)
	Progress    io.Writer // progress display (nil = none)
	Terminal    bool      // Progress is a terminal: draw a live bar
	// ReportOnly re-analyses the results in Out and rewrites the report
	// without running anything.
	ReportOnly bool
}

// Summary is what a reproduction did.
type Summary struct {
	Dir                  string // Out/PAPER
	Runs, Skipped, Ran   int
	Failed               []error
	Claims               []report.Claim
	Report, ClaimsCSV    string
	AnalysisErrors       []error
	NotRun               []string // experiments without complete results
	Wall                 time.Duration
	ExperimentsAnalysed  int
	ExperimentsRequested int
}

// Reproduce runs a paper's experiments (those not finished yet), analyses
// every experiment and writes OUT/PAPER/claims.csv, tables/, plots/ and
// report.html.
func Reproduce(p *Paper, opt Options) (*Summary, error) {
	t0 := time.Now()
	if opt.Scale == "" {
		opt.Scale = ScalePaper
	}
	if _, err := ParseScale(string(opt.Scale)); err != nil {
		return nil, err
	}
	selected, err := p.Select(opt.Experiments)
	if err != nil {
		return nil, err
	}
	if opt.Out == "" {
		opt.Out = "results"
	}
	st, err := OpenStore(opt.Out, p)
	if err != nil {
		return nil, err
	}
	st.cleanTemps(time.Hour)
	sum := &Summary{Dir: st.Dir, ExperimentsRequested: len(selected)}
	all, todo := resolveRuns(st, p, selected, opt, sum)
	if len(todo) > 0 {
		prog := NewProgress(opt.Progress, opt.Terminal, fmt.Sprintf("reproduce %s (%s)", p.ID, opt.Scale), len(todo))
		recordFailures(all, todo, runAll(st, todo, opt.Workers, prog), sum)
	}
	// Runs not finished (not selected and never run, or report-only).
	for _, er := range all {
		for _, ref := range er.refs {
			if ref.Err == nil && !st.Done(ref.Hash) {
				ref.Err = fmt.Errorf("%s: %w (ccsim reproduce %s %s --scale %s)", ref.Spec.Key, errNotRun, p.ID, er.e.ID, opt.Scale)
			}
		}
	}
	if err := writeReport(st, p, all, opt.Scale, sum); err != nil {
		return sum, err
	}
	sum.Wall = time.Since(t0)
	return sum, nil
}

// expRuns are an experiment's runs.
type expRuns struct {
	e    *Experiment
	refs []*RunRef
}

// resolveRuns resolves every experiment's runs (cheap): those of the
// selected experiments are counted in sum and, unless done or report-only,
// returned in todo (each distinct run once); the others are only looked
// up. A run that does not resolve keeps its error (and fails sum when
// selected).
func resolveRuns(st *Store, p *Paper, selected []*Experiment, opt Options, sum *Summary) (all []expRuns, todo []*Resolved) {
	isSel := map[*Experiment]bool{}
	for _, e := range selected {
		isSel[e] = true
	}
	queued := map[string]bool{}
	for _, e := range p.Experiments {
		er := expRuns{e: e}
		if e.Runs != nil {
			for _, spec := range e.Runs(opt.Scale) {
				ref := &RunRef{Spec: spec}
				r, err := st.Resolve(spec)
				if err != nil {
					ref.Err = err
					if isSel[e] {
						sum.Failed = append(sum.Failed, err)
					}
				} else {
					ref.Hash, ref.Dir, ref.Scenario = r.Hash, st.RunDir(r.Hash), r.Scenario
					if isSel[e] {
						sum.Runs++
						switch {
						case st.Done(r.Hash):
							sum.Skipped++
						case !queued[r.Hash] && !opt.ReportOnly:
							queued[r.Hash] = true
							todo = append(todo, r)
						}
					}
				}
				er.refs = append(er.refs, ref)
			}
		}
		all = append(all, er)
	}
	return all, todo
}

// recordFailures counts the runs of todo that ran (errs: their errors, in
// order) and gives each failed run's error to every reference to it.
func recordFailures(all []expRuns, todo []*Resolved, errs []error, sum *Summary) {
	failedHash := map[string]error{}
	for i, err := range errs {
		if err != nil {
			sum.Failed = append(sum.Failed, err)
			failedHash[todo[i].Hash] = err
		} else {
			sum.Ran++
		}
	}
	for _, er := range all {
		for _, ref := range er.refs {
			if err := failedHash[ref.Hash]; err != nil && ref.Err == nil {
				ref.Err = err
			}
		}
	}
}

// writeReport analyses every experiment and writes the paper's report,
// claims.csv and the list of failures, recording the outcome in sum.
func writeReport(st *Store, p *Paper, all []expRuns, scale Scale, sum *Summary) error {
	pr := &report.PaperReport{ID: p.ID, Number: p.Number, Title: p.Title, Citation: p.Citation, Summary: p.Summary,
		Scale: string(scale), Version: version.Version, Generated: time.Now().UTC().Format("2006-01-02 15:04 UTC")}
	for _, er := range all {
		sec := analyse(p, er.e, er.refs, scale, st.Dir)
		if sec.Error != "" {
			if notRun(er.refs) {
				sum.NotRun = append(sum.NotRun, er.e.ID)
			} else {
				sum.AnalysisErrors = append(sum.AnalysisErrors, fmt.Errorf("%s/%s: %s", p.ID, er.e.ID, sec.Error))
			}
		} else {
			sum.ExperimentsAnalysed++
		}
		sum.Claims = append(sum.Claims, sec.Claims...)
		pr.Sections = append(pr.Sections, *sec)
	}
	if err := report.WritePaper(st.Dir, pr); err != nil {
		return err
	}
	sum.Report = filepath.Join(st.Dir, "report.html")
	sum.ClaimsCSV = filepath.Join(st.Dir, "claims.csv")
	return writeFailures(st.Dir, sum.Failed)
}

// errNotRun marks a run without results (not selected and never run, or
// --report-only).
var errNotRun = errors.New("not run")

func notRun(refs []*RunRef) bool {
	for _, r := range refs {
		if r.Err != nil && errors.Is(r.Err, errNotRun) {
			return true
		}
	}
	return false
}

// analyse runs an experiment's analysis and completes its claims: every
// declared claim gets a row (n/a with the reason when the analysis could
// not evaluate it).
func analyse(p *Paper, e *Experiment, refs []*RunRef, scale Scale, dir string) (sec *report.Section) {
	ctx := &Context{Paper: p, Exp: e, Scale: scale, Dir: dir, runs: refs, byKey: map[string]*RunRef{}}
	for _, r := range refs {
		ctx.byKey[r.Spec.Key] = r
	}
	var inputs []report.Input
	for _, r := range refs {
		inputs = append(inputs, r.Input())
	}
	fail := func(msg string) *report.Section {
		return &report.Section{ID: e.ID, Title: e.Title, Setup: e.Setup, Error: msg, Inputs: inputs}
	}
	defer func() {
		if x := recover(); x != nil {
			sec = fail(fmt.Sprintf("analysis failed: internal error: %v\n%s", x, debug.Stack()))
		}
		sec.Claims = completeClaims(p, e, sec.Claims, sec.Error)
	}()
	if notRun(refs) {
		n := 0
		for _, r := range refs {
			if errors.Is(r.Err, errNotRun) {
				n++
			}
		}
		return fail(fmt.Sprintf("not run: %d of %d runs have no results at this scale (ccsim reproduce %s %s --scale %s)", n, len(refs), p.ID, e.ID, scale))
	}
	s, err := e.Analyze(ctx)
	if err != nil {
		return fail("analysis failed: " + err.Error())
	}
	s.ID, s.Title, s.Setup, s.Inputs = e.ID, e.Title, e.Setup, inputs
	return s
}

// completeClaims orders the claim rows as declared, fills in the paper's
// side and adds an n/a row for every claim without a verdict.
func completeClaims(p *Paper, e *Experiment, got []report.Claim, why string) []report.Claim {
	byID := map[string]report.Claim{}
	for _, c := range got {
		byID[c.ID] = c
	}
	var out []report.Claim
	for _, d := range e.Claims {
		c, ok := byID[d.ID]
		if !ok {
			c = report.Claim{ID: d.ID, CCSimValue: "", Holds: "n/a", Note: "not evaluated: " + firstLine(why)}
		}
		c.Paper, c.Experiment, c.Description, c.PaperValue, c.Unit = p.ID, e.ID, d.Description, d.PaperValue, d.Unit
		if c.Holds == "" {
			c.Holds = "n/a"
		}
		if !d.Verdict && c.Holds != "n/a" {
			c.Holds = "n/a" // a bare number has no direction to hold
		}
		out = append(out, c)
		delete(byID, d.ID)
	}
	for _, c := range got { // verdicts of undeclared claims: a programming error, keep visible
		if _, ok := byID[c.ID]; ok {
			c.Paper, c.Experiment = p.ID, e.ID
			c.Note = "undeclared claim; " + c.Note
			out = append(out, c)
		}
	}
	return out
}

func firstLine(s string) string {
	for i, r := range s {
		if r == '\n' {
			return s[:i]
		}
	}
	if s == "" {
		return "no result"
	}
	return s
}

// writeFailures writes OUT/PAPER/failures.txt (removed when nothing
// failed).
func writeFailures(dir string, errs []error) error {
	path := filepath.Join(dir, "failures.txt")
	if len(errs) == 0 {
		if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
			return err
		}
		return nil
	}
	var b []byte
	for _, err := range errs {
		b = append(b, err.Error()...)
		b = append(b, "\n\n"...)
	}
	return report.WriteFileAtomic(path, b)
}
