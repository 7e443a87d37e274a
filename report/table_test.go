package report

import (
	"bytes"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/metrics"
	"github.com/ccsim/ccsim/sim"
)

// refBuckets is the reference analysis output
// fctbuckets_fat_websearch_l30_10ms_hp95ai50.txt (shared anchors) for the
// reference fct.txt in scenarios/reference/expected/.
const refBuckets = `# pct_bucket max_size_B p50_slowdown p95_slowdown p99_slowdown  (n=6677)
0.00 2894 1.005 1.091 1.740
0.05 6073 1.020 1.184 1.640
0.10 9689 1.041 1.254 1.939
0.15 19244 1.070 1.366 1.652
0.20 24628 1.112 1.485 1.696
0.25 29732 1.136 1.468 2.046
0.30 39641 1.182 1.615 2.041
0.35 50753 1.197 1.749 2.415
0.40 62927 1.161 1.764 2.304
0.45 74141 1.298 1.896 2.299
0.50 122451 1.321 2.179 2.564
0.55 235459 1.381 2.453 2.969
0.60 626782 1.684 2.852 3.768
0.65 1063001 1.876 3.159 4.559
0.70 1522169 1.802 3.280 4.183
0.75 2087828 1.887 3.186 3.921
0.80 3571551 1.892 3.924 5.169
0.85 5233075 1.963 4.442 5.694
0.90 8639890 1.862 3.877 5.910
0.95 29983288 1.837 3.496 4.260
`

const refFCT = "../scenarios/reference/expected/fct_fat_websearch_l30_10ms_hp95ai50.txt"

func readRefRecords(t *testing.T) []metrics.FlowRecord {
	t.Helper()
	f, err := os.Open(refFCT)
	if err != nil {
		t.Skipf("reference fct file: %v", err)
	}
	defer f.Close()
	lines, err := metrics.ReadRefFCT(f)
	if err != nil {
		t.Fatal(err)
	}
	recs := make([]metrics.FlowRecord, len(lines))
	for i, l := range lines {
		recs[i] = l.Record(i)
	}
	return recs
}

// TestSlowdownTableMatchesReference: our table of the reference flows is
// byte-identical to the reference analysis output, followed by class rows
// that agree with the reference summary_*.json.
func TestSlowdownTableMatchesReference(t *testing.T) {
	recs := readRefRecords(t)
	var buf bytes.Buffer
	if err := WriteSlowdownTable(&buf, recs, metrics.NoCensoring); err != nil {
		t.Fatal(err)
	}
	got := buf.String()
	if !strings.HasPrefix(got, refBuckets) {
		t.Fatalf("table differs from the reference:\n%s\nwant prefix\n%s", got, refBuckets)
	}
	rest := strings.TrimPrefix(got, refBuckets)
	// p50/p99 agree with summary_fat_websearch_l30_10ms_hp95ai50.json:
	// small p50 1.0690784788491667 p99 2.1515655157623845, mid p50
	// 1.5308156028368793 p99 3.8504163344027593, large p50
	// 1.8638492656882093 p99 4.857864584150083.
	lines := strings.Split(strings.TrimSuffix(rest, "\n"), "\n")
	if len(lines) != 4 || lines[0] != classHeader {
		t.Fatalf("class rows:\n%s", rest)
	}
	for i, want := range []string{"# small_lt100KB 3586 1.069 ", "# mid_100KB_1MB 1049 1.531 ", "# large_gt1MB 2042 1.864 "} {
		if !strings.HasPrefix(lines[1+i], want) {
			t.Errorf("class row %q, want prefix %q", lines[1+i], want)
		}
	}
	tab := NewSlowdownTable(recs, metrics.NoCensoring)
	for i, want := range [][2]float64{{1.0690784788491667, 2.1515655157623845}, {1.5308156028368793, 3.8504163344027593}, {1.8638492656882093, 4.857864584150083}} {
		if c := tab.Classes[i]; c.P50 != want[0] || c.P99 != want[1] {
			t.Errorf("class %s p50/p99 = %v/%v, want %v/%v", c.Class, c.P50, c.P99, want[0], want[1])
		}
	}

	// Reading our file and the reference file gives the same bins.
	ours, err := ReadSlowdownTable(strings.NewReader(got))
	if err != nil {
		t.Fatal(err)
	}
	ref, err := ReadSlowdownTable(strings.NewReader(refBuckets))
	if err != nil {
		t.Fatal(err)
	}
	if ours.N != 6677 || ref.N != 6677 || len(ref.Bins) != 20 || ref.Classes != nil || len(ours.Classes) != 3 {
		t.Errorf("read: ours N=%d classes=%d, ref N=%d bins=%d classes=%v", ours.N, len(ours.Classes), ref.N, len(ref.Bins), ref.Classes)
	}
	if !reflect.DeepEqual(ours.Bins, ref.Bins) {
		t.Errorf("bins differ:\n%+v\n%+v", ours.Bins, ref.Bins)
	}
	if b := ref.Bins[19]; b.Pct != 0.95 || b.MaxSizeBytes != 29983288 || b.P50 != 1.837 || b.P95 != 3.496 || b.P99 != 4.26 {
		t.Errorf("last bin = %+v", b)
	}
}

