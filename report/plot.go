package report

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/ccsim/ccsim/metrics"
)

// Plot file base names (each is written as .png and .svg).
const (
	SlowdownPlot = "slowdown_vs_size"
	FCTCDFPlot   = "fct_cdf"
	QueueCDFPlot = "queue_cdf"
)

// Plot geometry.
const (
	plotWidth  = 8 * vg.Inch
	plotHeight = 5 * vg.Inch
	pngDPI     = 150
	// maxCDFPoints bounds the points drawn per CDF curve.
	maxCDFPoints = 2000
)

// Options adjust PlotRunsWith and WriteTables. A nil *Options means the
// defaults.
type Options struct {
	// QueueClass maps a sampled port (node, port index) to its class
	// label, e.g. "host-facing ToR ports" or "fabric ports"; ports mapped
	// to "" are left out. nil puts every sampled port in one class,
	// AllPorts.
	QueueClass func(node, port int) string
}

func (o *Options) queueClass() func(node, port int) string {
	if o == nil {
		return nil
	}
	return o.QueueClass
}

// PlotRuns writes the comparison plots of runs into outDir (created if
// needed), each as PNG and SVG, and returns the files written:
//
//   - slowdown_vs_size: p50 (solid) and p99 (dashed) FCT slowdown per size
//     bin (metrics.SizeBins, 20 bins of 5 % of the finished flows, at the
//     bin's largest size) against flow size, log x, one colour per run;
//   - fct_cdf: CDF of the FCT of finished flows, log x;
//   - queue_cdf: CDF of the sampled queue lengths (queue.csv), only when
//     some run has queue samples.
//
// Runs are labelled by Labels (their cc name). A plot none of the runs
// has data for (no finished flows) is not written.
func PlotRuns(runs []*Run, outDir string) ([]string, error) {
	return PlotRunsWith(runs, outDir, nil)
}

// PlotRunsWith is PlotRuns with options.
func PlotRunsWith(runs []*Run, outDir string, opts *Options) ([]string, error) {
	if len(runs) == 0 {
		return nil, errors.New("report: no runs to plot")
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, err
	}
	labels := Labels(runs)
	title := func(s string) string {
		if name := scenarioName(runs); name != "" {
			return s + " — " + name
		}
		return s
	}
	var files []string
	for _, mk := range []struct {
		base string
		fn   func() (*plot.Plot, error)
	}{
		{SlowdownPlot, func() (*plot.Plot, error) { return slowdownPlot(runs, labels, title("FCT slowdown by flow size")) }},
		{FCTCDFPlot, func() (*plot.Plot, error) { return fctCDFPlot(runs, labels, title("FCT CDF")) }},
		{QueueCDFPlot, func() (*plot.Plot, error) {
			return queueCDFPlot(runs, labels, opts.queueClass(), title("Queue length CDF"))
		}},
	} {
		p, err := mk.fn()
		if err != nil {
			return files, fmt.Errorf("report: %s: %w", mk.base, err)
		}
		if p == nil {
			continue
		}
		written, err := savePlot(p, outDir, mk.base)
		files = append(files, written...)
		if err != nil {
			return files, err
		}
	}
	return files, nil
}

// savePlot writes p as outDir/base.png and outDir/base.svg.
func savePlot(p *plot.Plot, outDir, base string) ([]string, error) {
	var files []string
	png := vgimg.NewWith(vgimg.UseWH(plotWidth, plotHeight), vgimg.UseDPI(pngDPI))
	render(p, draw.New(png))
	svg := vgsvg.New(plotWidth, plotHeight)
	render(p, draw.New(svg))
	for _, out := range []struct {
		ext string
		w   io.WriterTo
	}{{".png", vgimg.PngCanvas{Canvas: png}}, {".svg", svg}} {
		path := filepath.Join(outDir, base+out.ext)
		f, err := os.Create(path)
		if err != nil {
			return files, err
		}
		_, err = out.w.WriteTo(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return files, fmt.Errorf("%s: %w", path, err)
		}
		files = append(files, path)
	}
	return files, nil
}

