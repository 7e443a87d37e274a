package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/sim"
)

func run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	c := runCmd()
	switch args[0] {
	case "validate":
		c = validateCmd()
	case "list":
		c = listCmd()
	case "default":
		c = defaultCmd()
	case "reproduce":
		c = reproduceCmd()
	case "train":
		c = trainCmd()
	case "plot":
		c = plotCmd()
	}
	var out bytes.Buffer
	c.SetOut(&out)
	c.SetErr(&out)
	c.SetArgs(args[1:])
	err := c.Execute()
	return out.String(), err
}

func TestListShowsEveryAlgorithm(t *testing.T) {
	out, err := run(t, "list")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range cc.Names() {
		if !strings.Contains(out, name+" — ") {
			t.Errorf("list lacks %s", name)
		}
	}
	if !strings.Contains(out, "rp_timer_us") || !strings.Contains(out, "300") {
		t.Error("list lacks dcqcn's rp_timer_us default 300")
	}
}

func TestValidateReportsEveryError(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("topology: {kind: star, hosts: 1}\nswitch: {pfc: maybe}\nworkload: {flows: [{src: 0, dst: 0, size_bytes: 10}]}\n"), 0o644)
	out, err := run(t, "validate", bad, "../../scenarios/reference/incast20-1MB.yaml")
	if err == nil {
		t.Fatal("validate accepted a bad file")
	}
	for _, want := range []string{"topology.hosts = 1", "switch.pfc", "src and dst are both 0", "incast20-1MB.yaml: ok"} {
		if !strings.Contains(out, want) {
			t.Errorf("validate output lacks %q:\n%s", want, out)
		}
	}
}

func TestRunWritesResultsAndTable(t *testing.T) {
	dir := t.TempDir()
	scen := filepath.Join(dir, "s.yaml")
	os.WriteFile(scen, []byte("name: t\ntopology: {kind: star, hosts: 3}\nworkload:\n  incast: {senders: [0, 1], receiver: 2, sizes_bytes: [100000]}\noutputs: {ref_fct: true}\n"), 0o644)
	out, err := run(t, "run", scen, "--cc", "dcqcn,hpcc+win", "--out", filepath.Join(dir, "res"))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"dcqcn ", "hpcc+win ", "rtt_mean"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	for _, f := range []string{"dcqcn/summary.json", "dcqcn/flows.csv", "dcqcn/fct.txt", "hpcc+win/flows.csv"} {
		if st, err := os.Stat(filepath.Join(dir, "res", f)); err != nil || st.Size() == 0 {
			t.Errorf("%s missing or empty", f)
		}
	}
	// a bad algorithm name fails that run only
	out, err = run(t, "run", scen, "--cc", "dcqcn,nosuch", "--out", filepath.Join(dir, "res2"))
	if err == nil {
		t.Fatal("unknown algorithm accepted")
	}
	if !strings.Contains(out, "nosuch") {
		t.Errorf("the output does not name the unknown algorithm:\n%s", out)
	}
}

func TestRefCompare(t *testing.T) {
	dir := t.TempDir()
	if out, err := run(t, "run", "../../scenarios/reference/incast20-1MB.yaml", "--out", dir); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	refcompare := func(ref string) (string, string, error) {
		c := refCompareCmd()
		var out, errw bytes.Buffer
		c.SetOut(&out)
		c.SetErr(&errw)
		c.SetArgs([]string{filepath.Join(dir, "dcqcn"), ref})
		err := c.Execute()
		return out.String(), errw.String(), err
	}
	out, errs, err := refcompare("../../scenarios/reference/expected/fct_incast20_1MB_dcqcn.txt")
	if err != nil {
		t.Fatal(err)
	}
	// 1 MB flows fall in the 100 KB–1 MB range (inclusive upper bound)
	if !regexpMatch(`(?m)^100KB-1MB\s+20/20\s`, out) || strings.Contains(errs, "warning") {
		t.Errorf("refcompare output:\n%s\nstderr:\n%s", out, errs)
	}
	// issue 19 §3.9: another input's reference is flagged, an empty one
	// refused
	_, errs, err = refcompare("../../scenarios/reference/expected/fct_incast20_10MB_dcqcn.txt")
	if err != nil || !strings.Contains(errs, "warning: 20 of the reference's 20 flows have no flow of the same size and start time") {
		t.Errorf("a reference of other flows: error %v, stderr %q", err, errs)
	}
	empty := filepath.Join(dir, "empty.txt")
	os.WriteFile(empty, nil, 0o644)
	if _, _, err = refcompare(empty); err == nil || !strings.Contains(err.Error(), "no flows") {
		t.Errorf("an empty reference: error %v, want no flows", err)
	}
}

