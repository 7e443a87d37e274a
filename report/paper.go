package report

// Paper reproduction reports: each experiment is a Section of tables,
// figures, claim verdicts and the exact inputs of its runs. WritePaper
// turns a paper's sections into claims.csv, one CSV per table, PNG and SVG
// per figure, and one self-contained report.html (inline SVG, no script,
// no network fetch).

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"html/template"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Section is one experiment's part of a paper report.
type Section struct {
	ID, Title string
	Setup     string // plain text; blank lines separate paragraphs
	Tables    []Table
	Figures   []Figure
	// Claims holds one row per claim and reading (the primary reading's
	// first).
	Claims []Claim
	// Readings are the experiment's readings of a setup the paper leaves
	// open (none: a single implicit one), with their consistency checks.
	Readings []Reading
	Inputs   []Input
	Notes    []string // findings and caveats, plain text
	Error    string   // the analysis failed or could not run: why
}

// Reading is one reading of an experiment's setup in a report.
type Reading struct {
	ID, Title, Why string
	Primary        bool
	// Inconsistent: a constant derived from this reading's setup
	// contradicts the one the paper prints (Checks).
	Inconsistent bool
	Checks       []CheckRow
}

// CheckRow is one consistency check of a reading: a constant the paper
// prints beside the one its setup gives under this reading.
type CheckRow struct {
	ID, Description string
	Paper, Derived  string
	Unit            string
	OK              bool
	Note            string
}

// Table is a table of a report (also written as CSV).
type Table struct {
	ID, Title string
	Columns   []string
	Rows      [][]string
	Note      string
	// Collapsed shows the table folded (long series) in the HTML page.
	Collapsed bool
}

// Figure is a plot of a report.
type Figure struct {
	ID, Title      string
	XLabel, YLabel string
	LogX, LogY     bool
	// Step draws the series as post-step lines (round series, CDFs).
	Step   bool
	Series []Series
	// YMin, YMax fix the y range when YMax > YMin.
	YMin, YMax float64
}

// Series is one curve of a figure.
type Series struct {
	Label  string
	X, Y   []float64
	Dashed bool
	Points bool // mark the points
	Style  int  // colour/marker index (0 = by position)
}

// Claim is one row of claims.csv: a published number or statement beside
// what ccsim measures under one reading of the setup.
type Claim struct {
	Paper, Experiment, Reading, ID, Description string
	PaperValue, CCSimValue, Unit                string
	// Kind is the claim's kind (direction, order, exact, range, count,
	// magnitude, number); Statement and Magnitude the outcomes of its
	// two parts (yes, no, inconclusive, n/a), Holds the claim's.
	Kind, Statement, Magnitude string
	Holds                      string // yes | no | inconclusive | n/a
	Note                       string // how it was measured, why it fails
	// Primary: the row of the experiment's primary reading.
	Primary bool
}

// Input is one run behind a section: its key, content hash and where its
// results are (relative to the paper's directory).
type Input struct {
	Key, Hash, CC, Base string
	Dir                 string
	Error               string
}

// PaperReport is a whole paper's reproduction.
type PaperReport struct {
	ID, Number, Title, Citation, Summary string
	Scale, Version, Generated            string
	Sections                             []Section
}

// ClaimsHeader is the header of claims.csv.
var ClaimsHeader = []string{"paper", "experiment", "reading", "claim", "description", "paper_value", "ccsim_value", "unit", "kind", "statement", "magnitude", "holds"}

