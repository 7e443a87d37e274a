package assemble_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/scenario/assemble"
	"github.com/ccsim/ccsim/scenario/result"
)

// A run's Result carries what its writers need from the outputs section:
// the file selection, the sampled ports, the per-RTT samples of the listed
// flows and the finished series.
func TestResultCarriesOutputs(t *testing.T) {
	s := mustParse(t, incastYAML+`
outputs:
  ref_fct: true
  flow_file: true
  queue_sample_us: 10
  queue_ports: [{node: 5, port: 4}]
  rtt_per_rtt: true
  rtt_per_rtt_flows: [1]
  series: {bin_us: 50, flow_rate: dst, pfc: true}
`)
	b, err := assemble.Build(s, "dcqcn", assemble.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := b.Run()
	want := result.Files{RefFCT: true, FlowFile: true, RTTPerRTT: true}
	if r.Files != want {
		t.Errorf("Files = %+v, want %+v", r.Files, want)
	}
	if !slices.Equal(r.QueuePorts, []result.Port{{Node: 5, Port: 4}}) || len(r.Queue) == 0 {
		t.Errorf("queue ports %v, %d samples", r.QueuePorts, len(r.Queue))
	}
	if len(r.PerRTT) == 0 || r.RTTPerRTT == nil || int64(len(r.PerRTT)) >= r.RTTPerRTT.Samples {
		t.Fatalf("%d per-RTT samples kept of %v", len(r.PerRTT), r.RTTPerRTT)
	}
	for _, x := range r.PerRTT {
		if x.Flow != 1 {
			t.Fatalf("kept a sample of flow %d, want flow 1 only", x.Flow)
		}
	}
	sr := r.Series
	if sr == nil || sr.FlowRate == nil || sr.PFC == nil || sr.LinkRate != nil || sr.Queue != nil {
		t.Fatalf("series %+v: want flow rate and PFC only", sr)
	}
	if sr.FlowRate.By != "dst" || !slices.Equal(sr.FlowRate.IDs, []int{4}) || len(sr.FlowRate.Rows) == 0 {
		t.Errorf("flow rate by %s of %v, %d rows", sr.FlowRate.By, sr.FlowRate.IDs, len(sr.FlowRate.Rows))
	}
	var bytes int64
	for _, row := range sr.FlowRate.Rows {
		bytes += row.Bytes
	}
	if bytes != 4*200_000 {
		t.Errorf("flow-rate rows sum to %d bytes, want the 800,000 delivered", bytes)
	}
	dir := filepath.Join(t.TempDir(), "dcqcn")
	if err := r.Write(dir); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"fct.txt", "flows.txt", "queue.csv", "rtt_per_rtt.csv", "flow_rate.csv", "pfc_bins.csv"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	for _, f := range []string{"pfc.txt", "messages.csv", "link_rate.csv", "queue_series.csv"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("%s written although not requested", f)
		}
	}
}

// Check takes the algorithm list given in place of the file's; a parsed
// scenario is checked by CheckScenario, which builds as Check does.
func TestCheckWithAlgorithms(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(p, []byte(incastYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := assemble.Check(p, []string{"none", "hpcc"})
	if err != nil || !slices.Equal(s.CC, []string{"none", "hpcc"}) || s.ParamsOf("hpcc") == nil {
		t.Fatalf("Check with --cc: %v, %v", s, err)
	}
	if _, err := assemble.Check(p, []string{"bogus"}); err == nil || !strings.Contains(err.Error(), `cc[0]: unknown algorithm "bogus"`) {
		t.Errorf("Check with an unknown algorithm: %v", err)
	}
	if err := assemble.CheckScenario(s); err != nil {
		t.Errorf("CheckScenario: %v", err)
	}
	s.Topology.Hosts = 4 // host 4, the receiver, is gone
	if err := assemble.CheckScenario(s); err == nil || !strings.Contains(err.Error(), "dst 4 is not a host") {
		t.Errorf("CheckScenario with a missing receiver: %v", err)
	}
}