// --seed 0 is a seed like any other, not "no override".
func TestRunSeedZero(t *testing.T) {
	dir := t.TempDir()
	scen := filepath.Join(dir, "s.yaml")
	os.WriteFile(scen, []byte("name: t\nseed: 5\ntopology: {kind: star, hosts: 3}\nworkload: {flows: [{src: 0, dst: 2, size_bytes: 10000}]}\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{{nil, `"seed": 5,`}, {[]string{"--seed", "0"}, `"seed": 0,`}, {[]string{"--seed", "3"}, `"seed": 3,`}} {
		res := filepath.Join(dir, "res")
		if out, err := run(t, append([]string{"run", scen, "--out", res, "--cc", "none"}, c.args...)...); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		js, err := os.ReadFile(filepath.Join(res, "none", "summary.json"))
		if err != nil || !strings.Contains(string(js), c.want) {
			t.Errorf("%v: summary.json lacks %s: %v\n%s", c.args, c.want, err, js)
		}
	}
}

// validate builds what run builds: every input run rejects, validate
// rejects too, with the same message.
func TestValidateBuildsLikeRun(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "badflows.txt"), []byte("2\n0 1 3 100 1000 0\n0 1 3 100 abc 0\n"), 0o644)
	const topo = "topology: {kind: star, hosts: 3}\n"
	const flows = "workload: {flows: [{src: 0, dst: 1, size_bytes: 1000}]}\n"
	for _, c := range []struct{ name, yaml, want string }{
		{"missing host", topo + "workload: {flows: [{src: 0, dst: 7, size_bytes: 1000}]}\n", "dst 7"},
		{"switch as host", topo + "workload: {flows: [{src: 3, dst: 1, size_bytes: 1000}]}\n", "src 3"},
		{"incast to a switch", topo + "workload: {incast: {senders: [0, 1], receiver: 3, sizes_bytes: [1000]}}\n", "dst 3"},
		{"poisson hosts", topo + "workload: {poisson: {cdf: websearch, load: 0.1, duration_ms: 0.01, hosts: [0, 3]}}\n", "workload.poisson.hosts"},
		{"queue port", topo + flows + "outputs: {queue_sample_us: 1, queue_ports: [{node: 3, port: 9}]}\n", "outputs.queue_ports[0]"},
		{"cdf name", topo + "workload: {poisson: {cdf: websearh, load: 0.1, duration_ms: 0.01}}\n", `"websearh"`},
		{"flow file line", topo + "workload: {file: badflows.txt}\n", "workload.file"},
		{"host_links host", "topology: {kind: star, hosts: 3, host_links: [{hosts: [3], gbps: 10}]}\n" + flows, "topology.host_links[0].hosts[0] = 3"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".yaml")
			os.WriteFile(p, []byte("name: t\ncc: [none]\n"+c.yaml), 0o644)
			out, err := run(t, "validate", p)
			if err == nil || !strings.Contains(out, c.want) {
				t.Errorf("validate: %v, output lacks %q:\n%s", err, c.want, out)
			}
			out, err = run(t, "run", p, "--out", filepath.Join(dir, "res"))
			if err == nil || !strings.Contains(out+err.Error(), c.want) {
				t.Errorf("run: %v, output lacks %q:\n%s", err, c.want, out)
			}
		})
	}
}

// validate reports every error of a file at once: range errors, algorithm
// parameters (with the line in the file) and what only building finds.
func TestValidateReportsEverythingAtOnce(t *testing.T) {
	p := filepath.Join(t.TempDir(), "many.yaml")
	os.WriteFile(p, []byte(`name: many
stop_ms: -1
params:
  dcqcn:
    g: 7
    bogus: 1
topology: {kind: star, hosts: 3}
workload:
  flows: [{src: 0, dst: 7, size_bytes: 1000}, {src: 9, dst: 1, size_bytes: 1000}]
  poisson: {cdf: websearh, load: 0.1, duration_ms: 0.01}
outputs: {queue_sample_us: 1, queue_ports: [{node: 3, port: 9}]}
`), 0o644)
	out, err := run(t, "validate", p)
	if err == nil {
		t.Fatal("validate accepted the file")
	}
	for _, want := range []string{"stop_ms = -1", "params.dcqcn.g = 7", "line 6", "bogus", "dst 7", "src 9", `"websearh"`, "outputs.queue_ports[0]"} {
		if !strings.Contains(out, want) {
			t.Errorf("validate output lacks %q:\n%s", want, out)
		}
	}
}