// WritePaper writes dir/claims.csv, dir/tables/*.csv, dir/plots/*.{png,svg}
// and dir/report.html.
func WritePaper(dir string, pr *PaperReport) error {
	for _, sub := range []string{"tables", "plots"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return err
		}
	}
	var claims bytes.Buffer
	cw := csv.NewWriter(&claims)
	cw.Write(ClaimsHeader)
	for _, s := range pr.Sections {
		for _, c := range s.Claims {
			cw.Write([]string{c.Paper, c.Experiment, c.Reading, c.ID, c.Description, c.PaperValue, c.CCSimValue, c.Unit, c.Kind, c.Statement, c.Magnitude, c.Holds})
		}
	}
	cw.Flush()
	if err := WriteFileAtomic(filepath.Join(dir, "claims.csv"), claims.Bytes()); err != nil {
		return err
	}
	view := htmlReport{PaperReport: pr}
	for _, s := range pr.Sections {
		hs := htmlSection{Section: s}
		hs.Top, hs.ByReading = claimViews(s)
		for _, t := range s.Tables {
			var b bytes.Buffer
			w := csv.NewWriter(&b)
			w.Write(t.Columns)
			w.WriteAll(t.Rows)
			name := fileSafe(s.ID + "_" + t.ID)
			if err := WriteFileAtomic(filepath.Join(dir, "tables", name+".csv"), b.Bytes()); err != nil {
				return err
			}
			hs.TableFiles = append(hs.TableFiles, "tables/"+name+".csv")
		}
		for _, f := range s.Figures {
			name := fileSafe(s.ID + "_" + f.ID)
			svg, err := renderFigure(f, filepath.Join(dir, "plots", name))
			if errors.Is(err, errNoData) {
				// nothing measured at this scale: no empty plot
				hs.Omitted = append(hs.Omitted, f.Title)
				continue
			}
			if err != nil {
				// one bad figure must not cost the report: say so in place
				hs.SVGs = append(hs.SVGs, htmlFigure{Title: fmt.Sprintf("%s: not drawn (%v)", f.Title, err), File: "plots/" + name})
				continue
			}
			hs.SVGs = append(hs.SVGs, htmlFigure{Title: f.Title, SVG: template.HTML(svg), File: "plots/" + name})
		}
		view.Sections = append(view.Sections, hs)
	}
	var page bytes.Buffer
	if err := pageTmpl.Execute(&page, view); err != nil {
		return err
	}
	return WriteFileAtomic(filepath.Join(dir, "report.html"), page.Bytes())
}

type htmlReport struct {
	*PaperReport
	Sections []htmlSection
}

type htmlSection struct {
	Section
	TableFiles []string
	SVGs       []htmlFigure
	Omitted    []string // figures without data
	// Top are the rows of the report's claims table (the primary reading,
	// with the other readings' outcomes); ByReading is the section's
	// claims side by side, one column per reading (nil with one reading).
	Top       []topClaim
	ByReading *claimMatrix
}

// topClaim is a claim of the primary reading with the others' outcomes.
type topClaim struct {
	Claim
	Others string // "80flows: no; mixed: yes"
}

// claimMatrix is an experiment's claims under each of its readings.
type claimMatrix struct {
	Readings []Reading
	Rows     []claimRow
}

type claimRow struct {
	ID, Description, PaperValue, Unit string
	Cells                             []Claim // one per reading (zero: none)
}

// claimViews arranges a section's claim rows for the page.
func claimViews(s Section) ([]topClaim, *claimMatrix) {
	var top []topClaim
	primary := map[string]int{}
	for _, c := range s.Claims {
		if c.Primary || len(s.Readings) <= 1 {
			primary[c.ID] = len(top)
			top = append(top, topClaim{Claim: c})
		}
	}
	for _, c := range s.Claims {
		if i, ok := primary[c.ID]; ok && !(c.Primary || len(s.Readings) <= 1) {
			if top[i].Others != "" {
				top[i].Others += "; "
			}
			top[i].Others += c.Reading + ": " + c.Holds
		}
	}
	if len(s.Readings) <= 1 {
		return top, nil
	}
	m := &claimMatrix{Readings: s.Readings}
	col := map[string]int{}
	for i, r := range s.Readings {
		col[r.ID] = i
	}
	row := map[string]int{}
	for _, c := range s.Claims {
		i, ok := row[c.ID]
		if !ok {
			i = len(m.Rows)
			row[c.ID] = i
			m.Rows = append(m.Rows, claimRow{ID: c.ID, Description: c.Description, PaperValue: c.PaperValue, Unit: c.Unit, Cells: make([]Claim, len(s.Readings))})
		}
		if j, ok := col[c.Reading]; ok {
			m.Rows[i].Cells[j] = c
		}
	}
	return top, m
}

