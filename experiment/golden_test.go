package experiment

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ccsim/ccsim/metrics"
	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/scenario/assemble"
	"github.com/ccsim/ccsim/version"
)

// Golden outputs: every change of simulated behaviour must be deliberate.
// TestGolden runs a fixed set of small scenarios and compares the SHA-256 of
// each run's flows.csv bytes (and of a line of run counters: PFC frames,
// drops, the byte account, RTT samples) with testdata/golden.txt. After a
// deliberate behaviour change, rewrite the file with
//
//	go test ./experiment -run Golden -update
//
// and say in the commit why the outputs changed. GOLDEN_DUMP=DIR also writes
// each case's flows.csv into DIR (to compare two builds flow by flow).
var updateGolden = flag.Bool("update", false, "rewrite testdata/golden.txt with the current outputs")

const goldenFile = "testdata/golden.txt"

// goldenCase is one run: a scenario (a file or inline YAML) and an algorithm.
type goldenCase struct {
	name string
	file string // scenario file, relative to this package
	yaml string // or inline YAML
	cc   string
}

// e3YAML is paper 004's 80:1 incast (80 senders on 100 Gb/s, the receiver on
// 25 Gb/s, 50 QPs per sender) cut after stopMs of simulated time.
func e3YAML(stopMs float64) string {
	var senders, sizes []string
	for i := range 80 {
		senders = append(senders, fmt.Sprint(i))
		var sz int64
		switch {
		case i == 0:
			sz = 150_000_000
		case i < 3:
			sz = 200_000_000
		case i < 20:
			sz = 10_000_000
		default:
			sz = 5_000_000
		}
		sizes = append(sizes, fmt.Sprint(sz))
	}
	return fmt.Sprintf(`name: e3-cut
stop_ms: %g
topology:
  kind: star
  hosts: 81
  host_links: [{hosts: [80], gbps: 25}]
switch: {buffer_mib: 32, pfc: dynamic}
host: {payload_bytes: 1000}
workload:
  incast: {senders: [%s], receiver: 80, sizes_bytes: [%s], qps_per_sender: 50}
`, stopMs, strings.Join(senders, ", "), strings.Join(sizes, ", "))
}

// fatTreeYAML is a k = 4 fat-tree (16 hosts, 100 Gb/s host links, 400 Gb/s
// fabric, reference ECMP) with 2 ms of WebSearch at 80 % load.
const fatTreeYAML = `name: fat4-websearch
seed: 7
stop_ms: 50
topology: {kind: fat_tree, k: 4, link_gbps: 100, fabric_gbps: 400}
switch: {buffer_mib: 32, pfc: dynamic, ref_ecmp: true}
host: {payload_bytes: 1000}
workload:
  poisson: {cdf: websearch, load: 0.8, duration_ms: 2}
`

// lossyYAML: a lossy (PFC off) 8-to-1 incast into a small buffer: drops,
// NACKs, go-back-N and the RTO.
const lossyYAML = `name: lossy-incast
stop_ms: 100
topology: {kind: star, hosts: 9}
switch: {buffer_mib: 0.25, pfc: "off"}
host: {payload_bytes: 1000, rto_us: 200}
workload:
  incast: {senders: [0, 1, 2, 3, 4, 5, 6, 7], receiver: 8, sizes_bytes: [300000], qps_per_sender: 2}
`

// lossyLinkYAML: links with error rates (hosts 2 and 4) under a 4-to-1
// incast into host 4 with PFC: link losses, NACKs, the RTO.
const lossyLinkYAML = `name: lossy-links
stop_ms: 100
topology: {kind: ns3, file: testdata/lossy_links_topology.txt}
switch: {buffer_mib: 32, pfc: dynamic}
host: {payload_bytes: 1000, rto_us: 300}
workload:
  incast: {senders: [0, 1, 2, 3], receiver: 4, sizes_bytes: [2000000]}
`

func goldenCases() []goldenCase {
	var cs []goldenCase
	for _, size := range []string{"1MB", "10MB"} {
		for _, cc := range []string{"dcqcn", "hpcc", "timely", "dctcp", "dcqcnp"} {
			cs = append(cs, goldenCase{name: "incast20-" + size + "/" + cc, file: "../scenarios/reference/incast20-" + size + ".yaml", cc: cc})
		}
	}
	for _, cc := range []string{"hpcc", "dcqcn", "timely", "dctcp"} {
		cs = append(cs, goldenCase{name: "fat4/" + cc, yaml: fatTreeYAML, cc: cc})
	}
	for _, cc := range []string{"dcqcn", "timely", "dctcp", "dcqcnp"} {
		cs = append(cs, goldenCase{name: "e3-20ms/" + cc, yaml: e3YAML(20), cc: cc})
	}
	for _, cc := range []string{"dcqcn", "dctcp"} {
		cs = append(cs, goldenCase{name: "lossy/" + cc, yaml: lossyYAML, cc: cc})
	}
	for _, cc := range []string{"dcqcn", "hpcc"} {
		cs = append(cs, goldenCase{name: "lossy-links/" + cc, yaml: lossyLinkYAML, cc: cc})
	}
	return cs
}

