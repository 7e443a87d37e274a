package dcqcnp

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/metrics"
	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/sim"
)

// resolve resolves spec under reading rd (its patch merged last, as the
// machinery does).
func resolve(t *testing.T, spec experiment.RunSpec, rd experiment.Reading, sc experiment.Scale) *experiment.Resolved {
	t.Helper()
	p, err := experiment.Lookup("dcqcn-p")
	if err != nil {
		t.Fatal(err)
	}
	st, err := experiment.OpenStore(t.TempDir(), p)
	if err != nil {
		t.Fatal(err)
	}
	if rd.Patch != nil {
		spec.Patch = experiment.Merge(spec.Patch, rd.Patch(sc))
	}
	r, err := st.Resolve(spec)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// readingScenario is the resolved scenario of e's first run at paper scale
// under the reading with id (what the checks derive from).
func readingScenario(t *testing.T, e *experiment.Experiment, id string) *scenario.Scenario {
	t.Helper()
	for _, rd := range e.Readings {
		if rd.ID == id {
			return resolve(t, e.Runs(experiment.ScalePaper)[0], rd, experiment.ScalePaper).Scenario
		}
	}
	t.Fatalf("no reading %s", id)
	return nil
}

// Censored flows: a sender with an unfinished QP counts censored at the
// run's end (FCT = end − start), not as 0 (before: FCT 0, plotted as the
// fastest sender and dropped from the statistics).
func TestSenderFlowsCensored(t *testing.T) {
	ms := sim.Millisecond
	recs := []metrics.FlowRecord{
		{ID: 0, Src: 5, SizeBytes: 100, Start: 0, Finish: 2 * ms, Done: true},
		{ID: 1, Src: 5, SizeBytes: 100, Start: 0},
		{ID: 2, Src: 6, SizeBytes: 100, Start: ms, Finish: 3 * ms, Done: true},
		{ID: 3, Src: 6, SizeBytes: 50, Start: ms, Finish: 4 * ms, Done: true},
	}
	snd := senderFlows(recs, 10*ms)
	if len(snd) != 2 || snd[0].Src != 5 || snd[0].FCT != 10*ms || !snd[0].Censored || snd[0].Bytes != 200 {
		t.Errorf("sender 5: %+v, want FCT 10 ms, censored, 200 B", snd[0])
	}
	if snd[1].FCT != 3*ms || snd[1].Censored || snd[1].Done() != 4*ms {
		t.Errorf("sender 6: %+v, want FCT 3 ms, not censored, done at 4 ms", snd[1])
	}
	if n := censored(snd); n != 1 {
		t.Errorf("censored = %d, want 1", n)
	}
}

// Correction E2-a: the paper's maximum RTT and BDP are the setup's
// constants. The checks derive them from each reading's topology: 4,654 ns
// needs two 25 Gb/s hosts (mix, mix1), the receiver alone on 25 Gb/s gives
// 4,408 (rx25, qp4000: inconsistent). The claim takes the topology's
// constant, whatever RTT the run measured (before: n/a, with the measured
// 9.58 ms of a PFC-bound queue).
func TestE2SetupConstants(t *testing.T) {
	e := e2()
	want := map[string][3]float64{"mix": {4654, 52025, 972.89}, "mix1": {4654, 52025, 972.89}, "rx25": {4408, 52025, 972.89}, "qp4000": {4408, 52025, 972.89}}
	for id, w := range want {
		s := readingScenario(t, e, id)
		for i, c := range e.Checks {
			got, err := c.Derive(s)
			if err != nil || math.Abs(got-w[i]) > 1e-9 {
				t.Errorf("reading %s, check %s: %v (%v), want %v", id, c.ID, got, err, w[i])
			}
		}
	}
	if e.Runs(experiment.ScalePaper)[0].Patch["host"].(map[string]any)["payload_bytes"] != 256 {
		t.Errorf("the checks derive from the first run (PMTU 256) and must fix the payload at 1,024")
	}
	// a run that measured a 9.753 ms maximum RTT
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "summary.json"), []byte(`{"rtt": {"max_us": 9753, "p99_us": 9000}, "sim_end_ns": 1e9}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var recs []metrics.FlowRecord
	for i := range 80 {
		sz := paperSizes(1)[i].(int64)
		recs = append(recs, metrics.FlowRecord{ID: i, Src: i, Dst: 80, SizeBytes: sz, Finish: sim.Time(sz) * sim.Microsecond / 1000, Done: true})
	}
	var b bytes.Buffer
	if err := metrics.WriteFlowsCSV(&b, recs); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "flows.csv"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	s := readingScenario(t, e, "mix")
	s.Host.PayloadBytes = 1024
	r, err := readE2Run(&experiment.RunRef{Dir: dir, Scenario: s})
	if err != nil {
		t.Fatal(err)
	}
	if r.rttNs != 4654 || r.bdpB != 52025 || r.maxUs != 9753 {
		t.Errorf("run: setup RTT %v, BDP %v, measured max %v µs; want 4654, 52025, 9753", r.rttNs, r.bdpB, r.maxUs)
	}
	ms := e2Measures(experiment.ScalePaper, map[int][]*e2Run{1024: {r}})
	for _, id := range []string{"max-rtt-1024", "max-bdp-1024"} {
		if v := verdict(t, e.Claims, ms, id); v.Holds != experiment.Yes {
			t.Errorf("%s: %s (%s), want yes", id, v.Holds, v.Value)
		}
	}
	// rx25's topology: the same claim fails
	s = readingScenario(t, e, "rx25")
	s.Host.PayloadBytes = 1024
	if r, err = readE2Run(&experiment.RunRef{Dir: dir, Scenario: s}); err != nil {
		t.Fatal(err)
	}
	if v := verdict(t, e.Claims, e2Measures(experiment.ScalePaper, map[int][]*e2Run{1024: {r}}), "max-rtt-1024"); v.Holds != experiment.No {
		t.Errorf("rx25: max-rtt-1024 %s, want no (4,408 ns)", v.Holds)
	}
}

// Correction E2-b: "two groups" means a gap between the sorted FCTs wider
// than either group's own spread, not an invented 10 % spread (which said
// yes to 17 evenly spread FCTs).
func TestE2FCTGroupsGap(t *testing.T) {
	two := []float64{100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 110, 110, 110, 110, 110, 110, 110}
	if gap, sp := fctGroups(two); gap != 10 || sp != 0 {
		t.Errorf("two groups: gap %v, spread %v; want 10, 0", gap, sp)
	}
	var even []float64
	for i := range 17 {
		even = append(even, float64(100+i))
	}
	gap, sp := fctGroups(even)
	if gap != 1 || sp != 15 {
		t.Errorf("evenly spread: gap %v, spread %v; want 1, 15", gap, sp)
	}
	cs := e2Claims()
	ms := map[string]experiment.Measure{"fct-groups": {Values: []experiment.Sample{{gap}, {sp}}}}
	if v := verdict(t, cs, ms, "fct-groups"); v.Holds != experiment.No {
		t.Errorf("evenly spread FCTs: fct-groups %s, want no", v.Holds)
	}
}

// Correction E3-a: 80 flows (one QP per sender) and mixed sender speeds in
// the primary reading; today's setup (4,000 QPs, receiver alone on 25 Gb/s)
// as a reading; E2 and E3 share their readings, so that the DCQCN-p run at
// PMTU 1,024 is one run per reading and seed; E3's DCQCN adds R_AI only
// once a counter is greater than F.
func TestE3Readings(t *testing.T) {
	e := e3()
	var ids []string
	for _, rd := range e.Readings {
		ids = append(ids, rd.ID)
		if rd.Primary != (rd.ID == "mix") || rd.Why == "" {
			t.Errorf("reading %s: primary %v, why %q", rd.ID, rd.Primary, rd.Why)
		}
	}
	if strings.Join(ids, " ") != "mix mix1 rx25 qp4000" {
		t.Errorf("readings %v", ids)
	}
	for i, c := range e.Checks {
		if c.ID != []string{"max-rtt", "max-bdp", "total-mib"}[i] {
			t.Errorf("check %d: %s", i, c.ID)
		}
	}
	for _, c := range []struct {
		reading  string
		qps, n25 int
	}{{"mix", 1, 41}, {"mix1", 1, 2}, {"rx25", 1, 1}, {"qp4000", 50, 1}} {
		s := readingScenario(t, e, c.reading)
		g, err := hostGbps(s)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, v := range g {
			if v == 25 {
				n++
			}
		}
		if s.Workload.Incast.QPsPerSender != c.qps || n != c.n25 {
			t.Errorf("%s: %d QPs per sender, %d hosts at 25 Gb/s; want %d, %d", c.reading, s.Workload.Incast.QPsPerSender, n, c.qps, c.n25)
		}
	}
	find := func(specs []experiment.RunSpec, key string) experiment.RunSpec {
		for _, s := range specs {
			if s.Key == key {
				return s
			}
		}
		t.Fatalf("no run %s", key)
		return experiment.RunSpec{}
	}
	for _, rd := range e.Readings {
		a := resolve(t, find(e2Runs(experiment.ScalePaper), "pmtu=1024 cc=dcqcnp seed=2"), rd, experiment.ScalePaper)
		b := resolve(t, find(e3Runs(experiment.ScalePaper), "cc=dcqcnp seed=2"), rd, experiment.ScalePaper)
		if a.Hash != b.Hash {
			t.Errorf("reading %s: E2's PMTU-1024 run and E3's DCQCN-p run differ", rd.ID)
		}
	}
	primary := e.Readings[0]
	dq := resolve(t, find(e3Runs(experiment.ScalePaper), "cc=dcqcn seed=1"), primary, experiment.ScalePaper)
	if !bytes.Contains(dq.YAML, []byte("ai_threshold_strict: true")) {
		t.Errorf("E3's DCQCN: ai_threshold_strict not set")
	}
	// the floor sensitivity runs the primary reading only: its 100 Mb/s
	// runs are E3's primary runs
	fl := resolve(t, find(e3FloorRuns(experiment.ScalePaper), "floor=100 cc=dcqcnp seed=3"), experiment.Reading{}, experiment.ScalePaper)
	if e3 := resolve(t, find(e3Runs(experiment.ScalePaper), "cc=dcqcnp seed=3"), primary, experiment.ScalePaper); fl.Hash != e3.Hash {
		t.Errorf("e3floor's 100 Mb/s run is not E3's primary run")
	}
	if len(e3floor().Readings) != 0 || len(e3floor().Claims) != 0 {
		t.Errorf("e3floor: readings or claims declared")
	}
}

// Correction E3-b: the minimum rate is taken only over windows while at
// least 2 senders are unfinished (before: every window up to the last
// completion, so that a window carrying the last QP's last packets set it).
func TestE3MinRateLoaded(t *testing.T) {
	var bins []linkBin
	for s := 100e3; s < 1000e3; s += 100e3 {
		g := 25.0
		if s >= 900e3 {
			g = 0.008
		}
		bins = append(bins, linkBin{Start: s, Len: 100e3, WireG: g})
	}
	us := sim.Microsecond
	var snd []senderFlow
	for i := range 78 {
		snd = append(snd, senderFlow{Src: i, FCT: sim.Time(600+i) * us})
	}
	snd = append(snd, senderFlow{Src: 78, FCT: 800 * us}, senderFlow{Src: 79, FCT: 1000 * us})
	if got := loadedEnd(snd); got != 800e3 {
		t.Errorf("loadedEnd = %v ns, want 800000", got)
	}
	if got, _ := minRate(bins, 100e3, 1000e3); got != 0.008 {
		t.Errorf("to the last completion: %v, want 0.008", got)
	}
	if got, at := minRate(bins, 100e3, loadedEnd(snd)); got != 25 || at != 100e3 {
		t.Errorf("loaded: %v Gb/s at %v ns, want 25 at 100000", got, at)
	}
	if got, _ := minRate(bins, 100e3, 150e3); !math.IsNaN(got) {
		t.Errorf("no whole window: %v, want NaN", got)
	}
}

// Correction E3-c: fairness is the CoV of each flow's throughput over the
// whole run (bytes / FCT), not over the window before the first completion
// where PFC's round robin sets equal shares. Ideal sharing of the link
// gives the paper's sizes 159.3 % (and 0 normalised by the fair share).
func TestE3FairnessWholeRun(t *testing.T) {
	s := mixScenario(t)
	ps, err := idealFCTs(s)
	if err != nil {
		t.Fatal(err)
	}
	for src, want := range map[int]float64{20: 134.0, 3: 167.5, 0: 308.2, 1: 341.7} {
		if math.Abs(ps[src]/1e6-want) > 0.05 {
			t.Errorf("ideal FCT of sender %d: %.2f ms, want %.1f", src, ps[src]/1e6, want)
		}
	}
	var snd []senderFlow
	for i, b := range paperSizes(1) {
		snd = append(snd, senderFlow{Src: i, Bytes: b.(int64), FCT: sim.Time(math.Round(ps[i])) * sim.Nanosecond})
	}
	raw, ideal, norm := fairness(snd, ps)
	if math.Abs(raw-159.3) > 0.05 || math.Abs(ideal-159.3) > 0.05 || norm > 1e-6 {
		t.Errorf("ideal sharing: raw %v, ideal %v, normalised %v; want 159.3, 159.3, 0", raw, ideal, norm)
	}
	snd[1].FCT *= 2
	snd[2].FCT *= 2
	if raw2, _, norm2 := fairness(snd, ps); norm2 <= 1 || raw2 >= raw {
		t.Errorf("the 200 MB flows at half their share: raw %v (want below %v: the literal metric rewards it), normalised %v (want > 1)", raw2, raw, norm2)
	}
}

func mixScenario(t *testing.T) *scenario.Scenario {
	t.Helper()
	return readingScenario(t, e3(), "mix")
}

// Correction E3-d: congestion events are rate decreases, not CNPs (one CNP
// per marked packet for DCQCN-p made "more events" certain). Today's
// quick-scale runs: DCQCN-p 641 CNPs and 258 cuts, DCQCN 496 and 496.
func TestE3EventsAreRateCuts(t *testing.T) {
	res := map[string][]*e3Result{"dcqcnp": {{cnps: 641, cuts: 258}}, "dcqcn": {{cnps: 496, cuts: 496}}}
	ms := e3Measures(res)
	m := ms["events"]
	if m.Values[0][0] != 258 || m.Values[1][0] != 496 || m.Mag[0][0] != -238 {
		t.Errorf("events: %v, magnitude %v; want [258] [496], −238", m.Values, m.Mag)
	}
	if v := verdict(t, e3Claims(), ms, "events"); v.Statement != experiment.No {
		t.Errorf("events: statement %s, want no", v.Statement)
	}
	res = map[string][]*e3Result{"dcqcnp": {{cuts: 103}, {cuts: 99}}, "dcqcn": {{cuts: 100}, {cuts: 97}}}
	if v := verdict(t, e3Claims(), e3Measures(res), "events"); v.Holds != experiment.Yes {
		t.Errorf("+3, +2 over two seeds: %s (%s), want yes", v.Holds, v.Why)
	}
}

// Correction E3-f: the incast completion times of Table 4 are impossible
// as completion times: the bytes need ≥ 326.4 ms through 25 Gb/s.
func TestE3TransferFloor(t *testing.T) {
	pay, wire, err := transferFloor(mixScenario(t))
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(pay/1e6-326.4) > 0.05 || math.Abs(wire/1e6-341.7) > 0.05 {
		t.Errorf("transfer floor %.2f ms (%.2f with headers), want 326.4 (341.7)", pay/1e6, wire/1e6)
	}
}

// Claims typed as the paper states them: Table 4's entries the text never
// states are numbers (n/a); those it states are magnitudes; the text's
// comparisons are directions, with the ratio it prints as a magnitude.
func TestE3ClaimKinds(t *testing.T) {
	want := map[string]string{}
	for _, id := range []string{"minrate-dcqcn", "minrate-timely", "minrate-dctcp", "avgtput-dcqcn", "avgtput-timely", "avgtput-dctcp", "avgtput-dcqcnp", "ict-dcqcn", "ict-timely", "ict-dctcp"} {
		want[id] = "number"
	}
	for _, id := range []string{"cov-dcqcn", "cov-timely", "cov-dctcp", "cov-dcqcnp", "minrate-dcqcnp", "ict-dcqcnp"} {
		want[id] = "magnitude value"
	}
	for _, id := range []string{"minrate-vs-dcqcn", "minrate-vs-timely", "minrate-vs-dctcp", "events"} {
		want[id] = "direction value"
	}
	for _, id := range []string{"cov-vs-timely", "cov-vs-dctcp", "fairer-than-dcqcn", "ict-vs-dcqcn", "ict-vs-dctcp", "ict-vs-timely"} {
		want[id] = "direction "
	}
	cs := e3Claims()
	if len(cs) != len(want) {
		t.Errorf("%d claims, want %d", len(cs), len(want))
	}
	for _, c := range cs {
		got := c.Kind.String()
		if c.Kind != experiment.Number {
			got += " " + c.Mag.String()
		}
		if got != want[c.ID] {
			t.Errorf("%s: %q, want %q", c.ID, got, want[c.ID])
		}
	}
}

// Section 6 of issue 16: at quick scale the setup texts and labels
// describe the quick run.
func TestSetupAtScale(t *testing.T) {
	q, p := e3Setup(experiment.ScaleQuick), e3Setup(experiment.ScalePaper)
	for _, c := range []struct {
		text, has, not string
	}{
		{q, "150 KB", "150 MB"}, {q, "10 µs windows", "100 µs windows"}, {q, "5 QPs per sender", "50 QPs per sender"},
		{p, "150 MB", "150 KB"}, {p, "100 µs windows", "10 µs windows"}, {p, "972.89 MiB", "÷"},
		{e1Setup(experiment.ScaleQuick), "one seed", "3 seeds"}, {e1Setup(experiment.ScalePaper), "3 seeds", "one seed"},
	} {
		if !strings.Contains(c.text, c.has) || strings.Contains(c.text, c.not) {
			t.Errorf("setup should say %q and not %q:\n%s", c.has, c.not, c.text)
		}
	}
	if sizeLabel(experiment.ScaleQuick, 10_000_000) != "10 KB" || sizeLabel(experiment.ScalePaper, 10_000_000) != "10 MB" {
		t.Errorf("sizeLabel")
	}
}
