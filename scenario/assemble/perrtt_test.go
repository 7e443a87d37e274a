package assemble_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/scenario/assemble"
)

const perRTTIncast = `
name: perrtt
seed: 1
stop_ms: 100
topology: {kind: star, hosts: 5, link_gbps: 100, link_delay_ns: 1000}
switch: {buffer_mib: 32, pfc: dynamic}
workload:
  incast: {senders: [0, 1, 2, 3], receiver: 4, sizes_bytes: [400000, 300000, 200000, 100000], start_ns: 0}
outputs: {rtt_per_rtt: true, rtt_per_rtt_flows: [0]}
`

// For pidnn, the host's per-RTT samples are exactly the controller's: the
// same count per flow (PIDNN.N) and, over the run, exact statistics in
// summary.json's rtt_per_rtt; rtt_per_rtt.csv holds flow 0's samples.
func TestPerRTTOutputMatchesPIDNN(t *testing.T) {
	s := mustParse(t, perRTTIncast)
	b, err := assemble.Build(s, "pidnn", scenarioRunOpts())
	if err != nil {
		t.Fatal(err)
	}
	res := b.Run()
	var ctrl, flow0 int64
	for i := range b.Net.QPs {
		c, ok := b.Net.QPs[i].CC.(*cc.PIDNN)
		if !ok {
			t.Fatalf("QP %d: algorithm %T", i, b.Net.QPs[i].CC)
		}
		ctrl += c.N
		if i == 0 {
			flow0 = c.N
		}
	}
	r := res.RTTPerRTT
	if r == nil {
		t.Fatal("no rtt_per_rtt summary")
	}
	if ctrl == 0 || r.Samples != ctrl {
		t.Errorf("host samples %d, controller samples %d", r.Samples, ctrl)
	}
	if !(r.MeanUs >= 4 && r.P50Us >= 4 && r.P50Us <= r.P99Us && r.P99Us <= r.MaxUs && r.MeanUs <= r.MaxUs) {
		t.Errorf("implausible statistics %+v (base RTT ≈ 4.18 µs)", r)
	}
	dir := filepath.Join(t.TempDir(), "out")
	if err := res.Write(dir); err != nil {
		t.Fatal(err)
	}
	csv, err := os.ReadFile(filepath.Join(dir, "rtt_per_rtt.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(csv)), "\n")
	if lines[0] != "flow_id,time_ns,rtt_ns" || int64(len(lines)-1) != flow0 {
		t.Errorf("rtt_per_rtt.csv: header %q, %d rows, want %d", lines[0], len(lines)-1, flow0)
	}
	js, _ := os.ReadFile(filepath.Join(dir, "summary.json"))
	if !strings.Contains(string(js), `"rtt_per_rtt"`) {
		t.Error("summary.json has no rtt_per_rtt")
	}
	// off: no summary field
	s2 := mustParse(t, strings.Replace(perRTTIncast, "outputs: {rtt_per_rtt: true, rtt_per_rtt_flows: [0]}", "", 1))
	b2, err := assemble.Build(s2, "pidnn", scenarioRunOpts())
	if err != nil {
		t.Fatal(err)
	}
	if res2 := b2.Run(); res2.RTTPerRTT != nil || res2.Summary != res.Summary {
		t.Errorf("off: rtt_per_rtt %v; the run must not change (fct %+v vs %+v)", res2.RTTPerRTT, res2.Summary, res.Summary)
	}
}

func TestPerRTTValidation(t *testing.T) {
	for src, want := range map[string]string{
		strings.Replace(perRTTIncast, "rtt_per_rtt: true, ", "", 1):                           "outputs.rtt_per_rtt_flows needs outputs.rtt_per_rtt: true",
		strings.Replace(perRTTIncast, "rtt_per_rtt_flows: [0]", "rtt_per_rtt_flows: [-1]", 1): "outputs.rtt_per_rtt_flows[0] = -1",
	} {
		_, err := scenarioParse(src)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want %q", err, want)
		}
	}
	s := mustParse(t, strings.Replace(perRTTIncast, "rtt_per_rtt_flows: [0]", "rtt_per_rtt_flows: [4]", 1))
	if _, err := assemble.Build(s, "pidnn", scenarioRunOpts()); err == nil || !strings.Contains(err.Error(), "outputs.rtt_per_rtt_flows[0] = 4: the workload has flows 0..3") {
		t.Errorf("build error %v", err)
	}
}

func scenarioRunOpts() assemble.Options { return assemble.Options{} }

func scenarioParse(src string) (*scenario.Scenario, error) { return scenario.Parse([]byte(src)) }
