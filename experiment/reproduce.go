package experiment

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/ccsim/ccsim/report"
	"github.com/ccsim/ccsim/scenario"
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
	// Shard, with Shards > 1, runs only the share of the runs whose hash
	// falls in shard Shard of Shards (0 ≤ Shard < Shards; shardOf), and
	// writes no report: the shards of a Slurm array or Kubernetes Indexed
	// Job run apart into one result tree, then ReportOnly builds the
	// report from it (issue 19 §1).
	Shard, Shards int
	// Readings, if set, runs only the runs these readings use (ids, or
	// "primary" for each experiment's primary reading); the report still
	// covers every reading, showing the others from the results already in
	// Out or as not run.
	Readings []string
}

// Summary is what a reproduction did.
type Summary struct {
	Dir string // Out/PAPER
	// Runs are the distinct runs of the selected experiments (a run two
	// of them share counts once), Skipped those already done, Ran those
	// run now; Listed counts them as the experiments list them.
	Runs, Skipped, Ran, Listed int
	// Elsewhere are runs another process (sharing the result tree) ran
	// while this one waited for them.
	Elsewhere int
	// Shard is the number of runs not done that fell in this process's
	// shard (Options.Shards > 1).
	Shard  int
	Failed []error
	Claims []report.Claim
	// Measured are the typed claims with what the analyses measured for
	// them (for the flip check, Flip).
	Measured          []Measured
	Report, ClaimsCSV string
	AnalysisErrors    []error
	// NotRun are the experiments with no complete reading at this scale
	// (all their claims n/a); Partial those with some readings complete
	// and some not, each with the readings not run yet.
	NotRun               []string
	Partial              []PartialRun
	Wall                 time.Duration
	ExperimentsAnalysed  int
	ExperimentsRequested int
}

// PartialRun is an experiment whose results are complete under some of its
// readings only: Readings lists the others (their claims are n/a);
// Primary is set when the primary reading is among them.
type PartialRun struct {
	Experiment string
	Readings   []string
	Primary    bool
}