// A result directory holds one run's files only, and a scenario name
// cannot point outside the results directory.
func TestRunReplacesResultsAndRejectsPathNames(t *testing.T) {
	dir := t.TempDir()
	scen := filepath.Join(dir, "s.yaml")
	const body = "cc: [none]\ntopology: {kind: star, hosts: 3}\nworkload: {flows: [{src: 0, dst: 2, size_bytes: 10000}]}\n"
	os.WriteFile(scen, []byte("name: t\n"+body+"outputs: {ref_fct: true, queue_sample_us: 1, queue_ports: [{node: 3, port: 2}]}\n"), 0o644)
	res := filepath.Join(dir, "res")
	if out, err := run(t, "run", scen, "--out", res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	os.WriteFile(scen, []byte("name: t\n"+body), 0o644)
	if out, err := run(t, "run", scen, "--out", res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, f := range []string{"fct.txt", "queue.csv"} {
		if _, err := os.Stat(filepath.Join(res, "none", f)); err == nil {
			t.Errorf("%s of the first run is still in the result directory", f)
		}
	}
	es, _ := os.ReadDir(res)
	if len(es) != 1 || es[0].Name() != "none" {
		t.Errorf("results directory holds %v, want only none/", es)
	}
	// name: ../../x is rejected before anything is written
	work := filepath.Join(dir, "a", "b")
	os.MkdirAll(work, 0o755)
	os.WriteFile(scen, []byte("name: ../../x\n"+body), 0o644)
	wd, _ := os.Getwd()
	os.Chdir(work)
	defer os.Chdir(wd)
	out, err := run(t, "run", scen)
	if err == nil || !strings.Contains(err.Error(), `name = "../../x"`) {
		t.Errorf("run with name ../../x: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "a", "x")); err == nil { // results/../../x
		t.Error("run wrote outside the results directory")
	}
}

// A failed run is listed as failed, its results are not announced, the
// others' are, and the command fails.
func TestRunReportsOnlyWrittenResults(t *testing.T) {
	dir := t.TempDir()
	scen := filepath.Join(dir, "s.yaml")
	os.WriteFile(scen, []byte("name: t\ntopology: {kind: star, hosts: 3}\nworkload: {flows: [{src: 0, dst: 2, size_bytes: 10000}]}\n"), 0o644)
	res := filepath.Join(dir, "res")
	os.MkdirAll(res, 0o755)
	os.WriteFile(filepath.Join(res, "none"), []byte("in the way"), 0o644) // none's results cannot be written
	out, err := run(t, "run", scen, "--cc", "dcqcn,none", "--out", res)
	if err == nil || !strings.Contains(err.Error(), "1 of 2 runs failed") {
		t.Errorf("error %v, want 1 of 2 runs failed", err)
	}
	if !strings.Contains(out, filepath.Join(res, "dcqcn")) {
		t.Errorf("output does not name dcqcn's results:\n%s", out)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "<cc>") || strings.HasPrefix(line, "results") && strings.Contains(line, "none") {
			t.Errorf("output announces results that were not written: %q", line)
		}
	}
	if !strings.Contains(out, "failed") || !regexpMatch(`(?m)^\s*none: .*not a directory`, out) {
		t.Errorf("output does not list none as failed:\n%s", out)
	}
}

// Flows the stop time cut off show in the printed table.
func TestRunTableShowsUnfinishedFlows(t *testing.T) {
	dir := t.TempDir()
	scen := filepath.Join(dir, "s.yaml")
	os.WriteFile(scen, []byte("name: t\nstop_ms: 0.01\ncc: [none]\ntopology: {kind: star, hosts: 3}\nworkload: {flows: [{src: 0, dst: 2, size_bytes: 10000000}, {src: 1, dst: 2, size_bytes: 1000}]}\n"), 0o644)
	out, err := run(t, "run", scen, "--out", filepath.Join(dir, "res"))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(out, "unfinished") || !regexpMatch(`(?m)^none\s+2\s+1\s+1\s`, out) {
		t.Errorf("table lacks the unfinished column (flows 2, done 1, unfinished 1):\n%s", out)
	}
	if !regexpMatch(`unfinished.*stop_ms.*none: 1 of 2`, out) {
		t.Errorf("no line names the run with unfinished flows:\n%s", out)
	}
	// the 10-MB flow is censored at the end, 10 µs after its start: the
	// mean FCT and the largest FCT include it and are lower bounds
	if !regexpMatch(`(?m)^none\s+2\s+1\s+1\s.*≥\d+\.\d\d\s+≥10\.00\s`, out) {
		t.Errorf("fct_mean and finish are not marked as lower bounds (≥, finish ≥10.00):\n%s", out)
	}
}

func regexpMatch(re, s string) bool { return regexp.MustCompile(re).MatchString(s) }

// refcompare names its columns and shows "-" for a range without flows
// instead of NaN.
func TestRefCompareEmptyRangesAndHeader(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "flows.csv"), []byte("flow_id,src,dst,size_bytes,start_ns,finish_ns,fct_ns,ideal_fct_ns,slowdown\n"+
		"0,0,2,50000,0,20000,20000,10000,2\n1,1,2,50000,0,30000,30000,10000,3\n"), 0o644)
	ref := filepath.Join(dir, "fct.txt")
	os.WriteFile(ref, []byte("0b000001 0b000201 10000 100 50000 0 25000 10000\n0b000101 0b000201 10000 100 2000000 0 400000 200000\n"), 0o644)
	c := refCompareCmd()
	var out bytes.Buffer
	c.SetOut(&out)
	c.SetArgs([]string{dir, ref})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	if strings.Contains(s, "NaN") || strings.Contains(s, "Inf") {
		t.Errorf("output shows NaN/Inf:\n%s", s)
	}
	for _, want := range []string{"range", "flows ccsim/ref", "p50 ccsim", "p99 ccsim", "ref", "diff"} {
		if !strings.Contains(strings.SplitN(s, "\n", 2)[0], want) {
			t.Errorf("header lacks %q:\n%s", want, s)
		}
	}
	for _, re := range []string{
		`(?m)^<100KB\s+2/1\s+3\.0000\s+2\.5000\s+\+20\.00%\s+3\.0000\s+2\.5000\s+\+20\.00%$`,
		`(?m)^100KB-1MB\s+0/0\s+-\s+-\s+-\s+-\s+-\s+-$`,
		`(?m)^>1MB\s+0/1\s+-\s+2\.0000\s+-\s+-\s+2\.0000\s+-$`,
	} {
		if !regexpMatch(re, s) {
			t.Errorf("no line matches %s:\n%s", re, s)
		}
	}
}

