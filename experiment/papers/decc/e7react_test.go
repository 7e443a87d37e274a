package decc

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/metrics"
	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/scenario/assemble"
	"github.com/ccsim/ccsim/sim"
)

// The reaction rule on a hand-made run of the 16-node star (stop 0.2 ms):
// two long flows, three short ones. Short flow A (start 10 µs) makes long
// flow 0 cut its rate to 300 Gb/s 0.5 RTT after A reaches the switch, and
// long flow 1 (window-limited) trim its window by 5 % (not a reaction)
// and halve it 2 RTTs after; at short flow B (30 µs) flow 0 never drops
// again (censored at 10 RTTs) and flow 1 cuts its window to 0.4 of the
// window 1 RTT after; short flow C (190 µs) arrives within 10 RTTs of the
// end and is left out. Mean (0.5 + 2 + 10 + 1) / 4, share 3/4.
func TestMeasureReactionHand(t *testing.T) {
	s, err := scenario.Load(filepath.Join("..", "..", "..", "scenarios", "papers", "decc", "star16.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s.StopMs = 0.2
	g, err := assemble.Graph(s)
	if err != nil {
		t.Fatal(err)
	}
	rtt, _ := g.MaxRTT(s.Host.PayloadBytes)
	us := func(x float64) sim.Time { return sim.Time(x * float64(sim.Microsecond)) }
	lead := us(1) + sim.TxTime(1024+48, 400e9)
	at := func(start sim.Time, rtts float64) sim.Time { return start + lead + sim.Time(rtts*float64(rtt)) }
	flows := []metrics.FlowRecord{
		{ID: 0, Src: 1, Dst: 0, SizeBytes: streamBytes},
		{ID: 1, Src: 2, Dst: 0, SizeBytes: streamBytes},
		{ID: 2, Src: 3, Dst: 0, SizeBytes: 65536, Start: us(10)},
		{ID: 3, Src: 4, Dst: 0, SizeBytes: 65536, Start: us(30)},
		{ID: 4, Src: 5, Dst: 0, SizeBytes: 65536, Start: us(190)},
	}
	w := int64(math.Round(400e9 / 8 * rtt.Seconds())) // one BDP: a limit of ≈ 400 Gb/s
	type row struct {
		f      int
		t      sim.Time
		bps, w int64
	}
	rows := []row{
		{0, 0, 400e9, 0}, {1, 0, 400e9, 0}, {1, 0, 400e9, w},
		{1, at(us(10), 0.25), 400e9, w * 95 / 100},
		{0, at(us(10), 0.5), 300e9, 0},
		{1, at(us(10), 2), 400e9, w / 2},
		{1, at(us(30), 1), 400e9, w * 2 / 10},
	}
	dir := t.TempDir()
	fh, err := os.Create(filepath.Join(dir, "flows.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if err := metrics.WriteFlowsCSV(fh, flows); err != nil {
		t.Fatal(err)
	}
	fh.Close()
	b := []byte("flow_id,time_ns,rate_bps,window_bytes\n")
	for _, r := range rows {
		b = strconv.AppendInt(b, int64(r.f), 10)
		b = append(b, ',')
		b = metrics.AppendNs(b, r.t)
		b = append(b, ',')
		b = strconv.AppendInt(b, r.bps, 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, r.w, 10)
		b = append(b, '\n')
	}
	if err := os.WriteFile(filepath.Join(dir, "rate_trace.csv"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	x, err := measureReaction(&experiment.RunRef{Dir: dir, Scenario: s})
	if err != nil {
		t.Fatal(err)
	}
	if x.pairs != 4 || x.share != 0.75 || math.Abs(x.meanRTTs-13.5/4) > 1e-9 {
		t.Errorf("pairs %d, share %g, mean %.12g RTT; want 4, 0.75, 3.375", x.pairs, x.share, x.meanRTTs)
	}
	if reactCensored(experiment.Sample{100, 100}) || !reactCensored(experiment.Sample{100, 75}) {
		t.Error("reactCensored")
	}
}
