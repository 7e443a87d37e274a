package metrics

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/sim"
)

// seq returns [1, 2, ..., n] as float64.
func seq(n int) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = float64(i + 1)
	}
	return xs
}

// same reports a == b, treating NaN as equal to NaN.
func same(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }

func TestPercentile(t *testing.T) {
	tests := []struct {
		name string
		xs   []float64
		p    float64
		want float64
	}{
		{"n100 p99 -> index 99", seq(100), 0.99, 100},
		{"n100 p50 -> index 50", seq(100), 0.50, 51},
		{"n100 p0", seq(100), 0, 1},
		{"n100 p1 clamped", seq(100), 1, 100},
		{"n100 p0.29 float floor like python", seq(100), 0.29, 29}, // 100*0.29 = 28.999999999999996
		{"n20 p50 -> index 10", seq(20), 0.5, 11},
		{"n20 p95 -> index 19", seq(20), 0.95, 20},
		{"n20 p99 -> index 19", seq(20), 0.99, 20},
		{"n3 p50 -> index 1", []float64{10, 20, 30}, 0.5, 20},
		{"n1", []float64{7}, 0.99, 7},
		{"negative p clamps", seq(5), -0.5, 1},
		{"p>1 clamps", seq(5), 2, 5},
		{"empty", nil, 0.5, math.NaN()},
		{"NaN p", seq(5), math.NaN(), math.NaN()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Percentile(tc.xs, tc.p); !same(got, tc.want) {
				t.Errorf("Percentile = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestPercentileOfSortsCopy(t *testing.T) {
	xs := []float64{5, 1, 4, 2, 3}
	if got := PercentileOf(xs, 0.5); got != 3 {
		t.Errorf("PercentileOf = %v, want 3", got)
	}
	if !reflect.DeepEqual(xs, []float64{5, 1, 4, 2, 3}) {
		t.Errorf("input modified: %v", xs)
	}
	if got := PercentileOf(nil, 0.5); !math.IsNaN(got) {
		t.Errorf("PercentileOf(nil) = %v, want NaN", got)
	}
}

func TestSummarize(t *testing.T) {
	tests := []struct {
		name string
		xs   []float64
		want Dist
	}{
		{"empty", nil, Dist{}},
		{"one", []float64{3}, Dist{N: 1, Mean: 3, P50: 3, P95: 3, P99: 3, Max: 3, Min: 3}},
		{"unsorted 4", []float64{4, 1, 3, 2}, Dist{N: 4, Mean: 2.5, P50: 3, P95: 4, P99: 4, Max: 4, Min: 1}},
		{"1..100", seq(100), Dist{N: 100, Mean: 50.5, P50: 51, P95: 96, P99: 100, Max: 100, Min: 1}},
		{"1..20", seq(20), Dist{N: 20, Mean: 10.5, P50: 11, P95: 20, P99: 20, Max: 20, Min: 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Summarize(tc.xs); got != tc.want {
				t.Errorf("Summarize = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestJain(t *testing.T) {
	tests := []struct {
		name string
		xs   []float64
		want float64
	}{
		{"equal", []float64{1, 1, 1, 1}, 1},
		{"one has all", []float64{1, 0, 0, 0}, 0.25},
		{"one has all of 2", []float64{0, 5}, 0.5},
		{"1 2 3", []float64{1, 2, 3}, 36.0 / 42.0},
		{"empty", nil, 0},
		{"all zero", []float64{0, 0, 0}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Jain(tc.xs); got != tc.want {
				t.Errorf("Jain = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestFlowRecordSlowdown(t *testing.T) {
	us := sim.Microsecond
	tests := []struct {
		name  string
		start sim.Time
		fin   sim.Time
		ideal sim.Time
		fct   sim.Time
		want  float64
	}{
		{"faster than ideal clamps to 1", 10 * us, 15 * us, 10 * us, 5 * us, 1},
		{"equal to ideal", 0, 10 * us, 10 * us, 10 * us, 1},
		{"twice ideal", 1 * us, 21 * us, 10 * us, 20 * us, 2},
		{"2.5x", 0, 25 * us, 10 * us, 25 * us, 2.5},
		{"ideal zero", 0, 25 * us, 0, 25 * us, math.NaN()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := FlowRecord{Start: tc.start, Finish: tc.fin, IdealFCT: tc.ideal, Done: true}
			if got := r.FCT(); got != tc.fct {
				t.Errorf("FCT = %v, want %v", got, tc.fct)
			}
			if got := r.Slowdown(); !same(got, tc.want) {
				t.Errorf("Slowdown = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestAppendNs(t *testing.T) {
	tests := []struct {
		t    sim.Time
		want string
	}{
		{0, "0"},
		{1, "0.001"},
		{10, "0.01"},
		{100, "0.1"},
		{999, "0.999"},
		{1000, "1"},
		{1502758500, "1502758.5"},
		{1502758520, "1502758.52"},
		{1502758521, "1502758.521"},
		{2 * sim.Second, "2000000000"},
		{-1500, "-1.5"},
		{-1000, "-1"},
		{sim.Time(math.MinInt64), "-9223372036854775.808"},
		{sim.Never, "9223372036854775.807"},
	}
	for _, tc := range tests {
		if got := string(AppendNs(nil, tc.t)); got != tc.want {
			t.Errorf("AppendNs(%d) = %q, want %q", int64(tc.t), got, tc.want)
		}
	}
}

func TestWriteFlowsCSV(t *testing.T) {
	recs := []FlowRecord{
		{ID: 7, Src: 1, Dst: 2, SizeBytes: 10000000, Start: 2 * sim.Second,
			Finish: 2*sim.Second + 1502758500, IdealFCT: 842560 * sim.Nanosecond, Done: true},
		{ID: 3, Src: 4, Dst: 5, SizeBytes: 1000, Start: 1500, IdealFCT: 2001, Done: false},
		{ID: 8, Src: 0, Dst: 9, SizeBytes: 1, Start: 0, Finish: 500, IdealFCT: 1000, Done: true},
	}
	want := FlowsCSVHeader + "\n" +
		"7,1,2,10000000,2000000000,2001502758.5,1502758.5,842560,1.783563\n" +
		"3,4,5,1000,1.5,,,2.001,\n" +
		"8,0,9,1,0,0.5,0.5,1,1.000000\n"
	var b bytes.Buffer
	if err := WriteFlowsCSV(&b, recs); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != want {
		t.Errorf("WriteFlowsCSV =\n%s\nwant\n%s", got, want)
	}
	if FlowsCSVHeader != "flow_id,src,dst,size_bytes,start_ns,finish_ns,fct_ns,ideal_fct_ns,slowdown" {
		t.Errorf("header changed: %q", FlowsCSVHeader)
	}
}

func TestRefIP(t *testing.T) {
	tests := []struct {
		node int
		want uint32
	}{
		{0, 0x0b000001},
		{1, 0x0b000101},
		{255, 0x0b00ff01},
		{256, 0x0b010001},
		{300, 0x0b012c01},
	}
	for _, tc := range tests {
		if got := RefIP(tc.node); got != tc.want {
			t.Errorf("RefIP(%d) = %08x, want %08x", tc.node, got, tc.want)
		}
	}
}

func TestWriteReadRefFCT(t *testing.T) {
	ns := sim.Nanosecond
	recs := []FlowRecord{
		{ID: 2, Src: 1, Dst: 300, SPort: 10000, DPort: 100, SizeBytes: 10000000,
			Start: 2000000000 * ns, Finish: (2000000000 + 16948023) * ns, IdealFCT: 842560 * ns, Done: true},
		{ID: 9, Src: 5, Dst: 6, SizeBytes: 5, Start: 1 * ns, Done: false},
		// Same finish as ID 2 but lower ID: must come first. Sub-ns parts truncate.
		{ID: 1, Src: 0, Dst: 256, SPort: 10001, DPort: 100, SizeBytes: 10000000,
			Start: 2000000000*ns + 999, Finish: (2000000000 + 16948023) * ns, IdealFCT: 842560*ns + 1, Done: true},
		{ID: 3, Src: 2, Dst: 3, SPort: 10002, DPort: 200, SizeBytes: 1000,
			Start: 2000000000 * ns, Finish: (2000000000 + 14651330) * ns, IdealFCT: 842560 * ns, Done: true},
	}
	want := "0b000201 0b000301 10002 200 1000 2000000000 14651330 842560\n" +
		"0b000001 0b010001 10001 100 10000000 2000000000 16948022 842560\n" +
		"0b000101 0b012c01 10000 100 10000000 2000000000 16948023 842560\n"
	var b bytes.Buffer
	if err := WriteRefFCT(&b, recs, RefIP); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != want {
		t.Fatalf("WriteRefFCT =\n%s\nwant\n%s", got, want)
	}
	lines, err := ReadRefFCT(strings.NewReader(b.String() + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	wantLines := []RefFCTLine{
		{0x0b000201, 0x0b000301, 10002, 200, 1000, 2000000000, 14651330, 842560},
		{0x0b000001, 0x0b010001, 10001, 100, 10000000, 2000000000, 16948022, 842560},
		{0x0b000101, 0x0b012c01, 10000, 100, 10000000, 2000000000, 16948023, 842560},
	}
	if !reflect.DeepEqual(lines, wantLines) {
		t.Errorf("ReadRefFCT = %+v, want %+v", lines, wantLines)
	}
	if got, want := lines[2].Slowdown(), 16948023.0/842560.0; got != want {
		t.Errorf("RefFCTLine.Slowdown = %v, want %v", got, want)
	}
	r := lines[2].Record(42)
	wantRec := FlowRecord{ID: 42, SPort: 10000, DPort: 100, SizeBytes: 10000000,
		Start: 2000000000 * ns, Finish: (2000000000 + 16948023) * ns, IdealFCT: 842560 * ns, Done: true}
	if r != wantRec {
		t.Errorf("Record = %+v, want %+v", r, wantRec)
	}
}

func TestReadRefFCTErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"too few fields", "0b000001 0b000101 1 2 3 4 5\n", "metrics: fct line 1: want 8 fields, got 7"},
		{"bad hex", "\nzz000001 0b000101 1 2 3 4 5 6\n", "metrics: fct line 2: strconv.ParseUint: parsing \"zz000001\": invalid syntax"},
		{"bad int", "0b000001 0b000101 1 2 3 4 x 6\n", "metrics: fct line 1: strconv.ParseInt: parsing \"x\": invalid syntax"},
		{"ip too wide", "1ffffffff 0b000101 1 2 3 4 5 6\n", "metrics: fct line 1: strconv.ParseUint: parsing \"1ffffffff\": value out of range"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadRefFCT(strings.NewReader(tc.in))
			if err == nil || err.Error() != tc.want {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestWriteRefPFC(t *testing.T) {
	evs := []PFCEvent{
		{At: 2000001234567, Node: 130, IsSwitch: true, Port: 3, Pause: true},
		{At: 2000002000000, Node: 130, IsSwitch: true, Port: 3, Pause: false},
		{At: 5 * sim.Nanosecond, Node: 7, IsSwitch: false, Port: 1, Pause: true},
	}
	want := "2000001234 130 1 3 1\n2000002000 130 1 3 0\n5 7 0 1 1\n"
	var b bytes.Buffer
	if err := WriteRefPFC(&b, evs); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != want {
		t.Errorf("WriteRefPFC =\n%s\nwant\n%s", got, want)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("boom") }

func TestWritersReturnErrors(t *testing.T) {
	recs := []FlowRecord{{ID: 1, Done: true, IdealFCT: 1}}
	for name, err := range map[string]error{
		"csv":  WriteFlowsCSV(failWriter{}, recs),
		"fct":  WriteRefFCT(failWriter{}, recs, RefIP),
		"pfc":  WriteRefPFC(failWriter{}, []PFCEvent{{}}),
		"bins": WriteSizeBins(failWriter{}, []SizeBin{{}}),
	} {
		if err == nil || err.Error() != "boom" {
			t.Errorf("%s: err = %v, want boom", name, err)
		}
	}
}

// refRecords builds the three reference fct.txt lines of the brief.
func refRecords() []FlowRecord {
	ns := sim.Nanosecond
	var recs []FlowRecord
	for i, fct := range []sim.Time{14651330, 16948023, 16992677} {
		recs = append(recs, FlowRecord{ID: i, SizeBytes: 10000000, Start: 2000000000 * ns,
			Finish: (2000000000 + fct) * ns, IdealFCT: 842560 * ns, Done: true})
	}
	return recs
}

func TestSummarizeFlowsReference(t *testing.T) {
	recs := refRecords()
	// Reverse order must not change anything.
	rev := []FlowRecord{recs[2], recs[1], recs[0]}
	// Values computed independently in Python with the same float64
	// operations (FCT us = fct_ns/1000 summed ascending, / 3).
	wantFCT := Dist{N: 3, Mean: 16197.343333333332, P50: 16948.023, P95: 16992.677, P99: 16992.677, Max: 16992.677, Min: 14651.33}
	wantSD := Dist{N: 3, Mean: 19.223964267628812, P50: 20.114915258260538, P95: 20.16791326433726,
		P99: 20.16791326433726, Max: 20.16791326433726, Min: 17.389064280288643}
	want := FCTSummary{
		Flows: 3, Finished: 3, Unfinished: 0, End: NoCensoring,
		FirstStart: 2 * sim.Second, LastFinish: 2016992677 * sim.Nanosecond,
		FirstStartNs: 2000000000, LastFinishNs: 2016992677, SimSpanUs: 16992.677,
		BytesFinished: 30000000, MeanSendingRateGbps: 4.939081573665476,
		FinishTime: 16992677 * sim.Nanosecond, FinishTimeUs: 16992.677,
		All:   FlowGroup{N: 3, Slowdown: wantSD, FCTUs: wantFCT},
		Large: FlowGroup{N: 3, Slowdown: wantSD, FCTUs: wantFCT},
	}
	for name, in := range map[string][]FlowRecord{"forward": recs, "reverse": rev} {
		if got := SummarizeFlows(in, NoCensoring); got != want {
			t.Errorf("%s: SummarizeFlows =\n%+v\nwant\n%+v", name, got, want)
		}
	}
	if got := SummarizeFlows(recs, NoCensoring).All.FCTUs.Mean; got != 16197.343333333332 {
		t.Errorf("mean_fct_us = %v", got)
	}

	js, err := json.Marshal(SummarizeFlows(recs, NoCensoring))
	if err != nil {
		t.Fatal(err)
	}
	group := `{"n":3,"censored":0,"mean_sd":19.223964267628812,"p50_sd":20.114915258260538,"p95_sd":20.16791326433726,` +
		`"p99_sd":20.16791326433726,"max_sd":20.16791326433726,"mean_fct_us":16197.343333333332,` +
		`"p50_fct_us":16948.023,"p95_fct_us":16992.677,"p99_fct_us":16992.677,"max_fct_us":16992.677}`
	wantJS := `{"flows_in_file":3,"finished":3,"unfinished":0,"censored":0,"first_start_ns":2000000000,` +
		`"last_finish_ns":2016992677,"sim_span_us":16992.677,"bytes_finished":30000000,` +
		`"mean_sending_rate_gbps":4.939081573665476,"finish_time_us":16992.677,` +
		`"all":` + group + `,"small_lt100KB":{"n":0,"censored":0},"mid_100KB_1MB":{"n":0,"censored":0},"large_gt1MB":` + group + `}`
	if string(js) != wantJS {
		t.Errorf("JSON =\n%s\nwant\n%s", js, wantJS)
	}

	// Decoding gives back the groups (without Min, which is not encoded).
	var back FCTSummary
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatal(err)
	}
	wantBack := want.All
	wantBack.Slowdown.Min, wantBack.FCTUs.Min = 0, 0
	if back.All != wantBack || back.Small != (FlowGroup{}) || back.Flows != 3 {
		t.Errorf("decoded = %+v", back)
	}
}

// Unfinished flows are censored at the run's end, not dropped: dropping
// them would favour an algorithm that leaves its slowest flows unfinished.
func TestSummarizeFlowsCensored(t *testing.T) {
	us := sim.Microsecond
	recs := []FlowRecord{
		{ID: 0, SizeBytes: 1000, Start: 0, Finish: 20 * us, IdealFCT: 10 * us, Done: true}, // sd 2
		{ID: 1, SizeBytes: 1000, Start: 10 * us, IdealFCT: 10 * us},                        // censored at 100: fct 90, sd 9
		{ID: 2, SizeBytes: 2000000, Start: 40 * us, IdealFCT: 20 * us},                     // censored: fct 60, sd 3
		{ID: 3, SizeBytes: 1000, Start: 100 * us, IdealFCT: 10 * us},                       // starts at the end: not counted
		{ID: 4, SizeBytes: 1000, NotStarted: true, IdealFCT: 10 * us},                      // chained, never started
	}
	s := SummarizeFlows(recs, 100*us)
	if s.Flows != 5 || s.Finished != 1 || s.Unfinished != 4 || s.Censored != 2 {
		t.Fatalf("counts flows/finished/unfinished/censored = %d/%d/%d/%d, want 5/1/4/2", s.Flows, s.Finished, s.Unfinished, s.Censored)
	}
	wantAll := FlowGroup{N: 3, Censored: 2,
		Slowdown: Dist{N: 3, Mean: 14.0 / 3, P50: 3, P95: 9, P99: 9, Max: 9, Min: 2},
		FCTUs:    Dist{N: 3, Mean: 170.0 / 3, P50: 60, P95: 90, P99: 90, Max: 90, Min: 20}}
	if s.All != wantAll {
		t.Errorf("all = %+v, want %+v", s.All, wantAll)
	}
	if s.Small.N != 2 || s.Small.Censored != 1 || s.Large.N != 1 || s.Large.Censored != 1 || s.Mid.N != 0 {
		t.Errorf("classes small %+v large %+v mid %+v", s.Small, s.Large, s.Mid)
	}
	// rate, bytes and span stay over finished flows
	if s.BytesFinished != 1000 || s.FinishTime != 20*us {
		t.Errorf("bytes %d finish %v, want 1000, 20us", s.BytesFinished, s.FinishTime)
	}
	// the same records without censoring: the finished flow alone
	if f := SummarizeFlows(recs, NoCensoring); f.All.N != 1 || f.All.Slowdown.Max != 2 || f.Censored != 0 {
		t.Errorf("NoCensoring: %+v", f.All)
	}
	bins := SizeBins(recs, 3, 100*us)
	want := []SizeBin{{MaxSizeBytes: 1000, N: 1, P50: 2, P95: 2, P99: 2}, {MaxSizeBytes: 1000, N: 1, Censored: 1, P50: 9, P95: 9, P99: 9},
		{MaxSizeBytes: 2000000, N: 1, Censored: 1, P50: 3, P95: 3, P99: 3}}
	if !reflect.DeepEqual(bins, want) {
		t.Errorf("SizeBins = %+v, want %+v", bins, want)
	}
}

func TestSummarizeFlowsSizeClasses(t *testing.T) {
	us := sim.Microsecond
	mk := func(id int, size int64, fct sim.Time, done bool) FlowRecord {
		return FlowRecord{ID: id, SizeBytes: size, Start: sim.Time(id) * us,
			Finish: sim.Time(id)*us + fct, IdealFCT: 10 * us, Done: done}
	}
	recs := []FlowRecord{
		mk(1, 99999, 20*us, true),     // small, sd 2
		mk(2, 100000, 30*us, true),    // mid (inclusive lower bound), sd 3
		mk(3, 1000000, 40*us, true),   // mid (inclusive upper bound), sd 4
		mk(4, 1000001, 50*us, true),   // large, sd 5
		mk(5, 1, 5*us, true),          // small, sd clamped to 1
		mk(6, 5000000, 100*us, false), // unfinished: left out without censoring
	}
	s := SummarizeFlows(recs, NoCensoring)
	tests := []struct {
		name string
		got  FlowGroup
		want FlowGroup
	}{
		{"all", s.All, FlowGroup{N: 5,
			Slowdown: Dist{N: 5, Mean: 3, P50: 3, P95: 5, P99: 5, Max: 5, Min: 1},
			FCTUs:    Dist{N: 5, Mean: 29, P50: 30, P95: 50, P99: 50, Max: 50, Min: 5}}},
		{"small", s.Small, FlowGroup{N: 2,
			Slowdown: Dist{N: 2, Mean: 1.5, P50: 2, P95: 2, P99: 2, Max: 2, Min: 1},
			FCTUs:    Dist{N: 2, Mean: 12.5, P50: 20, P95: 20, P99: 20, Max: 20, Min: 5}}},
		{"mid", s.Mid, FlowGroup{N: 2,
			Slowdown: Dist{N: 2, Mean: 3.5, P50: 4, P95: 4, P99: 4, Max: 4, Min: 3},
			FCTUs:    Dist{N: 2, Mean: 35, P50: 40, P95: 40, P99: 40, Max: 40, Min: 30}}},
		{"large", s.Large, FlowGroup{N: 1,
			Slowdown: Dist{N: 1, Mean: 5, P50: 5, P95: 5, P99: 5, Max: 5, Min: 5},
			FCTUs:    Dist{N: 1, Mean: 50, P50: 50, P95: 50, P99: 50, Max: 50, Min: 50}}},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("%s = %+v, want %+v", tc.name, tc.got, tc.want)
		}
	}
	if s.Flows != 6 || s.Finished != 5 || s.Unfinished != 1 {
		t.Errorf("counts = %d/%d/%d, want 6/5/1", s.Flows, s.Finished, s.Unfinished)
	}
	if s.FirstStart != 1*us || s.LastFinish != 54*us || s.FinishTime != 50*us {
		t.Errorf("times = %v %v %v, want 1us 54us 50us", s.FirstStart, s.LastFinish, s.FinishTime)
	}
	if s.BytesFinished != 2200001 {
		t.Errorf("BytesFinished = %d, want 2200001", s.BytesFinished)
	}
	// 2200001 B * 8 / 145 us.
	if want := 2200001.0 * 8 / 145e-6 / 1e9; math.Abs(s.MeanSendingRateGbps-want) > 1e-12*want {
		t.Errorf("MeanSendingRateGbps = %v, want %v", s.MeanSendingRateGbps, want)
	}

	empty := SummarizeFlows([]FlowRecord{{Done: false}}, NoCensoring)
	if empty != (FCTSummary{Flows: 1, Unfinished: 1, End: NoCensoring}) {
		t.Errorf("no finished flows: %+v", empty)
	}
	if _, err := json.Marshal(empty); err != nil {
		t.Errorf("marshal empty summary: %v", err)
	}
}

func TestSizeBins(t *testing.T) {
	// 40 flows, sizes 1000..40000 given in reverse order; flow with size
	// k*1000 has slowdown 1 + k/8 (exact binary fractions).
	var recs []FlowRecord
	for k := 40; k >= 1; k-- {
		recs = append(recs, FlowRecord{ID: k, SizeBytes: int64(k) * 1000,
			Finish: sim.Time(8+k) * sim.Microsecond, IdealFCT: 8 * sim.Microsecond, Done: true})
	}
	recs = append(recs, FlowRecord{ID: 99, SizeBytes: 1, Done: false}) // ignored
	bins := SizeBins(recs, 20, NoCensoring)
	if len(bins) != 20 {
		t.Fatalf("len = %d, want 20", len(bins))
	}
	for i, b := range bins {
		// Bin i holds sizes (2i+1)*1000 and (2i+2)*1000; index floor(2p) = 1
		// for p in {0.5, 0.95, 0.99}, i.e. the larger slowdown.
		sd := 1 + float64(2*i+2)/8
		want := SizeBin{MaxSizeBytes: int64(2*i+2) * 1000, N: 2, P50: sd, P95: sd, P99: sd}
		if b != want {
			t.Errorf("bin %d = %+v, want %+v", i, b, want)
		}
	}

	var buf bytes.Buffer
	if err := WriteSizeBins(&buf, bins[:2]); err != nil {
		t.Fatal(err)
	}
	if got, want := buf.String(), "2000 1.250 1.250 1.250\n4000 1.500 1.500 1.500\n"; got != want {
		t.Errorf("WriteSizeBins = %q, want %q", got, want)
	}
}

func TestSizeBinsUneven(t *testing.T) {
	// n=7, 3 bins: [0,2) [2,4) [4,7). Equal sizes keep input order, so the
	// boundary between bins 0 and 1 splits the size-5 flows by input order.
	mk := func(size int64, sdTimes sim.Time) FlowRecord {
		return FlowRecord{SizeBytes: size, Finish: sdTimes * sim.Microsecond, IdealFCT: sim.Microsecond, Done: true}
	}
	recs := []FlowRecord{mk(9, 7), mk(5, 2), mk(5, 3), mk(1, 1), mk(7, 6), mk(6, 5), mk(5, 4)}
	// Sorted: (1,1) (5,2) | (5,3) (5,4) | (6,5) (7,6) (9,7)
	want := []SizeBin{
		{MaxSizeBytes: 5, N: 2, P50: 2, P95: 2, P99: 2},
		{MaxSizeBytes: 5, N: 2, P50: 4, P95: 4, P99: 4},
		{MaxSizeBytes: 9, N: 3, P50: 6, P95: 7, P99: 7},
	}
	if got := SizeBins(recs, 3, NoCensoring); !reflect.DeepEqual(got, want) {
		t.Errorf("SizeBins = %+v, want %+v", got, want)
	}
	// Fewer flows than bins: empty bins are omitted.
	if got := SizeBins(recs[:2], 5, NoCensoring); len(got) != 2 || got[0].MaxSizeBytes != 5 || got[1].MaxSizeBytes != 9 {
		t.Errorf("SizeBins(2 flows, 5 bins) = %+v", got)
	}
	if got := SizeBins(recs, 0, NoCensoring); got != nil {
		t.Errorf("SizeBins(nbins=0) = %+v, want nil", got)
	}
}

func TestRTTStats(t *testing.T) {
	var s RTTStats
	if s.Count() != 0 || s.Mean() != 0 || s.Max() != 0 || s.P99() != 0 || s.Summary() != (Dist{}) {
		t.Errorf("zero value not empty")
	}
	us := sim.Microsecond
	// 1..100 us in scrambled order.
	for i := 0; i < 100; i++ {
		s.Add(sim.Time((i*37)%100+1) * us)
	}
	tests := []struct {
		name string
		got  sim.Time
		want sim.Time
	}{
		{"mean", s.Mean(), 50*us + 500*sim.Nanosecond},
		{"p99", s.P99(), 100 * us},
		{"p50", s.Percentile(0.5), 51 * us},
		{"max", s.Max(), 100 * us},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("%s = %v, want %v", tc.name, tc.got, tc.want)
		}
	}
	if s.Count() != 100 {
		t.Errorf("Count = %d", s.Count())
	}
	// Adding after a percentile query must invalidate the sorted state.
	s.Add(1 * us)
	s.Add(1000 * us)
	if got := s.Percentile(0); got != 1*us {
		t.Errorf("p0 after add = %v", got)
	}
	if got := s.Max(); got != 1000*us {
		t.Errorf("max after add = %v", got)
	}
	if d := s.Summary(); d.N != 102 || d.Max != 1000 || d.Min != 1 || d.P50 != 51 {
		t.Errorf("Summary = %+v", d)
	}
	s.Reset()
	s.Add(-5)
	if s.Count() != 1 || s.Max() != -5 || s.Mean() != -5 {
		t.Errorf("after reset: count %d max %v mean %v", s.Count(), s.Max(), s.Mean())
	}
	if p := NewRTTStats(10); cap(p.samples) != 10 || p.Count() != 0 {
		t.Errorf("NewRTTStats capacity")
	}
}

func TestHistogram(t *testing.T) {
	h := NewHistogram(1000)
	for _, v := range []int64{0, 1, 1000, 1001, 5000, -7} {
		h.Add(v)
	}
	// Buckets: 0:{0,-7} 1000:{1,1000} 2000:{1001} 5000:{5000}
	if h.Count() != 6 || h.MaxBytes() != 5000 || h.MeanBytes() != 7002.0/6 || h.WidthBytes() != 1000 {
		t.Errorf("count %d max %d mean %v", h.Count(), h.MaxBytes(), h.MeanBytes())
	}
	tests := []struct {
		p    float64
		want int64
	}{
		{0, 0},
		{0.3, 0},     // rank 1
		{0.34, 1000}, // rank 2 (6*0.34 = 2.04)
		{0.5, 1000},  // rank 3
		{0.7, 2000},  // rank 4
		{0.99, 5000}, // rank 5
		{1, 5000},
		{math.NaN(), 0},
	}
	for _, tc := range tests {
		if got := h.Quantile(tc.p); got != tc.want {
			t.Errorf("Quantile(%v) = %d, want %d", tc.p, got, tc.want)
		}
	}
	wantCDF := []CDFPoint{{0, 2.0 / 6}, {1000, 4.0 / 6}, {2000, 5.0 / 6}, {5000, 1}}
	if got := h.CDF(); !reflect.DeepEqual(got, wantCDF) {
		t.Errorf("CDF = %+v, want %+v", got, wantCDF)
	}
	var b bytes.Buffer
	if err := h.WriteCDF(&b); err != nil {
		t.Fatal(err)
	}
	if got, want := b.String(), "0 0.333333\n1000 0.666667\n2000 0.833333\n5000 1.000000\n"; got != want {
		t.Errorf("WriteCDF = %q, want %q", got, want)
	}

	w := NewHistogram(10)
	w.AddN(15, 3) // bucket 20
	w.AddN(3, 1)  // bucket 10
	w.AddN(99, 0) // ignored
	if w.Count() != 4 || w.Quantile(0) != 10 || w.Quantile(0.25) != 20 || w.MaxBytes() != 15 {
		t.Errorf("AddN: count %d q0 %d q25 %d max %d", w.Count(), w.Quantile(0), w.Quantile(0.25), w.MaxBytes())
	}
	if NewHistogram(1).CDF() != nil || NewHistogram(1).Quantile(0.5) != 0 {
		t.Errorf("empty histogram")
	}
}

func TestPercentileCensored(t *testing.T) {
	xs := []float64{1, 2, 3, 4, 10}
	// p50 = xs[floor(5·0.5)] = 3 of the sorted sample
	if v, exact := PercentileCensored(xs, []bool{false, false, false, false, true}, 0.5); v != 3 || !exact {
		t.Errorf("censored value above the median: %v %v, want 3 exact", v, exact)
	}
	if v, exact := PercentileCensored(xs, []bool{false, true, false, false, false}, 0.5); v != 3 || exact {
		t.Errorf("censored value below the median: %v %v, want 3, a lower bound", v, exact)
	}
	if v, exact := PercentileCensored(xs, []bool{false, false, true, false, false}, 0.5); v != 3 || exact {
		t.Errorf("the median itself censored: %v %v, want 3, a lower bound", v, exact)
	}
	if v, exact := PercentileCensored(xs, nil, 0.99); v != 10 || !exact {
		t.Errorf("no censoring: %v %v", v, exact)
	}
	if v, _ := PercentileCensored(nil, nil, 0.5); !math.IsNaN(v) {
		t.Errorf("empty: %v", v)
	}
}