// A bad --out is refused before anything runs (issue 19 §3.2): a path
// that cannot be created, and a non-empty directory without ccsim results;
// a directory of earlier results is accepted.
func TestRunRefusesBadOut(t *testing.T) {
	dir := t.TempDir()
	scen := filepath.Join(dir, "s.yaml")
	os.WriteFile(scen, []byte("name: t\ntopology: {kind: star, hosts: 3}\nworkload:\n  incast: {senders: [0, 1], receiver: 2, sizes_bytes: [1000]}\n"), 0o644)
	file := filepath.Join(dir, "afile")
	os.WriteFile(file, []byte("x"), 0o644)
	foreign := filepath.Join(dir, "home")
	os.MkdirAll(filepath.Join(foreign, "Documents"), 0o755)
	os.WriteFile(filepath.Join(foreign, "notes.txt"), []byte("x"), 0o644)
	for _, tc := range []struct{ out, want string }{
		{filepath.Join(file, "res"), "cannot create the results directory"},
		{foreign, "not empty and holds no ccsim results (Documents, notes.txt)"},
	} {
		out, err := run(t, "run", scen, "--cc", "dcqcn", "--out", tc.out)
		if err == nil || !strings.Contains(err.Error(), "--out "+tc.out) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("--out %s: error %v, want one naming --out and %q\n%s", tc.out, err, tc.want, out)
		}
		if strings.Contains(out, "scenario t") {
			t.Errorf("--out %s: the runs ran before the refusal:\n%s", tc.out, out)
		}
	}
	res := filepath.Join(dir, "res")
	for range 2 { // the second time into its own earlier results
		if out, err := run(t, "run", scen, "--cc", "dcqcn", "--out", res); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
	}
}