// render draws p on c with its legend in a column to the right of the
// plot, so that the legend never hides data.
func render(p *plot.Plot, c draw.Canvas) {
	leg := p.Legend
	w := leg.Rectangle(c).Size().X
	if w <= 0 || w > c.Size().X/2 {
		p.Draw(c) // no legend, or too wide for a column: inside the plot
		return
	}
	pad := vg.Points(8)
	p.Legend = plot.NewLegend()
	p.Draw(draw.Crop(c, 0, -(w + 2*pad), 0, 0))
	p.Legend = leg
	top := vg.Length(0)
	if p.Title.Text != "" {
		top = p.Title.TextStyle.Rectangle(p.Title.Text).Size().Y + p.Title.Padding + pad
	}
	lc := draw.Crop(c, c.Size().X-w-pad, -pad, 0, -top)
	leg.Top, leg.Left = true, true
	leg.Draw(lc)
}

// newPlot returns a plot with the common styling.
func newPlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	p.Legend.TextStyle.Font.Size = vg.Points(10)
	p.Add(plotter.NewGrid())
	return p
}

// setLogX makes p's x axis logarithmic over the whole decades that
// contain [lo, hi] (0 < lo <= hi; [lo/2, 2·lo] when lo == hi), with ticks
// labelled by format.
func setLogX(p *plot.Plot, lo, hi float64, format func(float64) string) {
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = logTicks{format: format}
	if lo == hi { // one value: centre it
		p.X.Min, p.X.Max = lo/2, hi*2
		return
	}
	p.X.Min = math.Pow(10, math.Floor(math.Log10(lo)))
	p.X.Max = math.Pow(10, math.Ceil(math.Log10(hi)))
}

// logTicks puts ticks at 1..9 × the powers of ten within the axis range.
// It labels the powers of ten, and also 2× and 5× them when the range
// spans at most 3 decades. A range of less than a decade gets linTicks.
type logTicks struct{ format func(float64) string }

// Ticks returns the ticks of the axis range [lo, hi] (plot.Ticker).
func (t logTicks) Ticks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	if !(lo > 0) || !(hi >= lo) {
		return nil
	}
	if hi/lo < 10 {
		// Less than a decade: a linear tick set labels it better.
		ticks := linTicks{}.Ticks(lo, hi)
		for i := range ticks {
			if ticks[i].Label != "" {
				ticks[i].Label = t.format(ticks[i].Value)
			}
		}
		return ticks
	}
	dense := hi/lo <= 1000*(1+1e-9)
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		dec := math.Pow(10, e)
		for m := 1; m < 10; m++ {
			v := dec * float64(m)
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			tk := plot.Tick{Value: v}
			if m == 1 || dense && (m == 2 || m == 5) {
				tk.Label = t.format(v)
			}
			ticks = append(ticks, tk)
		}
	}
	return ticks
}

// linTicks puts labelled ticks at multiples of a 1, 2 or 5 × 10^k step
// chosen to give about 5 to 10 labels, with unlabelled ticks between.
type linTicks struct{}

// Ticks returns the ticks of the axis range [lo, hi] (plot.Ticker).
func (linTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return nil
	}
	mag := math.Pow(10, math.Floor(math.Log10((hi-lo)/5)))
	var step, minor float64
	switch r := (hi - lo) / 5 / mag; {
	case r < 2:
		step, minor = mag, mag/2
	case r < 5:
		step, minor = 2*mag, mag
	default:
		step, minor = 5*mag, mag
	}
	decimals := max(0, int(-math.Floor(math.Log10(step)+1e-9)))
	var ticks []plot.Tick
	per := int(math.Round(step / minor))
	for k := int(math.Ceil(lo/minor - 1e-9)); float64(k)*minor <= hi*(1+1e-12)+1e-12; k++ {
		v := float64(k) * minor
		tk := plot.Tick{Value: v}
		if k%per == 0 {
			tk.Label = strconv.FormatFloat(v, 'f', decimals, 64)
		}
		ticks = append(ticks, tk)
	}
	return ticks
}

// fmtNum prints v without superfluous digits.
func fmtNum(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }

// fmtKB prints bytes in KB, whole above 100 KB, else with 3 digits.
func fmtKB(b int64) string {
	kb := float64(b) / 1e3
	if kb >= 100 {
		return strconv.FormatFloat(kb, 'f', 0, 64)
	}
	return strconv.FormatFloat(kb, 'g', 3, 64)
}