// Measured is a typed claim under one reading with the measure its
// analysis gave.
type Measured struct {
	Experiment, Reading string
	Claim               *Claim
	Tol                 Tolerance
	Measure             Measure
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
	if opt.Shards > 1 && (opt.Shard < 0 || opt.Shard >= opt.Shards || opt.ReportOnly) {
		return nil, fmt.Errorf("shard %d/%d: want 0 ≤ shard < shards, without report-only", opt.Shard, opt.Shards)
	}
	selected, err := p.Select(opt.Experiments)
	if err != nil {
		return nil, err
	}
	if err := checkReadingIDs(selected, opt.Readings); err != nil {
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
	if opt.ReportOnly && sum.Runs > 0 && sum.Skipped == 0 {
		return nil, fmt.Errorf("--report-only: %s has no finished run of the %d to analyse at scale %s; run ccsim reproduce %s --scale %s first",
			st.Dir, sum.Runs, opt.Scale, p.ID, opt.Scale)
	}
	label := fmt.Sprintf("reproduce %s (%s)", p.ID, opt.Scale)
	if opt.Shards > 1 {
		todo = slices.DeleteFunc(todo, func(r *Resolved) bool { return shardOf(r.Hash, opt.Shards) != opt.Shard })
		label = fmt.Sprintf("reproduce %s (%s) shard %d/%d", p.ID, opt.Scale, opt.Shard, opt.Shards)
		sum.Shard = len(todo)
	}
	if len(todo) > 0 {
		prog := NewProgress(opt.Progress, opt.Terminal, label, len(todo))
		errs, elsewhere := runAll(st, todo, opt.Workers, prog)
		recordFailures(all, todo, errs, elsewhere, sum)
	}
	if opt.Shards > 1 {
		sum.Wall = time.Since(t0)
		return sum, nil // the report is built from all the shards' runs (ReportOnly)
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

// expRuns are an experiment's runs (every reading's) and its readings as
// the report shows them (with their consistency checks).
type expRuns struct {
	e        *Experiment
	refs     []*RunRef
	readings []report.Reading
}

// resolveRuns resolves every experiment's runs (cheap): those of the
// selected experiments are counted in sum and, unless done or report-only,
// returned in todo (each distinct run once, those of primary readings
// first; with opt.Readings only those readings' runs); the others are
// only looked up. A run that does not resolve keeps its error (and fails
// sum when selected).
func resolveRuns(st *Store, p *Paper, selected []*Experiment, opt Options, sum *Summary) (all []expRuns, todo []*Resolved) {
	isSel := map[*Experiment]bool{}
	for _, e := range selected {
		isSel[e] = true
	}
	counted := map[string]bool{}
	primary := map[string]bool{} // runs a primary reading uses
	for _, e := range p.Experiments {
		er := expRuns{e: e, readings: checkReadings(st, e)}
		var specs []RunSpec
		if e.Runs != nil {
			specs = e.Runs(opt.Scale)
		}
		for _, rd := range e.readings() {
			for _, spec := range specs {
				if len(rd.OnlySeeds) > 0 && !slices.Contains(rd.OnlySeeds, spec.Seed) {
					continue
				}
				ref := &RunRef{Spec: readingSpec(spec, rd, opt.Scale), Reading: rd.ID, Primary: rd.Primary}
				r, err := st.Resolve(ref.Spec)
				if err != nil {
					ref.Err = err
					if isSel[e] && readingSelected(rd, opt.Readings) {
						sum.Failed = append(sum.Failed, err)
					}
				} else {
					ref.Hash, ref.Dir, ref.Scenario = r.Hash, st.RunDir(r.Hash), r.Scenario
					if rd.Primary {
						primary[r.Hash] = true
					}
					if isSel[e] && readingSelected(rd, opt.Readings) {
						// a run two experiments (or readings) share is one
						// run: counted once, as the progress bar counts it
						// (issue 19 §3.6)
						sum.Listed++
						if !counted[r.Hash] {
							counted[r.Hash] = true
							sum.Runs++
							switch {
							case st.Done(r.Hash):
								sum.Skipped++
							case !opt.ReportOnly:
								todo = append(todo, r)
							}
						}
					}
				}
				er.refs = append(er.refs, ref)
			}
		}
		all = append(all, er)
	}
	// The primary readings' runs first, every experiment's (in plan order
	// otherwise): a reproduction stopped or read half-way (--report-only)
	// has the paper's own setup complete before the sensitivity readings.
	slices.SortStableFunc(todo, func(a, b *Resolved) int {
		switch pa, pb := primary[a.Hash], primary[b.Hash]; {
		case pa && !pb:
			return -1
		case pb && !pa:
			return 1
		}
		return 0
	})
	return all, todo
}

// readingSelected reports whether the runs of rd are to be run (ids: the
// --readings list; empty = all).
func readingSelected(rd Reading, ids []string) bool {
	if len(ids) == 0 {
		return true
	}
	for _, id := range ids {
		if id == rd.ID || (id == "primary" && rd.Primary) {
			return true
		}
	}
	return false
}

// checkReadingIDs refuses a reading id that no selected experiment has.
func checkReadingIDs(selected []*Experiment, ids []string) error {
	for _, id := range ids {
		if id == "primary" {
			continue
		}
		var known []string
		found := false
		for _, e := range selected {
			for _, rd := range e.Readings {
				found = found || rd.ID == id
				if !slices.Contains(known, rd.ID) {
					known = append(known, rd.ID)
				}
			}
		}
		if !found {
			return fmt.Errorf("--readings %q: no selected experiment has that reading; want primary or one of %s", id, strings.Join(known, ", "))
		}
	}
	return nil
}

// checkReadings evaluates e's consistency checks under each of its
// readings, on the resolved scenario of e's first run at the paper's
// scale (the checks compare the paper's own setup, whatever the scale of
// this reproduction); nil when e declares neither readings nor checks.
func checkReadings(st *Store, e *Experiment) []report.Reading {
	if len(e.Readings) == 0 && len(e.Checks) == 0 {
		return nil
	}
	var specs []RunSpec
	if e.Runs != nil {
		specs = e.Runs(ScalePaper)
	}
	var out []report.Reading
	for _, rd := range e.readings() {
		r := report.Reading{ID: rd.ID, Title: rd.Title, Why: rd.Why, Primary: rd.Primary}
		if r.ID == "" {
			r.ID, r.Title = "default", "the experiment's setup"
		}
		var s *scenario.Scenario
		var resolveErr error
		if len(specs) > 0 {
			var res *Resolved
			if res, resolveErr = st.Resolve(readingSpec(specs[0], rd, ScalePaper)); resolveErr == nil {
				s = res.Scenario
			}
		}
		for i := range e.Checks {
			c := &e.Checks[i]
			var row report.CheckRow
			if resolveErr != nil {
				row = report.CheckRow{ID: c.ID, Description: c.Description, Paper: c.PaperText(), Derived: "—", Unit: c.Unit, Note: resolveErr.Error()}
			} else {
				row = c.evaluate(s)
			}
			r.Checks = append(r.Checks, row)
			r.Inconsistent = r.Inconsistent || !row.OK
		}
		out = append(out, r)
	}
	return out
}

// recordFailures counts the runs of todo that ran here or elsewhere (errs:
// their errors, in order) and gives each failed run's error to every
// reference to it.
func recordFailures(all []expRuns, todo []*Resolved, errs []error, elsewhere []bool, sum *Summary) {
	failedHash := map[string]error{}
	for i, err := range errs {
		switch {
		case err != nil:
			sum.Failed = append(sum.Failed, err)
			failedHash[todo[i].Hash] = err
		case elsewhere[i]:
			sum.Elsewhere++
		default:
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
		sec, measured, missing, bad := analyseReadings(p, er, scale, st.Dir)
		sum.Measured = append(sum.Measured, measured...)
		for _, msg := range bad {
			sum.AnalysisErrors = append(sum.AnalysisErrors, fmt.Errorf("%s/%s: %s", p.ID, er.e.ID, msg))
		}
		switch {
		case len(missing) > 0 && len(missing) == len(er.e.readings()):
			sum.NotRun = append(sum.NotRun, er.e.ID)
		case len(missing) > 0:
			part := PartialRun{Experiment: er.e.ID}
			for _, rd := range missing {
				part.Readings = append(part.Readings, rd.ID)
				part.Primary = part.Primary || rd.Primary
			}
			sum.Partial = append(sum.Partial, part)
		}
		if sec.Error == "" {
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

// analyseReadings analyses an experiment under each of its readings and
// merges the results into one section: the primary reading's tables,
// figures and notes as they are, the other readings' marked with their
// id, and every reading's claim rows.
//
// It also returns the readings whose analysis failed because some of their
// runs were not run (missing), and the errors of the readings whose runs
// all exist (bad, each prefixed with its reading).
func analyseReadings(p *Paper, er expRuns, scale Scale, dir string) (out *report.Section, measured []Measured, missing []Reading, bad []string) {
	e := er.e
	var inputs []report.Input
	for _, r := range er.refs {
		inputs = append(inputs, r.Input())
	}
	out = &report.Section{ID: e.ID, Title: e.Title, Setup: e.setup(scale), Readings: er.readings, Inputs: inputs}
	var errs []string
	for _, rd := range e.readings() {
		var refs []*RunRef
		for _, r := range er.refs {
			if r.Reading == rd.ID {
				refs = append(refs, r)
			}
		}
		sec, ms := analyse(p, e, rd, refs, scale, dir)
		for i := range e.Claims {
			if m, ok := ms[e.Claims[i].ID]; ok {
				measured = append(measured, Measured{Experiment: e.ID, Reading: rd.ID, Claim: &e.Claims[i], Tol: p.tolerance(), Measure: m})
			}
		}
		for _, c := range sec.Claims {
			c.Reading, c.Primary = rd.ID, rd.Primary
			out.Claims = append(out.Claims, c)
		}
		if sec.Error != "" {
			msg := readingPrefix(rd, ": ") + sec.Error
			errs = append(errs, msg)
			if notRun(refs) {
				missing = append(missing, rd)
			} else {
				bad = append(bad, msg)
			}
		}
		if rd.Primary {
			out.Tables = append(out.Tables, sec.Tables...)
			out.Figures = append(out.Figures, sec.Figures...)
			out.Notes = append(out.Notes, sec.Notes...)
			continue
		}
		for _, t := range sec.Tables {
			t.ID, t.Title = t.ID+"_"+rd.ID, "[reading "+rd.ID+"] "+t.Title
			out.Tables = append(out.Tables, t)
		}
		for _, f := range sec.Figures {
			f.ID, f.Title = f.ID+"_"+rd.ID, "[reading "+rd.ID+"] "+f.Title
			out.Figures = append(out.Figures, f)
		}
		for _, n := range sec.Notes {
			out.Notes = append(out.Notes, "[reading "+rd.ID+"] "+n)
		}
	}
	out.Error = strings.Join(errs, "\n")
	// claim by claim, each under every reading (the primary first)
	order := map[string]int{}
	for i, c := range e.Claims {
		order[c.ID] = i
	}
	rank := func(id string) int {
		if i, ok := order[id]; ok {
			return i
		}
		return len(order)
	}
	slices.SortStableFunc(out.Claims, func(a, b report.Claim) int { return rank(a.ID) - rank(b.ID) })
	return out, measured, missing, bad
}

// readingPrefix names a non-primary reading before text ("" otherwise).
func readingPrefix(rd Reading, sep string) string {
	if rd.Primary || rd.ID == "" {
		return ""
	}
	return "reading " + rd.ID + sep
}

// analyse runs an experiment's analysis under reading rd and completes
// its claims: every declared claim gets a row (n/a with the reason when
// the analysis could not measure it).
func analyse(p *Paper, e *Experiment, rd Reading, refs []*RunRef, scale Scale, dir string) (sec *report.Section, measures map[string]Measure) {
	ctx := &Context{Paper: p, Exp: e, Scale: scale, Dir: dir, Reading: rd, runs: refs, byKey: map[string]*RunRef{}}
	for _, r := range refs {
		ctx.byKey[r.Spec.Key] = r
	}
	fail := func(msg string) *report.Section {
		return &report.Section{Error: msg}
	}
	defer func() {
		if x := recover(); x != nil {
			sec, ctx.measures = fail(fmt.Sprintf("analysis failed: internal error: %v\n%s", x, debug.Stack())), nil
		}
		sec.Claims = completeClaims(p, e, ctx.measures, sec.Claims, sec.Error)
		measures = ctx.measures
	}()
	if notRun(refs) {
		n := 0
		for _, r := range refs {
			if errors.Is(r.Err, errNotRun) {
				n++
			}
		}
		flag := ""
		if rd.ID != "" {
			flag = " --readings " + rd.ID
		}
		return fail(fmt.Sprintf("not run: %d of %d runs have no results at this scale (ccsim reproduce %s %s --scale %s%s)", n, len(refs), p.ID, e.ID, scale, flag)), nil
	}
	s, err := e.Analyze(ctx)
	if err != nil {
		return fail("analysis failed: " + err.Error()), nil
	}
	return s, nil
}

// completeClaims builds the claim rows of one reading in the order the
// experiment declares them: each is decided from its measure (Evaluate); a
// claim without a measure gets an n/a row saying why. Rows an analysis
// wrote itself (got) are kept only as undeclared claims, a programming
// error left visible.
func completeClaims(p *Paper, e *Experiment, measures map[string]Measure, got []report.Claim, why string) []report.Claim {
	byID := map[string]report.Claim{}
	for _, c := range got {
		byID[c.ID] = c
	}
	var out []report.Claim
	declared := map[string]bool{}
	for i := range e.Claims {
		d := &e.Claims[i]
		c := typedRow(p, d, measures, why)
		c.Paper, c.Experiment, c.ID, c.Description, c.PaperValue, c.Unit = p.ID, e.ID, d.ID, d.Description, d.PaperValue, d.Unit
		out = append(out, c)
		delete(byID, d.ID)
		declared[d.ID] = true
	}
	for _, c := range got { // verdicts of undeclared claims: a programming error, keep visible
		if _, ok := byID[c.ID]; ok {
			c.Paper, c.Experiment = p.ID, e.ID
			c.Note = "undeclared claim; " + c.Note
			out = append(out, c)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(measures)) {
		if declared[id] {
			continue
		}
		out = append(out, report.Claim{Paper: p.ID, Experiment: e.ID, ID: id, Holds: string(NA), Note: "undeclared claim measured"})
	}
	return out
}

// typedRow decides declared claim d from its measure.
func typedRow(p *Paper, d *Claim, measures map[string]Measure, why string) report.Claim {
	c := report.Claim{Kind: d.Kind.String(), Statement: string(NA), Magnitude: string(NA), Holds: string(NA)}
	m, ok := measures[d.ID]
	if !ok {
		c.Note = "not measured: " + firstLine(why)
		return c
	}
	v, err := Evaluate(d, p.tolerance(), m)
	if err != nil {
		c.CCSimValue, c.Note = m.Text, "not evaluated: "+err.Error()
		return c
	}
	c.CCSimValue, c.Statement, c.Magnitude, c.Holds = v.Value, string(v.Statement), string(v.Magnitude), string(v.Holds)
	c.Note = m.Note
	if v.Why != "" && v.Holds == No || v.Holds == Inconclusive {
		c.Note = strings.TrimPrefix(c.Note+"; "+v.Why, "; ")
	}
	return c
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