type htmlFigure struct {
	Title string
	SVG   template.HTML
	File  string
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

func fileSafe(s string) string { return strings.Trim(unsafeChars.ReplaceAllString(s, "-"), "-") }

// WriteFileAtomic writes a file through a temporary file in the same
// directory (created if needed) and a rename, so that readers never see a
// partial file.
func WriteFileAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// Figure size in reports.
const (
	figWidth  = 7 * vg.Inch
	figHeight = 4 * vg.Inch
	// maxSeriesPoints bounds the points drawn per curve (thinned evenly,
	// keeping the extremes of each stretch so peaks stay visible).
	maxSeriesPoints = 1500
)

// renderFigure writes base.png and base.svg and returns the SVG markup
// for inlining (without its XML declaration).
// errNoData: a figure has no point to draw; it is omitted.
var errNoData = errors.New("no data")

func renderFigure(f Figure, base string) (svgText string, err error) {
	defer func() {
		if x := recover(); x != nil { // gonum/plot panics on degenerate axes
			err = fmt.Errorf("cannot draw: %v", x)
		}
	}()
	p := newPlot(f.Title, f.XLabel, f.YLabel)
	have := false
	for i, s := range f.Series {
		n := min(len(s.X), len(s.Y))
		var xys plotter.XYs
		for k := 0; k < n; k++ {
			x, y := s.X[k], s.Y[k]
			if !finite(x) || !finite(y) || f.LogX && x <= 0 || f.LogY && y <= 0 {
				continue
			}
			xys = append(xys, plotter.XY{X: x, Y: y})
		}
		if len(xys) == 0 {
			continue
		}
		have = true
		xys = thin(xys, maxSeriesPoints)
		idx := i
		if s.Style > 0 {
			idx = s.Style - 1
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			return "", err
		}
		l.LineStyle = runStyle(idx, s.Dashed)
		if f.Step {
			l.StepStyle = plotter.PostStep
		}
		p.Add(l)
		if s.Points {
			pts, err := plotter.NewScatter(xys)
			if err != nil {
				return "", err
			}
			pts.Color = plotutil.Color(idx)
			pts.Shape = plotutil.Shape(idx)
			pts.Radius = vg.Points(2.5)
			p.Add(pts)
			p.Legend.Add(s.Label, l, pts)
		} else {
			p.Legend.Add(s.Label, l)
		}
	}
	if !have {
		return "", errNoData
	}
	if f.LogX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = logTicks{format: fmtNum}
	}
	if f.LogY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = logTicks{format: fmtNum}
	}
	if f.YMax > f.YMin {
		p.Y.Min, p.Y.Max = f.YMin, f.YMax
	}
	png := vgimg.NewWith(vgimg.UseWH(figWidth, figHeight), vgimg.UseDPI(pngDPI))
	render(p, draw.New(png))
	svg := vgsvg.New(figWidth, figHeight)
	render(p, draw.New(svg))
	var pb, sb bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: png}).WriteTo(&pb); err != nil {
		return "", err
	}
	if _, err := svg.WriteTo(&sb); err != nil {
		return "", err
	}
	if err := WriteFileAtomic(base+".png", pb.Bytes()); err != nil {
		return "", err
	}
	if err := WriteFileAtomic(base+".svg", sb.Bytes()); err != nil {
		return "", err
	}
	out := sb.String()
	if i := strings.Index(out, "<svg"); i > 0 {
		out = out[i:]
	}
	return out, nil
}

