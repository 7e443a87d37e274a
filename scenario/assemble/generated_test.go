package assemble_test

import (
	"bytes"
	"testing"

	"github.com/ccsim/ccsim/metrics"
	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/scenario/assemble"
)

// TestGeneratedLeafSpineRun runs a small leaf-spine fabric under generated
// WebSearch traffic plus incast bursts with two algorithms in parallel and
// checks completion, conservation, lossless PFC and that the result does not
// depend on how many runs share the cores.
func TestGeneratedLeafSpineRun(t *testing.T) {
	src := []byte(`
name: ls
seed: 7
cc: [dcqcn, hpcc]
topology: {kind: leaf_spine, spines: 2, leaves: 4, hosts_per_leaf: 4, link_gbps: 100, fabric_gbps: 100}
workload:
  poisson: {cdf: websearch, load: 0.3, duration_ms: 0.5}
  incast_bursts: {senders: 4, size_bytes: 100000, count: 2, duration_ms: 0.5}
outputs: {queue_cdf: true, throughput_sample_us: 10, jain_window_ms: [0.1, 0.4]}
`)
	s, err := scenario.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	csv := func(workers int) [][]byte {
		res, errs := assemble.RunAll(s, s.CC, assemble.Options{}, workers, nil)
		var out [][]byte
		for i, r := range res {
			if errs[i] != nil {
				t.Fatal(errs[i])
			}
			if r.Summary.Unfinished != 0 {
				t.Errorf("%s: %d flows unfinished", r.CC, r.Summary.Unfinished)
			}
			if r.Bytes.Sent != r.Bytes.Delivered+r.Bytes.InFlight+r.Bytes.Dropped || r.Drops != 0 {
				t.Errorf("%s: bytes %+v drops %d", r.CC, r.Bytes, r.Drops)
			}
			if len(r.QueueStats) == 0 || r.Window == nil || r.Window.Flows == 0 {
				t.Errorf("%s: queue stats %v window %+v", r.CC, r.QueueStats, r.Window)
			}
			var b bytes.Buffer
			if err := metrics.WriteFlowsCSV(&b, r.Flows); err != nil {
				t.Fatal(err)
			}
			out = append(out, b.Bytes())
		}
		if len(res[0].Flows) < 20 {
			t.Fatalf("only %d flows generated", len(res[0].Flows))
		}
		return out
	}
	one, two := csv(1), csv(2)
	for i := range one {
		if !bytes.Equal(one[i], two[i]) {
			t.Errorf("%s: flows.csv differs between 1 and 2 workers", s.CC[i])
		}
	}
}