// fmtBytes labels a size in bytes with decimal units (1KB = 1000 B).
func fmtBytes(v float64) string {
	switch {
	case v >= 1e9:
		return fmtNum(v/1e9) + "GB"
	case v >= 1e6:
		return fmtNum(v/1e6) + "MB"
	case v >= 1e3:
		return fmtNum(v/1e3) + "KB"
	}
	return fmtNum(v) + "B"
}

// fmtMicros labels a time given in microseconds.
func fmtMicros(v float64) string {
	switch {
	case v >= 1e6:
		return fmtNum(v/1e6) + "s"
	case v >= 1e3:
		return fmtNum(v/1e3) + "ms"
	case v >= 1:
		return fmtNum(v) + "µs"
	}
	return fmtNum(v*1e3) + "ns"
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// runStyle is the line style of run i.
func runStyle(i int, dashed bool) draw.LineStyle {
	s := draw.LineStyle{Color: plotutil.Color(i), Width: vg.Points(1.5)}
	if dashed {
		s.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
	}
	return s
}

// slowdownPlot draws p50 and p99 slowdown per size bin; nil when no run
// has a finished flow.
func slowdownPlot(runs []*Run, labels []string, title string) (*plot.Plot, error) {
	p := newPlot(title, "flow size (largest in bin of 5% of flows)", "FCT slowdown (log)")
	lo, hi, ymax := math.Inf(1), math.Inf(-1), 1.0
	have := false
	for i, r := range runs {
		t := NewSlowdownTable(r.Flows, r.End())
		var p50, p99 plotter.XYs
		for _, b := range t.Bins {
			// A NaN slowdown (ideal FCT <= 0) cannot be drawn: skip.
			if !finite(b.P50) || !finite(b.P99) {
				continue
			}
			x := float64(max(b.MaxSizeBytes, 1))
			p50 = append(p50, plotter.XY{X: x, Y: math.Max(b.P50, 1)})
			p99 = append(p99, plotter.XY{X: x, Y: math.Max(b.P99, 1)})
			lo, hi = math.Min(lo, x), math.Max(hi, x)
			ymax = math.Max(ymax, b.P99)
		}
		if len(p50) == 0 {
			continue
		}
		have = true
		for _, s := range []struct {
			xys    plotter.XYs
			name   string
			dashed bool
			shape  int
		}{{p50, "p50", false, 0}, {p99, "p99", true, 2}} {
			l, pts, err := plotter.NewLinePoints(s.xys)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", labels[i], err)
			}
			l.LineStyle = runStyle(i, s.dashed)
			pts.Color = plotutil.Color(i)
			pts.Shape = plotutil.Shape(s.shape)
			pts.Radius = vg.Points(2.5)
			p.Add(l, pts)
			p.Legend.Add(labels[i]+" "+s.name, l, pts)
		}
	}
	if !have {
		return nil, nil
	}
	setLogX(p, lo, hi, fmtBytes)
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = logTicks{format: fmtNum}
	p.Y.Min, p.Y.Max = 1, ymax*1.1
	if !(p.Y.Max >= 1.5) {
		p.Y.Max = 1.5
	}
	return p, nil
}

// cdfXYs returns the empirical CDF of sorted (ascending) as points
// (x_i, (i+1)/n) to draw with a post-step line, thinned to about
// maxCDFPoints points (every curve keeps its first and last point).
func cdfXYs(sorted []float64) plotter.XYs {
	n := len(sorted)
	step := max(1, (n+maxCDFPoints-1)/maxCDFPoints)
	var xys plotter.XYs
	for i := 0; i < n; i += step {
		xys = append(xys, plotter.XY{X: sorted[i], Y: float64(i+1) / float64(n)})
	}
	if last := (n - 1); last%step != 0 {
		xys = append(xys, plotter.XY{X: sorted[last], Y: 1})
	}
	return xys
}

// cdfLine returns a post-step line of xys in run i's style.
func cdfLine(xys plotter.XYs, i int, dashes []vg.Length) (*plotter.Line, error) {
	l, err := plotter.NewLine(xys)
	if err != nil {
		return nil, err
	}
	l.StepStyle = plotter.PostStep
	l.LineStyle = runStyle(i, false)
	l.LineStyle.Dashes = dashes
	return l, nil
}