func TestSlowdownTableSmall(t *testing.T) {
	us := sim.Microsecond
	mk := func(size int64, sd sim.Time, done bool) metrics.FlowRecord {
		return metrics.FlowRecord{SizeBytes: size, Finish: sd * us, IdealFCT: us, Done: done}
	}
	// 3 finished flows (fewer than 20 bins): bin i holds ranks
	// [floor(3i/20), floor(3(i+1)/20)), non-empty for i = 6, 13, 19.
	recs := []metrics.FlowRecord{mk(2_000_000, 3, true), mk(500, 2, true), mk(200_000, 5, true), mk(10, 9, false)}
	var buf bytes.Buffer
	if err := WriteSlowdownTable(&buf, recs, metrics.NoCensoring); err != nil {
		t.Fatal(err)
	}
	want := "# pct_bucket max_size_B p50_slowdown p95_slowdown p99_slowdown  (n=3)\n" +
		"0.30 500 2.000 2.000 2.000\n" +
		"0.65 200000 5.000 5.000 5.000\n" +
		"0.95 2000000 3.000 3.000 3.000\n" +
		"# class n p50_slowdown p95_slowdown p99_slowdown\n" +
		"# small_lt100KB 1 2.000 2.000 2.000\n" +
		"# mid_100KB_1MB 1 5.000 5.000 5.000\n" +
		"# large_gt1MB 1 3.000 3.000 3.000\n"
	if got := buf.String(); got != want {
		t.Errorf("table =\n%s\nwant\n%s", got, want)
	}
	// The unfinished flow censored at 20 µs (slowdown 20, a lower bound):
	// 4 flows, bin i non-empty when floor(4i/20) < floor(4(i+1)/20): i = 4,
	// 9, 14, 19.
	buf.Reset()
	if err := WriteSlowdownTable(&buf, recs, 20*us); err != nil {
		t.Fatal(err)
	}
	want = "# pct_bucket max_size_B p50_slowdown p95_slowdown p99_slowdown  (n=4)\n" +
		"0.20 10 20.000 20.000 20.000\n" +
		"0.45 500 2.000 2.000 2.000\n" +
		"0.70 200000 5.000 5.000 5.000\n" +
		"0.95 2000000 3.000 3.000 3.000\n" +
		"# censored 1: unfinished at the run's end, counted with their slowdown then (a lower bound)\n" +
		"# class n p50_slowdown p95_slowdown p99_slowdown\n" +
		"# small_lt100KB 2 20.000 20.000 20.000\n" +
		"# mid_100KB_1MB 1 5.000 5.000 5.000\n" +
		"# large_gt1MB 1 3.000 3.000 3.000\n"
	if got := buf.String(); got != want {
		t.Errorf("censored table =\n%s\nwant\n%s", got, want)
	}
	if tab, err := ReadSlowdownTable(strings.NewReader(want)); err != nil || tab.N != 4 || tab.Censored != 1 || len(tab.Bins) != 4 {
		t.Errorf("read censored table = %+v, %v", tab, err)
	}
	// No finished flow: header, no bins, empty classes with "-".
	buf.Reset()
	if err := WriteSlowdownTable(&buf, recs[3:], metrics.NoCensoring); err != nil {
		t.Fatal(err)
	}
	want = "# pct_bucket max_size_B p50_slowdown p95_slowdown p99_slowdown  (n=0)\n" + classHeader + "\n" +
		"# small_lt100KB 0 - - -\n# mid_100KB_1MB 0 - - -\n# large_gt1MB 0 - - -\n"
	if got := buf.String(); got != want {
		t.Errorf("empty table =\n%s\nwant\n%s", got, want)
	}
	tab, err := ReadSlowdownTable(strings.NewReader(want))
	if err != nil || tab.N != 0 || len(tab.Bins) != 0 || len(tab.Classes) != 3 || !math.IsNaN(tab.Classes[0].P99) {
		t.Errorf("read empty table = %+v, %v", tab, err)
	}
}

func TestReadSlowdownTableErrors(t *testing.T) {
	h := bucketHeader + "  (n=5)\n"
	for in, want := range map[string]string{
		"":                                  "no header line",
		"0.00 1 1 1 1\n":                    "no header line",
		bucketHeader + "  (n=x)\n":          "line 1: bad count",
		h + "0.00 1 1 1\n":                  "line 2: want 5 fields",
		h + "a 1 1 1 1\n":                   `pct "a"`,
		h + "0 1.5 1 1 1\n":                 `size "1.5"`,
		h + "0 1 1 z 1\n":                   `"z": not a number`,
		h + classHeader + "\n# a 1 2 3\n":   "line 3: class row wants 5 fields",
		h + classHeader + "\n# a x 2 3 4\n": `n "x"`,
		h + classHeader + "\n# a 1 2 3 q\n": `"q": not a number`,
	} {
		if _, err := ReadSlowdownTable(strings.NewReader(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ReadSlowdownTable(%q) error = %v, want %q", in, err, want)
		}
	}
	// Other comments and blank lines are skipped.
	tab, err := ReadSlowdownTable(strings.NewReader("# note\n\n" + h + "0.00 7 1.5 2 3\n"))
	if err != nil || tab.N != 5 || len(tab.Bins) != 1 || tab.Bins[0] != (BucketRow{0, 7, 1.5, 2, 3}) {
		t.Errorf("ReadSlowdownTable = %+v, %v", tab, err)
	}
}