// thin keeps about max points of xys: it splits the series into stretches
// and keeps each stretch's first, minimum and maximum point (in x order).
func thin(xys plotter.XYs, maxPts int) plotter.XYs {
	if len(xys) <= maxPts {
		return xys
	}
	per := int(math.Ceil(float64(len(xys)) / float64(maxPts/3)))
	var out plotter.XYs
	for i := 0; i < len(xys); i += per {
		end := min(i+per, len(xys))
		lo, hi := i, i
		for k := i; k < end; k++ {
			if xys[k].Y < xys[lo].Y {
				lo = k
			}
			if xys[k].Y > xys[hi].Y {
				hi = k
			}
		}
		keep := []int{i, lo, hi}
		if lo > hi {
			keep[1], keep[2] = hi, lo
		}
		last := -1
		for _, k := range keep {
			if k != last {
				out = append(out, xys[k])
				last = k
			}
		}
	}
	if out[len(out)-1] != xys[len(xys)-1] {
		out = append(out, xys[len(xys)-1])
	}
	return out
}

func paragraphs(s string) []string {
	var out []string
	for _, p := range strings.Split(strings.TrimSpace(s), "\n\n") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, strings.Join(strings.Fields(p), " "))
		}
	}
	return out
}

var pageTmpl = template.Must(template.New("page").Funcs(template.FuncMap{
	"paras": paragraphs,
	"holdsClass": func(h string) string {
		switch h {
		case "yes":
			return "yes"
		case "no":
			return "no"
		case "inconclusive":
			return "inc"
		}
		return "na"
	},
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>ccsim reproduction: {{.Title}}</title>
<style>
body { font-family: system-ui, sans-serif; max-width: 72rem; margin: 2rem auto; padding: 0 1rem; color: #222; line-height: 1.45; }
h1 { font-size: 1.6rem; } h2 { border-bottom: 1px solid #ccc; padding-bottom: .2rem; margin-top: 2.5rem; }
table { border-collapse: collapse; margin: .8rem 0; font-size: .9rem; }
th, td { border: 1px solid #bbb; padding: .25rem .5rem; text-align: left; vertical-align: top; }
th { background: #f0f0f0; }
td.yes { background: #dff3df; } td.no { background: #f8dcdc; } td.na { background: #eee; } td.inc { background: #fbf0c8; }
figure { margin: 1rem 0; } figcaption { font-size: .85rem; color: #555; }
figure svg { max-width: 100%; height: auto; border: 1px solid #eee; }
.meta { color: #555; font-size: .9rem; } .err { color: #a00; font-weight: bold; }
code, pre { font-size: .85rem; background: #f6f6f6; }
details { margin: .5rem 0; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<p class="meta">Paper {{.Number}} ({{.ID}}): {{.Citation}}<br>
ccsim {{.Version}}, scale <b>{{.Scale}}</b>, generated {{.Generated}}</p>
{{range paras .Summary}}<p>{{.}}</p>{{end}}
{{if eq .Scale "quick"}}<p class="err">Quick scale: every run is scaled down (each setup says how), so ccsim's numbers are not comparable with the paper's and the verdicts below only show that the analysis works; run <code>ccsim reproduce {{.ID}}</code> for the paper's scale.</p>{{end}}
<h2>Claims</h2>
<table class="claims">
<p class="meta">Primary readings. <i>statement</i>: the claim's direction, order, value or count; <i>magnitude</i>: the paper's number against ccsim's within the paper's tolerance; a claim holds when both do. Inconclusive: the seeds disagree.</p>
<tr><th>experiment</th><th>claim</th><th>description</th><th>paper</th><th>ccsim</th><th>unit</th><th>kind</th><th>statement</th><th>magnitude</th><th>holds</th><th>other readings</th></tr>
{{range .Sections}}{{range .Top}}<tr><td>{{.Experiment}}</td><td>{{.ID}}</td><td>{{.Description}}{{if .Note}}<br><small>{{.Note}}</small>{{end}}</td><td>{{.PaperValue}}</td><td>{{.CCSimValue}}</td><td>{{.Unit}}</td><td>{{.Kind}}</td><td class="{{holdsClass .Statement}}">{{.Statement}}</td><td class="{{holdsClass .Magnitude}}">{{.Magnitude}}</td><td class="{{holdsClass .Holds}}">{{.Holds}}</td><td>{{.Others}}</td></tr>
{{end}}{{end}}</table>
{{range .Sections}}{{$s := .}}
<h2 id="{{.ID}}">{{.ID}}: {{.Title}}</h2>
{{if .Error}}<p class="err">{{.Error}}</p>{{end}}
<h3>Setup</h3>
{{range paras .Setup}}<p>{{.}}</p>{{end}}
{{if .Readings}}<h3>Readings</h3>
<table><tr><th>reading</th><th>why</th><th>consistency with the paper's printed constants</th></tr>
{{range .Readings}}<tr><td><b>{{.ID}}</b>{{if .Primary}} (primary){{end}}<br>{{.Title}}</td><td>{{.Why}}</td><td class="{{if .Inconsistent}}no{{else}}yes{{end}}">{{if .Inconsistent}}inconsistent{{else}}consistent{{end}}{{range .Checks}}<br>{{.Description}}: paper {{.Paper}}, setup {{.Derived}} {{.Unit}}{{if not .OK}} ✗{{end}}{{if .Note}} ({{.Note}}){{end}}{{end}}</td></tr>
{{end}}</table>{{end}}
{{with .ByReading}}<h3>Claims by reading</h3>
<table><tr><th>claim</th><th>paper</th>{{range .Readings}}<th>{{.ID}}{{if .Primary}} (primary){{end}}{{if .Inconsistent}} — inconsistent{{end}}</th>{{end}}</tr>
{{range .Rows}}<tr><td>{{.ID}}<br><small>{{.Description}}</small></td><td>{{.PaperValue}} {{.Unit}}</td>{{range .Cells}}<td class="{{holdsClass .Holds}}">{{.CCSimValue}}<br><b>{{.Holds}}</b>{{if .Note}}<br><small>{{.Note}}</small>{{end}}</td>{{end}}</tr>
{{end}}</table>{{end}}
{{range $i, $t := .Tables}}
{{if $t.Collapsed}}<details><summary>{{$t.Title}} ({{len $t.Rows}} rows)</summary>{{else}}<h3>{{$t.Title}}</h3>{{end}}
<table>
<tr>{{range $t.Columns}}<th>{{.}}</th>{{end}}</tr>
{{range $t.Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table>{{if $t.Collapsed}}</details>{{end}}
{{if $t.Note}}<p class="meta">{{$t.Note}}</p>{{end}}
<p class="meta">CSV: <code>{{index $s.TableFiles $i}}</code></p>{{end}}
{{range .SVGs}}
<figure>{{.SVG}}<figcaption>{{.Title}} (<code>{{.File}}.png</code>, <code>{{.File}}.svg</code>)</figcaption></figure>
{{end}}
{{if .Omitted}}<p class="meta">Omitted, no data at this scale: {{range $i, $t := .Omitted}}{{if $i}}; {{end}}{{$t}}{{end}}.</p>{{end}}
{{if .Notes}}<h3>Findings</h3><ul>{{range .Notes}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{if .Inputs}}<details><summary>Exact inputs ({{len .Inputs}} runs)</summary>
<table><tr><th>run</th><th>algorithm</th><th>base scenario</th><th>content hash</th><th>results</th></tr>
{{range .Inputs}}<tr><td>{{.Key}}</td><td>{{.CC}}</td><td>{{.Base}}</td><td><code>{{.Hash}}</code></td><td>{{if .Error}}<span class="err">{{.Error}}</span>{{else}}<code>{{.Dir}}/</code> (<code>scenario.yaml</code>, <code>run.json</code>){{end}}</td></tr>
{{end}}</table></details>{{end}}
{{end}}
</body>
</html>
`))