// runGolden runs one case and returns its flows.csv bytes and counters line.
func runGolden(tb testing.TB, c goldenCase) (flowsCSV []byte, counters string) {
	tb.Helper()
	var s *scenario.Scenario
	var err error
	if c.file != "" {
		s, err = scenario.Load(c.file)
	} else {
		s, err = scenario.Parse([]byte(c.yaml))
	}
	if err != nil {
		tb.Fatalf("%s: %v", c.name, err)
	}
	b, err := assemble.Build(s, c.cc, assemble.Options{})
	if err != nil {
		tb.Fatalf("%s: %v", c.name, err)
	}
	r := b.Run()
	var buf bytes.Buffer
	if err := metrics.WriteFlowsCSV(&buf, r.Flows); err != nil {
		tb.Fatal(err)
	}
	if r.Bytes.Sent != r.Bytes.Delivered+r.Bytes.InFlight+r.Bytes.Dropped {
		tb.Errorf("%s: byte conservation: %+v", c.name, r.Bytes)
	}
	// the QPs' final state: runs cut before flows finish (e3) still show
	// any change of behaviour
	qh := sha256.New()
	for i := range b.Net.QPs {
		q := &b.Net.QPs[i]
		fmt.Fprintln(qh, q.SndUna, q.SndNxt, q.RateBps, q.TxPackets, q.RetxBytes, q.CNPs, q.Nacks, q.RateCuts)
	}
	counters = fmt.Sprintf("unfinished %d pause %d resume %d drops %d bytes %+v rtt %d %.6f qps %x", r.Summary.Unfinished,
		r.PFC.PauseFrames, r.PFC.ResumeFrames, r.Drops, r.Bytes, r.RTT.Samples, r.RTT.MeanUs, qh.Sum(nil)[:8])
	return buf.Bytes(), counters
}

func sha(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func readGolden(t *testing.T) map[string][2]string {
	m := map[string][2]string{}
	f, err := os.Open(goldenFile)
	if err != nil {
		if os.IsNotExist(err) {
			return m
		}
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if v, ok := strings.CutPrefix(line, "version "); ok {
			m[goldenVersionKey] = [2]string{v, ""}
			continue
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fs := strings.Fields(line)
		if len(fs) != 3 {
			t.Fatalf("%s: bad line %q", goldenFile, line)
		}
		m[fs[0]] = [2]string{fs[1], fs[2]}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return m
}

// goldenVersionKey holds the ccsim version recorded with the hashes.
const goldenVersionKey = "\x00version"

// bumpHint is appended to every mismatch: a deliberate behaviour change
// must also bump the version, which keys the reproduction results.
const bumpHint = "\nIf the behaviour change is deliberate, bump version.Version (version/version.go: stored `ccsim reproduce` runs are keyed by it, so results of the old behaviour are not reused), then record it with\n\tgo test ./experiment -run Golden -update"

// TestGolden compares every golden case's outputs with the recorded hashes.
func TestGolden(t *testing.T) {
	want := readGolden(t)
	recordedVersion := want[goldenVersionKey][0]
	cases := goldenCases()
	got := make([][2]string, len(cases))
	for i, c := range cases {
		t0 := time.Now()
		csv, counters := runGolden(t, c)
		got[i] = [2]string{sha(csv), sha([]byte(counters))}
		t.Logf("%-22s %6.0f ms  %s", c.name, time.Since(t0).Seconds()*1e3, counters)
		if dir := os.Getenv("GOLDEN_DUMP"); dir != "" {
			// keep the outputs, e.g. to compare two builds flow by flow
			p := filepath.Join(dir, strings.ReplaceAll(c.name, "/", "_")+".csv")
			if err := os.WriteFile(p, csv, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if *updateGolden {
			continue
		}
		w, ok := want[c.name]
		switch {
		case !ok:
			t.Errorf("%s: no recorded hash in %s (run go test ./experiment -run Golden -update)", c.name, goldenFile)
		case w[0] != got[i][0]:
			t.Errorf("%s: flows.csv changed: sha256 %s, recorded %s.%s", c.name, got[i][0], w[0], bumpHint)
		case w[1] != got[i][1]:
			t.Errorf("%s: run counters changed (%s): sha256 %s, recorded %s.%s", c.name, counters, got[i][1], w[1], bumpHint)
		}
	}
	if !*updateGolden {
		return
	}
	if recordedVersion == version.Version {
		for i, c := range cases {
			if w, ok := want[c.name]; ok && w != got[i] {
				t.Fatalf("%s changed but version.Version is still %s, as recorded: bump it first (version/version.go), then -update", c.name, version.Version)
			}
		}
	}
	var out strings.Builder
	out.WriteString("# Golden outputs of TestGolden: case, sha256 of flows.csv, sha256 of the run counters line.\n")
	out.WriteString("# Rewrite with: go test ./experiment -run Golden -update (only for deliberate behaviour changes, after bumping version.Version).\n")
	fmt.Fprintf(&out, "version %s\n", version.Version)
	idx := make([]int, len(cases))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return cases[idx[a]].name < cases[idx[b]].name })
	for _, i := range idx {
		fmt.Fprintf(&out, "%s %s %s\n", cases[i].name, got[i][0], got[i][1])
	}
	if err := os.MkdirAll(filepath.Dir(goldenFile), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(goldenFile, []byte(out.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s (%d cases)", goldenFile, len(cases))
}
