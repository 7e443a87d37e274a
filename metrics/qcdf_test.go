package metrics

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"testing"
)

func TestQueueCDFs(t *testing.T) {
	var q QueueCDFs
	const tor, fab = "host-facing ToR ports", `fabric, "spine" ports`
	// ToR: 0 x60, 1000 x20, 5000 x19, 90000 x1, interleaved with fabric.
	q.AddN(tor, 0, 59)
	q.Add(fab, 30)
	q.Add(tor, -5) // counts as 0
	q.AddN(tor, 5000, 19)
	q.Add(fab, 10)
	q.AddN(tor, 90000, 1)
	q.AddN(tor, 1000, 20)
	q.Add(fab, 20)
	q.AddN(fab, 1e9, 0)  // ignored
	q.AddN(fab, 1e9, -3) // ignored

	if got, want := q.Labels(), []string{tor, fab}; !reflect.DeepEqual(got, want) {
		t.Errorf("Labels = %q, want %q", got, want)
	}
	if q.Count(tor) != 100 || q.Count(fab) != 3 || q.Count("none") != 0 {
		t.Errorf("Count = %d %d %d", q.Count(tor), q.Count(fab), q.Count("none"))
	}
	// Ranks: p50 -> 50 (a 0), p80 -> 80 (first 5000), p99 -> 99 (90000).
	wantTor := QueueStats{Class: tor, N: 100, P50: 0, P80: 5000, P99: 90000, Max: 90000, Mean: 2050}
	if got := q.Stats(tor); got != wantTor {
		t.Errorf("Stats(tor) = %+v, want %+v", got, wantTor)
	}
	// 10 20 30: p50 -> rank 1, p80 -> rank 2, p99 -> rank 2.
	wantFab := QueueStats{Class: fab, N: 3, P50: 20, P80: 30, P99: 30, Max: 30, Mean: 20}
	if got := q.Stats(fab); got != wantFab {
		t.Errorf("Stats(fab) = %+v, want %+v", got, wantFab)
	}
	if got := q.AllStats(); !reflect.DeepEqual(got, []QueueStats{wantTor, wantFab}) {
		t.Errorf("AllStats = %+v", got)
	}
	if got := q.Stats("none"); got != (QueueStats{Class: "none"}) {
		t.Errorf("Stats(unknown) = %+v", got)
	}
	if q.Quantile(tor, 0.79) != 1000 || q.Quantile(tor, 0) != 0 || q.Quantile(tor, 1) != 90000 || q.Quantile("none", 0.5) != 0 {
		t.Errorf("Quantile wrong")
	}
	wantCDF := []CDFPoint{{0, 0.6}, {1000, 0.8}, {5000, 0.99}, {90000, 1}}
	if got := q.CDF(tor); !reflect.DeepEqual(got, wantCDF) {
		t.Errorf("CDF(tor) = %+v, want %+v", got, wantCDF)
	}
	if q.CDF("none") != nil {
		t.Errorf("CDF(unknown) not nil")
	}

	var buf bytes.Buffer
	if err := q.WriteQueueCDF(&buf); err != nil {
		t.Fatal(err)
	}
	want := QueueCDFHeader + "\n" +
		"host-facing ToR ports,0,0.600000\n" +
		"host-facing ToR ports,1000,0.800000\n" +
		"host-facing ToR ports,5000,0.990000\n" +
		"host-facing ToR ports,90000,1.000000\n" +
		`"fabric, ""spine"" ports",10,0.333333` + "\n" +
		`"fabric, ""spine"" ports",20,0.666667` + "\n" +
		`"fabric, ""spine"" ports",30,1.000000` + "\n"
	if got := buf.String(); got != want {
		t.Errorf("WriteQueueCDF =\n%s\nwant\n%s", got, want)
	}

	buf.Reset()
	if err := q.WriteQueueStats(&buf); err != nil {
		t.Fatal(err)
	}
	want = QueueStatsHeader + "\n" +
		"host-facing ToR ports,100,0,5000,90000,90000,2050.000\n" +
		`"fabric, ""spine"" ports",3,20,30,30,30,20.000` + "\n"
	if got := buf.String(); got != want {
		t.Errorf("WriteQueueStats =\n%s\nwant\n%s", got, want)
	}

	// Adding after a query invalidates the cached CDF.
	q.Add(fab, 40)
	if got := q.Stats(fab); got.N != 4 || got.Max != 40 || got.P50 != 30 {
		t.Errorf("Stats after Add = %+v", got)
	}

	var zero QueueCDFs
	buf.Reset()
	if err := zero.WriteQueueCDF(&buf); err != nil || buf.String() != QueueCDFHeader+"\n" {
		t.Errorf("empty WriteQueueCDF = %q, %v", buf.String(), err)
	}
	if len(zero.Labels()) != 0 || zero.Count("x") != 0 || zero.Quantile("x", 0.5) != 0 {
		t.Errorf("zero value not empty")
	}
	if err := q.WriteQueueCDF(failWriter{}); err == nil {
		t.Errorf("WriteQueueCDF to failing writer: no error")
	}
	if err := q.WriteQueueStats(failWriter{}); err == nil {
		t.Errorf("WriteQueueStats to failing writer: no error")
	}
}

// TestQueueCDFsMatchesPercentile checks the exact percentiles against the
// canonical rule on the raw samples.
func TestQueueCDFsMatchesPercentile(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 7, 100, 1001} {
		var q QueueCDFs
		xs := make([]float64, n)
		for i := range xs {
			v := rng.Int64N(50) * 1000
			xs[i] = float64(v)
			q.Add("c", v)
		}
		for _, p := range []float64{0, 0.01, 0.5, 0.8, 0.95, 0.99, 0.999, 1} {
			if got, want := q.Quantile("c", p), PercentileOf(xs, p); float64(got) != want {
				t.Errorf("n=%d p=%v: Quantile = %d, want %v", n, p, got, want)
			}
		}
		cdf := q.CDF("c")
		if cdf[len(cdf)-1].Fraction != 1 {
			t.Errorf("n=%d: last CDF fraction %v", n, cdf[len(cdf)-1].Fraction)
		}
	}
}