// fctCDFPlot draws the CDF of the FCTs of finished flows; nil when no run
// has one.
func fctCDFPlot(runs []*Run, labels []string, title string) (*plot.Plot, error) {
	p := newPlot(title, "flow completion time", "fraction of finished flows")
	lo, hi := math.Inf(1), math.Inf(-1)
	have := false
	for i, r := range runs {
		var fct []float64
		for k := range r.Flows {
			if f := r.Flows[k]; f.Done && f.FCT() > 0 {
				fct = append(fct, f.FCT().Microseconds())
			}
		}
		if len(fct) == 0 {
			continue
		}
		have = true
		slices.Sort(fct)
		lo, hi = math.Min(lo, fct[0]), math.Max(hi, fct[len(fct)-1])
		l, err := cdfLine(cdfXYs(fct), i, nil)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", labels[i], err)
		}
		p.Add(l)
		p.Legend.Add(fmt.Sprintf("%s (n=%d)", labels[i], len(fct)), l)
	}
	if !have {
		return nil, nil
	}
	setLogX(p, lo, hi, fmtMicros)
	p.Y.Min, p.Y.Max = 0, 1
	p.Y.Tick.Marker = linTicks{}
	return p, nil
}

// runQueueCDFs returns a run's queue-length distributions: its classes,
// the CDF and the p99 of class k; from the samples (queue.csv, classified
// by classify), else as the run wrote them (queue_cdf.csv, its own
// classes); none when the run has neither.
func runQueueCDFs(r *Run, classify func(node, port int) string) ([]string, func(k int) []metrics.CDFPoint, func(k int) int64) {
	if q := r.QueueCDFs(classify); q != nil {
		classes := q.Labels()
		return classes, func(k int) []metrics.CDFPoint { return q.CDF(classes[k]) },
			func(k int) int64 { return q.Stats(classes[k]).P99 }
	}
	if q := r.QueueCDF; q != nil {
		return q.Classes, func(k int) []metrics.CDFPoint { return q.Points[k] }, q.P99
	}
	return nil, nil, nil
}

// queueCDFPlot draws the CDF of queue lengths per run and port class
// (sampled, or as written in queue_cdf.csv); nil when no run has either.
func queueCDFPlot(runs []*Run, labels []string, classify func(node, port int) string, title string) (*plot.Plot, error) {
	p := newPlot(title, "queue length (KB)", "fraction of samples")
	hi := 0.0
	have := false
	for i, r := range runs {
		classes, cdfOf, p99Of := runQueueCDFs(r, classify)
		for c, class := range classes {
			cdf := cdfOf(c)
			if len(cdf) == 0 {
				continue
			}
			have = true
			// Thin to about maxCDFPoints, keeping the last point.
			step := max(1, (len(cdf)+maxCDFPoints-1)/maxCDFPoints)
			var xys plotter.XYs
			for k := 0; k < len(cdf); k += step {
				xys = append(xys, plotter.XY{X: float64(cdf[k].UpperBytes) / 1e3, Y: cdf[k].Fraction})
			}
			if last := len(cdf) - 1; last%step != 0 {
				xys = append(xys, plotter.XY{X: float64(cdf[last].UpperBytes) / 1e3, Y: 1})
			}
			hi = math.Max(hi, xys[len(xys)-1].X)
			var dashes []vg.Length
			if c > 0 {
				dashes = plotutil.Dashes(c)
			}
			l, err := cdfLine(xys, i, dashes)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", labels[i], err)
			}
			p.Add(l)
			name := labels[i]
			if classify != nil || len(classes) > 1 {
				name += ": " + class
			}
			p.Legend.Add(fmt.Sprintf("%s (p99 %s KB)", name, fmtKB(p99Of(c))), l)
		}
	}
	if !have {
		return nil, nil
	}
	p.X.Min, p.X.Max = 0, math.Max(hi*1.02, 1)
	p.X.Tick.Marker = linTicks{}
	p.Y.Min, p.Y.Max = 0, 1
	p.Y.Tick.Marker = linTicks{}
	return p, nil
}