// --workers outside [0, 4096] is refused by run, reproduce and train
// (issue 19 §3.9: -5 was accepted).
func TestWorkersRange(t *testing.T) {
	dir := t.TempDir()
	scen := filepath.Join(dir, "s.yaml")
	os.WriteFile(scen, []byte("name: t\ntopology: {kind: star, hosts: 3}\nworkload:\n  incast: {senders: [0, 1], receiver: 2, sizes_bytes: [1000]}\n"), 0o644)
	for _, args := range [][]string{
		{"run", scen, "--out", filepath.Join(dir, "r"), "--workers", "-5"},
		{"reproduce", "dcqcn-p", "--out", filepath.Join(dir, "p"), "--workers", "-5"},
		{"train", "pidnn", "--out", filepath.Join(dir, "m"), "--workers", "5000"},
	} {
		_, err := run(t, args...)
		if err == nil || !strings.Contains(err.Error(), "--workers = ") || !strings.Contains(err.Error(), "out of range [0, 4096]") {
			t.Errorf("%v: error %v, want --workers out of range", args, err)
		}
	}
}

// Values that do not exist show "-", not 0.00 (issue 19 §3.3): a run that
// ends before any ACK has no RTT sample and no finished flow.
func TestTableShowsMissingValues(t *testing.T) {
	dir := t.TempDir()
	scen := filepath.Join(dir, "s.yaml")
	os.WriteFile(scen, []byte("name: t\nstop_ms: 0.0001\ntopology: {kind: star, hosts: 3}\nworkload:\n  incast: {senders: [0, 1], receiver: 2, sizes_bytes: [100000]}\n"), 0o644)
	out, err := run(t, "run", scen, "--cc", "dcqcn", "--out", filepath.Join(dir, "res"))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// cc flows done unfinished rtt_mean rtt_p99 rtt_max rate_mean fct_mean finish jain
	if !regexpMatch(`(?m)^dcqcn\s+2\s+0\s+2\s+-\s+-\s+-\s+-\s+≥0\.10\s+≥0\.10\s+0\.\d{4}\s`, out) {
		t.Errorf("table:\n%s", out)
	}
}

// A flow that starts after the stop time is valid but never sends:
// validate and run warn of it (issue 19 §3.10).
func TestWarnsOfFlowsAfterStop(t *testing.T) {
	dir := t.TempDir()
	scen := filepath.Join(dir, "s.yaml")
	os.WriteFile(scen, []byte("name: t\nstop_ms: 1\ntopology: {kind: star, hosts: 3}\nworkload: {flows: [{src: 0, dst: 2, size_bytes: 1000}, {src: 1, dst: 2, size_bytes: 1000, start_ns: 1000000}]}\n"), 0o644)
	out, err := run(t, "validate", scen)
	if err != nil || !strings.Contains(out, "warning: workload: 1 of 2 flows start at or after the stop time, stop_ms = 1 after the first start at 0ns (the first of them: flow 1 at 1ms)") {
		t.Errorf("validate: %v\n%s", err, out)
	}
	out, err = run(t, "run", scen, "--out", filepath.Join(dir, "r"))
	if err != nil || !strings.Contains(out, "ccsim: warning: "+scen+": workload: 1 of 2 flows") {
		t.Errorf("run: %v\n%s", err, out)
	}
	// the stop time counts from the first start (the reference's flows
	// start at 2 s): flows at 2 s and 2.999999 s with stop_ms 1 all run
	os.WriteFile(scen, []byte("name: t\nstop_ms: 1\ntopology: {kind: star, hosts: 3}\nworkload: {flows: [{src: 0, dst: 2, size_bytes: 1000, start_ns: 2000000000}, {src: 1, dst: 2, size_bytes: 1000, start_ns: 2000999999}]}\n"), 0o644)
	if out, err := run(t, "validate", scen); err != nil || strings.Contains(out, "warning") {
		t.Errorf("flows starting before the stop time: %v\n%s", err, out)
	}
}

