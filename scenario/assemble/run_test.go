package assemble_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/scenario/assemble"
	"github.com/ccsim/ccsim/scenario/result"
)

// mustParse parses src and fails the test on any error.
func mustParse(t *testing.T, src string) *scenario.Scenario {
	t.Helper()
	s, err := scenario.Parse([]byte(src))
	if err != nil {
		t.Fatalf("Parse: %v\n--- input ---\n%s", err, src)
	}
	if s == nil {
		t.Fatal("Parse returned a nil scenario and no error")
	}
	return s
}

// containsAll reports whether s contains every one of subs.
func containsAll(s string, subs []string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// incastYAML is the end-to-end scenario: a star of 5 hosts, hosts 0-3 each
// send 200 KB to host 4.
const incastYAML = `
name: e2e-incast4
stop_ms: 100
cc: [dcqcn]
topology: {kind: star, hosts: 5, link_gbps: 100, link_delay_ns: 1000}
workload:
  incast:
    senders: [0, 1, 2, 3]
    receiver: 4
    sizes_bytes: [200000]
`

func runIncast(t *testing.T, s *scenario.Scenario, opt assemble.Options) *result.Result {
	t.Helper()
	b, err := assemble.Build(s, "dcqcn", opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Flows) != 4 {
		t.Fatalf("built %d flows, want 4", len(b.Flows))
	}
	r := b.Run()
	if r.CC != "dcqcn" || r.Scenario != "e2e-incast4" {
		t.Errorf("result labelled %q/%q", r.Scenario, r.CC)
	}
	if len(r.Flows) != 4 {
		t.Fatalf("%d flow records, want 4", len(r.Flows))
	}
	for _, f := range r.Flows {
		if !f.Done {
			t.Errorf("seed %d: flow %d (%d->%d) did not finish", r.Seed, f.ID, f.Src, f.Dst)
			continue
		}
		if f.Dst != 4 || f.SizeBytes != 200_000 || f.Finish <= f.Start || f.FCT() < f.IdealFCT {
			t.Errorf("seed %d: flow record %+v", r.Seed, f)
		}
	}
	if r.Summary.Flows != 4 || r.Summary.Unfinished != 0 {
		t.Errorf("summary: %+v", r.Summary)
	}
	by := r.Bytes
	if by.Sent != by.Delivered+by.InFlight+by.Dropped {
		t.Errorf("seed %d: bytes not conserved: %+v", r.Seed, by)
	}
	if by.Delivered < 4*200_000 {
		t.Errorf("seed %d: delivered %d < 800000 bytes", r.Seed, by.Delivered)
	}
	if by.Dropped != 0 || r.Drops != 0 {
		t.Errorf("seed %d: drops in a lossless fabric: %+v, %d", r.Seed, by, r.Drops)
	}
	return r
}

func TestEndToEndIncast(t *testing.T) {
	s := mustParse(t, incastYAML)
	r1 := runIncast(t, s, assemble.Options{})
	if r1.Seed != 1 {
		t.Errorf("Seed = %d, want the scenario's 1", r1.Seed)
	}
	r2 := runIncast(t, s, assemble.Options{})

	d1, d2 := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	if err := r1.Write(d1); err != nil {
		t.Fatal(err)
	}
	if err := r2.Write(d2); err != nil {
		t.Fatal(err)
	}
	c1, err := os.ReadFile(filepath.Join(d1, "flows.csv"))
	if err != nil {
		t.Fatal(err)
	}
	c2, err := os.ReadFile(filepath.Join(d2, "flows.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(c1, c2) {
		t.Errorf("flows.csv differs between identical runs:\n%s\n---\n%s", c1, c2)
	}
	if n := bytes.Count(c1, []byte("\n")); n != 5 {
		t.Errorf("flows.csv has %d lines, want header + 4:\n%s", n, c1)
	}
	// summary.json too, but for the wall-clock fields.
	j1, j2 := readSummary(t, d1), readSummary(t, d2)
	if !reflect.DeepEqual(j1, j2) {
		t.Errorf("summary.json differs between identical runs:\n%v\n---\n%v", j1, j2)
	}
	if j1["cc"] != "dcqcn" || j1["seed"] != 1.0 {
		t.Errorf("summary.json: cc %v seed %v", j1["cc"], j1["seed"])
	}
	for _, f := range []string{"fct.txt", "pfc.txt", "queue.csv"} {
		if _, err := os.Stat(filepath.Join(d1, f)); err == nil {
			t.Errorf("%s written although not requested", f)
		}
	}
	if r1.Events != r2.Events || r1.SimEndNs != r2.SimEndNs || r1.Bytes != r2.Bytes {
		t.Errorf("runs differ: events %d/%d end %v/%v bytes %+v/%+v", r1.Events, r2.Events, r1.SimEndNs, r2.SimEndNs, r1.Bytes, r2.Bytes)
	}

	// Other seeds (ECN marking draws) still complete every flow.
	for _, seed := range []uint64{2, 12345} {
		r := runIncast(t, s, assemble.Options{Seed: seed})
		if r.Seed != seed {
			t.Errorf("Seed = %d, want the override %d", r.Seed, seed)
		}
	}
}

// readSummary reads dir/summary.json without its wall-clock fields.
func readSummary(t *testing.T, dir string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("summary.json: %v", err)
	}
	delete(m, "wall_seconds")
	delete(m, "events_per_second")
	return m
}

func TestEndToEndOutputs(t *testing.T) {
	s := mustParse(t, incastYAML+`
outputs:
  ref_fct: true
  ref_pfc: true
  queue_sample_us: 10
  queue_ports: [{node: 5, port: 4}]
`)
	r := runIncast(t, s, assemble.Options{})
	if len(r.Queue) == 0 {
		t.Error("no queue samples")
	}
	dir := t.TempDir()
	if err := r.Write(dir); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"summary.json", "flows.csv", "fct.txt", "pfc.txt", "queue.csv"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	// A queue port that does not exist fails the build, naming the field.
	s = mustParse(t, incastYAML+"outputs: {queue_sample_us: 10, queue_ports: [{node: 5, port: 5}]}\n")
	if _, err := assemble.Build(s, "dcqcn", assemble.Options{}); err == nil || !strings.Contains(err.Error(), "outputs.queue_ports[0]") {
		t.Errorf("Build with a bad queue port: %v", err)
	}
	// A flow endpoint outside the topology fails the build.
	s = mustParse(t, "topology: {hosts: 3}\nworkload: {flows: [{src: 0, dst: 3, size_bytes: 1}]}\n")
	if _, err := assemble.Build(s, "dcqcn", assemble.Options{}); err == nil || !strings.Contains(err.Error(), "dst 3") {
		t.Errorf("Build with dst = switch: %v", err)
	}
}

func TestRunAllIsolatesFailures(t *testing.T) {
	s := mustParse(t, incastYAML)
	names := []string{"dcqcn", "none", "bogus"}
	var mu sync.Mutex
	started, finished := map[string]int{}, map[string]int{}
	res, errs := assemble.RunAll(s, names, assemble.Options{}, 2, func(name string, done bool) {
		mu.Lock()
		defer mu.Unlock()
		if done {
			finished[name]++
		} else {
			started[name]++
		}
	})
	if len(res) != len(names) || len(errs) != len(names) {
		t.Fatalf("RunAll returned %d results and %d errors for %d names", len(res), len(errs), len(names))
	}
	if errs[2] == nil || res[2] != nil {
		t.Errorf("bogus: result %v, error %v; want only an error", res[2], errs[2])
	} else if !strings.Contains(errs[2].Error(), `unknown algorithm "bogus"`) {
		t.Errorf("bogus: error %v", errs[2])
	}
	for i, name := range names[:2] {
		if errs[i] != nil {
			t.Errorf("%s: %v", name, errs[i])
			continue
		}
		r := res[i]
		if r == nil {
			t.Errorf("%s: no result", name)
			continue
		}
		if r.CC != name {
			t.Errorf("slot %d holds %q, want %q", i, r.CC, name)
		}
		if r.Summary.Unfinished != 0 || len(r.Flows) != 4 {
			t.Errorf("%s: %+v", name, r.Summary)
		}
		if b := r.Bytes; b.Sent != b.Delivered+b.InFlight+b.Dropped {
			t.Errorf("%s: bytes not conserved: %+v", name, b)
		}
	}
	for _, name := range names {
		if started[name] != 1 || finished[name] != 1 {
			t.Errorf("progress for %s: started %d finished %d", name, started[name], finished[name])
		}
	}

	// workers = 0 means all cores; nil progress is allowed.
	res, errs = assemble.RunAll(s, []string{"bogus", "none"}, assemble.Options{Seed: 7}, 0, nil)
	if errs[0] == nil || res[0] != nil || errs[1] != nil || res[1] == nil || res[1].Seed != 7 {
		t.Errorf("RunAll(bogus, none): %v %v", res, errs)
	}
}

// The checked-in scenarios load (with their referenced files) and build.
func TestLoadCheckedInScenarios(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "..", "scenarios", "*", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Skip("no checked-in scenarios")
	}
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			s, err := scenario.Load(p)
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range s.CC {
				b, err := assemble.Build(s, name, assemble.Options{})
				if err != nil {
					t.Fatalf("Build(%s): %v", name, err)
				}
				if len(b.Flows) == 0 {
					t.Errorf("Build(%s): no flows", name)
				}
			}
		})
	}
}
