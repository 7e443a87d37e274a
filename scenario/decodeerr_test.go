package scenario_test

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/scenario"
)

// errorList returns Parse's errors, one message each.
func errorList(t *testing.T, src string) []string {
	t.Helper()
	_, err := scenario.Parse([]byte(src))
	if err == nil {
		t.Fatalf("Parse succeeded\n--- input ---\n%s", src)
	}
	var errs scenario.Errors
	if !errors.As(err, &errs) {
		return []string{err.Error()}
	}
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

// A decoding error is reported once, naming its field and the type
// wanted; the zero value the decoder left behind is not reported again by
// validation (issue 19 §3.4: a duplicate stop_ms also reported stop_ms = 0,
// topology.kind = "" and more; link_gbps: "100G" also reported
// link_gbps = 0; seed: -1 did not name seed).
func TestDecodeErrorsWithoutFollowOns(t *testing.T) {
	const base = "name: t\nseed: 1\nstop_ms: 1\n" +
		"topology: {kind: star, hosts: 3, link_gbps: 100, link_delay_ns: 1000}\n" +
		"workload: {kind: incast, incast: {senders: [0, 1], receiver: 2, sizes_bytes: [1000, 1000]}}\n"
	cases := []struct {
		name, from, to string
		want           []string
	}{
		{"duplicate top-level key", "stop_ms: 1\n", "stop_ms: 1\nstop_ms: 2\n", []string{
			`line 4: mapping key "stop_ms" already defined at line 3 (YAML allows a key once per mapping; the fields of the document's top level are not read until it is fixed)`}},
		{"duplicate key in a section", "hosts: 3,", "hosts: 3, hosts: 4,", []string{
			`line 4: mapping key "hosts" already defined at line 4 (YAML allows a key once per mapping; the fields of topology are not read until it is fixed)`}},
		{"string for a number", "link_gbps: 100", `link_gbps: "100G"`, []string{
			"line 4: topology.link_gbps = 100G: want a number"}},
		{"negative seed", "seed: 1", "seed: -1", []string{
			"line 2: seed = -1: want a whole number in [0, 18446744073709551615]"}},
		{"scalar for a list", "name: t\n", "name: t\ncc: dcqcn\n", []string{
			"line 2: cc = dcqcn: want a list"}},
		{"decoding error beside a range error", "stop_ms: 1", "stop_ms: -1\nhost: {payload_bytes: x}", []string{
			"line 4: host.payload_bytes = x: want a whole number",
			"stop_ms = -1 out of range [1e-06, 1e+06]"}},
	}
	if _, err := scenario.Parse([]byte(base)); err != nil {
		t.Fatalf("base scenario: %v", err)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(base, tc.from, tc.to, 1)
			got := errorList(t, src)
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// Parameters of an algorithm the cc list does not select are checked too
// (issue 19 §3.5: params: {hpcc: {eta: 5}} passed with cc: [dcqcn]); those
// of a base name a listed variant reads are checked once.
func TestParamsOfUnselectedAlgorithmsChecked(t *testing.T) {
	const base = "name: t\nstop_ms: 1\ncc: [dcqcn+win]\n" +
		"topology: {kind: star, hosts: 3}\n" +
		"workload: {kind: flows, flows: [{src: 0, dst: 1, size_bytes: 1000}]}\n"
	got := errorList(t, base+"params: {hpcc: {eta: 5}, dcqcn: {bogus: 1}}\n")
	want := []string{
		"params.dcqcn+win: line 6: field bogus not found in type",
		"params.hpcc.eta = 5 out of range",
	}
	if len(got) != len(want) {
		t.Fatalf("errors:\n%s\nwant %d", strings.Join(got, "\n"), len(want))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("error %d = %q, want prefix %q", i, got[i], want[i])
		}
	}
	if _, err := scenario.Parse([]byte(base + "params: {hpcc: {eta: 0.9}}\n")); err != nil {
		t.Errorf("valid params of an unselected algorithm: %v", err)
	}
}

// A scenario file larger than MaxFileBytes is refused after reading at
// most that much (issue 19 §3.9: `validate /dev/zero` read without limit).
func TestLoadRefusesHugeFile(t *testing.T) {
	path := "/dev/zero"
	if _, err := os.Stat(path); err != nil {
		path = hugeFile(t)
	}
	if _, err := scenario.Load(path); err == nil || !strings.Contains(err.Error(), "larger than 16 MiB") {
		t.Errorf("Load(%s) = %v, want larger than 16 MiB", path, err)
	}
	if _, _, err := scenario.DecodeFile(path); err == nil || !strings.Contains(err.Error(), "larger than 16 MiB") {
		t.Errorf("DecodeFile(%s) = %v, want larger than 16 MiB", path, err)
	}
}

// hugeFile writes a file one byte over the limit.
func hugeFile(t *testing.T) string {
	p := t.TempDir() + "/big.yaml"
	if err := os.WriteFile(p, make([]byte, scenario.MaxFileBytes+1), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