// plot (issue 19 §3.8): a run that kept only queue_cdf.csv gets its queue
// CDF plot; runs of a reproduction's store are labelled by their key and
// plotted into ./plots, never into the store, and an --out inside the
// store is refused.
func TestPlotStoredRunsAndQueueCDF(t *testing.T) {
	dir := t.TempDir()
	scen := filepath.Join(dir, "s.yaml")
	os.WriteFile(scen, []byte("name: t\ntopology: {kind: star, hosts: 3}\nworkload:\n  incast: {senders: [0, 1], receiver: 2, sizes_bytes: [100000]}\noutputs: {queue_cdf: true}\n"), 0o644)
	res := filepath.Join(dir, "res")
	if out, err := run(t, "run", scen, "--cc", "dcqcn", "--out", res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// a store: runs/<hash>/ with a run.json
	stored := filepath.Join(dir, "store", "runs", "0123456789abcdef")
	os.MkdirAll(filepath.Dir(stored), 0o755)
	if err := os.Rename(filepath.Join(res, "dcqcn"), stored); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(stored, "run.json"), []byte(`{"hash": "0123456789abcdef", "key": "load=0.5 cc=dcqcn seed=1", "cc": "dcqcn"}`), 0o644)
	before, _ := os.ReadDir(stored)
	t.Chdir(dir)
	out, err := run(t, "plot", filepath.Join("store", "runs"))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(out, "run load=0.5 cc=dcqcn seed=1: store/runs/0123456789abcdef") || !strings.Contains(out, filepath.Join("plots", "queue_cdf.svg")) {
		t.Errorf("plot output:\n%s", out)
	}
	if ents, _ := os.ReadDir(stored); len(ents) != len(before) {
		t.Errorf("the stored run holds %d entries after plotting, want its %d files", len(ents), len(before))
	}
	if _, err := run(t, "plot", filepath.Join("store", "runs"), "--out", filepath.Join("store", "runs")); err == nil || !strings.Contains(err.Error(), "inside a reproduction's stored run") {
		t.Errorf("--out into the store: %v", err)
	}
}

// The run progress shows the share of stop_ms simulated and an ETA
// (issue 19 §3.6).
func TestRunProgressLine(t *testing.T) {
	var w strings.Builder
	p := newProgressOn(&w, false, 2, 10*sim.Millisecond)
	p.every = 0
	p.update("dcqcn", false)
	p.update("hpcc", false)
	p.simTime("dcqcn", 5*sim.Millisecond)
	p.update("hpcc", true)
	lines := strings.Split(strings.TrimSpace(w.String()), "\n")
	last := lines[len(lines)-1]
	// (1 finished + 0.5) / 2 runs = 75 %
	if !regexpMatch(`^ccsim run: \[1/2\] 75% of stop_ms simulated, [0-9.]+m?s elapsed, ETA [0-9a-z.]+; running: dcqcn 50%$`, last) {
		t.Errorf("progress lines:\n%s", w.String())
	}
	p.update("dcqcn", true)
	if !strings.Contains(w.String(), "[2/2] 100% of stop_ms simulated") {
		t.Errorf("no closing line:\n%s", w.String())
	}
}

// A lossless fabric that drops a flow's last ACK leaves the flow
// unfinished for good: ccsim run says how many flows wait only for that
// ACK (docs/metrics.md §17).
func TestRunNamesFlowsAwaitingAck(t *testing.T) {
	dir := t.TempDir()
	topo := filepath.Join(dir, "topo.txt")
	os.WriteFile(topo, []byte("3 1 2\n2\n0 2 100Gbps 1000ns 0\n1 2 100Gbps 1000ns 0.2\n"), 0o644)
	var flows []string
	for i := range 200 {
		flows = append(flows, fmt.Sprintf("{src: 0, dst: 1, size_bytes: 1000, start_ns: %d}", i*1000))
	}
	scen := filepath.Join(dir, "s.yaml")
	os.WriteFile(scen, []byte(fmt.Sprintf("name: t\nstop_ms: 5\ncc: [none]\ntopology: {kind: ns3, file: %q}\nworkload: {flows: [%s]}\n", topo, strings.Join(flows, ", "))), 0o644)
	out, err := run(t, "run", scen, "--out", filepath.Join(dir, "r"))
	if err != nil || !regexpMatch(`(?m)^of them, flows whose receiver holds every byte but whose last ACK never reached the sender .*: none: [1-9][0-9]*$`, out) {
		t.Errorf("run: %v\n%s", err, out)
	}
	os.WriteFile(scen, []byte(fmt.Sprintf("name: t\nstop_ms: 5\ncc: [none]\ntopology: {kind: ns3, file: %q}\nhost: {rto_us: 100, ack_duplicates: true}\nworkload: {flows: [%s]}\n", topo, strings.Join(flows, ", "))), 0o644)
	out, err = run(t, "run", scen, "--out", filepath.Join(dir, "r2"))
	if err != nil || strings.Contains(out, "last ACK") || strings.Contains(out, "unfinished flows") {
		t.Errorf("with rto_us and ack_duplicates: %v\n%s", err, out)
	}
}
