package deccpost

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/cc/deccmodel"
	"github.com/ccsim/ccsim/ml/nn"
	"github.com/ccsim/ccsim/scenario"
)

var (
	rebuild = flag.Bool("rebuild", false, "rebuild the embedded students from the embedded teacher with DefaultConfig and compare (about 1.5 min)")
	write   = flag.Bool("write", false, "with -rebuild: write the rebuilt students into cc/deccmodel instead of comparing")
)

// TestConfigErrors: every field out of its range is refused, naming it and
// the range; the defaults and the quick configuration are valid.
func TestConfigErrors(t *testing.T) {
	for _, c := range []Config{DefaultConfig(), QuickConfig()} {
		if err := c.Validate(); err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
	}
	for _, c := range []struct {
		set  func(*Config)
		want string
	}{
		{func(c *Config) { c.Episodes = 0 }, "episodes = 0 out of range [1, 1e5]"},
		{func(c *Config) { c.EpisodeUs = 5 }, "episode_us = 5 out of range [10, 1e5]"},
		{func(c *Config) { c.Hosts = 2 }, "hosts = 2 out of range [3, 256]"},
		{func(c *Config) { c.Gbps = math.NaN() }, "gbps = NaN out of range [1, 1e4]"},
		{func(c *Config) { c.MaxFlows = 1 }, "max_flows = 1 out of range [2, 4096]"},
		{func(c *Config) { c.BuffersMB = nil }, "buffers_mb is empty"},
		{func(c *Config) { c.BuffersMB = []float64{1, 0.01} }, "buffers_mb[1] = 0.01 out of range [0.065536, 1e4]"},
		{func(c *Config) { c.Windows = 99 }, "windows = 99 out of range [100, 1e7]"},
		{func(c *Config) { c.TestFrac = 0.6 }, "test_frac = 0.6 out of range [0.01, 0.5]"},
		{func(c *Config) { c.ValidFrac = 0 }, "valid_frac = 0 out of range [0.01, 0.5]"},
		{func(c *Config) { c.Sparsity = 1 }, "sparsity = 1 out of range [0, 1)"},
		{func(c *Config) { c.Bits = 1 }, "bits = 1 out of range [2, 8]"},
		{func(c *Config) { c.Epochs = 0 }, "epochs = 0 out of range [1, 1e4]"},
		{func(c *Config) { c.Batch = 0 }, "batch = 0 out of range [1, 65536]"},
		{func(c *Config) { c.LR = 0 }, "lr = 0 out of range (0, 1]"},
		{func(c *Config) { c.Label = "mean" }, `label = "mean": allowed values greedy, expected`},
		{func(c *Config) { c.Trees = 0 }, "trees = 0 out of range [1, 1e5]"},
		{func(c *Config) { c.Depth = 11 }, "depth = 11 out of range [1, 10]"},
		{func(c *Config) { c.TreeRate = 2 }, "tree_rate = 2 out of range (0, 1]"},
		{func(c *Config) { c.L2 = -1 }, "l2 = -1 out of range [0, 1e6]"},
		{func(c *Config) { c.Borders = 255 }, "borders = 255 out of range [1, 254]"},
		{func(c *Config) { c.EarlyStop = 7000 }, "early_stop = 7000 out of range [0, trees = 500]"},
	} {
		cfg := DefaultConfig()
		c.set(&cfg)
		if err := cfg.Validate(); err == nil || err.Error() != c.want && !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("err = %v, want %q", err, c.want)
		}
	}
	if _, err := Build(nil, QuickConfig()); err == nil || !strings.Contains(err.Error(), "teacher is nil") {
		t.Errorf("nil teacher: err = %v", err)
	}
	if _, err := Build(cc.DECCDefaults().Policy(), Config{}); err == nil || !strings.HasPrefix(err.Error(), "episodes = 0") {
		t.Errorf("zero config: err = %v", err)
	}
}

// TestEpisodes: the recording scenarios parse; even episodes are
// many-to-one into host 0, odd ones many-to-many (two or more receivers,
// which send nothing); flow counts in [2, max_flows]; the same seed gives
// the same text and another seed another.
func TestEpisodes(t *testing.T) {
	cfg := DefaultConfig()
	for e := range 8 {
		y := episodeYAML(&cfg, e, fixturePath)
		if y != episodeYAML(&cfg, e, fixturePath) {
			t.Fatal("episode text not deterministic")
		}
		s, err := scenario.Parse([]byte(y))
		if err != nil {
			t.Fatalf("episode %d: %v\n%s", e, err, y)
		}
		fl := s.Workload.Flows
		if len(fl) < 2 || len(fl) > cfg.MaxFlows {
			t.Errorf("episode %d: %d flows", e, len(fl))
		}
		dst := map[scenario.NodeID]bool{}
		for _, f := range fl {
			dst[f.Dst] = true
		}
		for _, f := range fl {
			if dst[f.Src] {
				t.Errorf("episode %d: receiver %d also sends", e, f.Src)
			}
		}
		if e%2 == 0 && (len(dst) != 1 || !dst[0]) || e%2 == 1 && len(dst) < 2 && len(fl) >= 4 {
			t.Errorf("episode %d: receivers %v", e, dst)
		}
	}
	c2 := cfg
	c2.Seed = 2
	if episodeYAML(&cfg, 0, "m") == episodeYAML(&c2, 0, "m") {
		t.Error("seed 2 gives seed 1's episode")
	}
}

// TestLabels: the distillation labels of a forced actor (constant logits:
// every weight 0, the output bias ln 2 at index 10 and 0 elsewhere):
// greedy 0.5; expected (Σ_k a_k + a_10)/12 = 0.5/12 (I20).
func TestLabels(t *testing.T) {
	m := deccmodel.NewActor()
	ls := m.Layers()
	ls[len(ls)-1].Params()[1].W[10] = math.Ln2
	x := [][]float64{make([]float64, 25)}
	if y := labels(m, x, "greedy"); y[0] != 0.5 {
		t.Errorf("greedy label %v, want 0.5", y[0])
	}
	if y := labels(m, x, "expected"); math.Abs(y[0]-0.5/12) > 1e-15 {
		t.Errorf("expected label %v, want %v", y[0], 0.5/12)
	}
}

// TestSplit: the windows are cut into disjoint test, validation and
// training sets of the configured sizes, capped at windows, the same for a
// seed.
func TestSplit(t *testing.T) {
	ws := make([][]float64, 1000)
	for i := range ws {
		ws[i] = []float64{float64(i)}
	}
	cfg := DefaultConfig()
	cfg.Windows = 800
	s := splitWindows(ws, &cfg)
	if len(s.test) != 80 || len(s.valid) != 72 || len(s.train) != 648 {
		t.Errorf("sizes %d %d %d, want 80 72 648", len(s.test), len(s.valid), len(s.train))
	}
	seen := map[float64]bool{}
	for _, set := range [][][]float64{s.test, s.valid, s.train} {
		for _, w := range set {
			if seen[w[0]] {
				t.Fatalf("window %v twice", w[0])
			}
			seen[w[0]] = true
		}
	}
	if s2 := splitWindows(ws, &cfg); s2.test[0][0] != s.test[0][0] || s2.train[647][0] != s.train[647][0] {
		t.Error("split not deterministic")
	}
}

// TestQuickStage: the quick stage on the test teacher, twice: identical
// bytes; the files decode (packed network of the actor's shape, trees of 25
// features); Run writes the same files; Table 2's invariants hold
// (sparsity within 0.5 points of p* = 0.65, the packed file's length, the
// nonzero FLOPs); fine-tuning lowers the discrepancy; the trees follow the
// compressed network on at least 90 % of the held-out windows; another seed
// gives other bytes.
func TestQuickStage(t *testing.T) {
	m := loadFixture(t)
	cfg := QuickConfig()
	var phases []string
	cfg.Progress = func(p string, done, total int) {
		if done == total {
			phases = append(phases, p)
		}
	}
	a, err := Build(m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(phases, " ") != "record fine-tune trees" {
		t.Errorf("progress phases %v", phases)
	}
	cfg.Progress = nil
	dir := t.TempDir()
	rep, err := Run(m, cfg, dir)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][]byte{deccmodel.BinaryFile: a.Binary, deccmodel.TreesFile: a.Trees, deccmodel.ReportFile: a.ReportJSON} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: second run differs (%v)", name, err)
		}
	}
	pm, _, err := deccmodel.DecodeBinary(a.Binary)
	if err != nil || pm.Bits != 4 {
		t.Fatalf("binary: %v", err)
	}
	if _, err := deccmodel.DecodeTrees(a.Trees); err != nil {
		t.Fatal(err)
	}
	c := rep.Compression
	if math.Abs(c.Sparsity-0.65) > 0.005 || c.Weights != 19760 || c.Params != 20139 || c.PackedBytes != len(a.Binary) ||
		c.NonzeroFLOPs <= 0 || c.NonzeroFLOPs >= c.FLOPs || c.FLOPs != 192096 || c.FLOPsOneStep != 39520 {
		t.Errorf("compression figures %+v", c)
	}
	if !(c.Discrepancy < c.DiscrepancyBefore) || !(rep.Trees.Agreement >= 0.9) || rep.Trees.Trees < 1 {
		t.Errorf("discrepancy %v → %v, trees agreement %v", c.DiscrepancyBefore, c.Discrepancy, rep.Trees.Agreement)
	}
	if rep.Test+rep.Valid+rep.Train != min(rep.Recorded, cfg.Windows) {
		t.Errorf("split %d+%d+%d of %d", rep.Test, rep.Valid, rep.Train, rep.Recorded)
	}
	cfg.Seed = 2
	b, err := Build(m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(a.Trees, b.Trees) || bytes.Equal(a.Binary, b.Binary) {
		t.Error("seed 2 gives seed 1's students")
	}
}

// teacherSource returns the teacher the embedded students derive from: the
// shipped teacher cc/deccmodel/teacher.bin when it exists, else the test
// fixture (docs/algorithms/decc.md §11.3), and its path.
func teacherSource(t *testing.T) (*nn.Sequential, string) {
	path := filepath.Join("..", "..", "cc", "deccmodel", "teacher.bin")
	if _, err := os.Stat(path); err != nil {
		return loadFixture(t), fixturePath
	}
	m, _, err := deccmodel.LoadActorFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return m, path
}

// TestShippedStudents: the embedded students decode and their report names
// the teacher they derive from (the shipped teacher if there is one, else
// the test fixture) by its SHA-256, so a new teacher without regenerated
// students fails here. With -rebuild the stage runs with DefaultConfig and
// must reproduce the three embedded files byte for byte; -write stores
// them instead:
//
//	go test ./train/deccpost -run TestShippedStudents -rebuild -write -timeout 30m
func TestShippedStudents(t *testing.T) {
	m, from := teacherSource(t)
	bin, trees, rj := deccmodel.ShippedStudentBytes()
	if *rebuild {
		s, err := Build(m, DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s", s.ReportJSON)
		if *write {
			if err := s.WriteDir(filepath.Join("..", "..", "cc", "deccmodel")); err != nil {
				t.Fatal(err)
			}
			return
		}
		if !bytes.Equal(s.Binary, bin) || !bytes.Equal(s.Trees, trees) || !bytes.Equal(s.ReportJSON, rj) {
			t.Fatalf("rebuilt students differ from the embedded ones (teacher %s)", from)
		}
	}
	var rep Report
	if err := json.Unmarshal(rj, &rep); err != nil {
		t.Fatal(err)
	}
	enc, err := nn.Encode(m, "")
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(enc)
	if got := hex.EncodeToString(sum[:]); rep.TeacherSHA256 != got {
		t.Errorf("embedded students from teacher %s, the teacher (%s) is %s: regenerate them (-rebuild -write)", rep.TeacherSHA256, from, got)
	}
	if _, _, err := deccmodel.ShippedBinary(); err != nil {
		t.Error(err)
	}
	if _, err := deccmodel.ShippedTrees(); err != nil {
		t.Error(err)
	}
}

// TestLabelsContinuous: a continuous actor's label is its action
// 0.5·tanh(u) under either label setting (every weight 0, the output bias
// u = 0.8).
func TestLabelsContinuous(t *testing.T) {
	m := deccmodel.NewContinuousActor()
	ls := m.Layers()
	ls[len(ls)-1].Params()[1].W[0] = 0.8
	x := [][]float64{make([]float64, 25)}
	want := 0.5 * nn.DetTanh(0.8)
	for _, l := range []string{"greedy", "expected"} {
		if y := labels(m, x, l); y[0] != want {
			t.Errorf("%s label %v, want 0.5·tanh(0.8) = %v", l, y[0], want)
		}
	}
}

// TestQuickStageContinuous: the stage on a continuous teacher (a seeded
// random continuous actor scaled so that its action varies with the
// state): the report says so, the compressed network keeps the continuous
// shape, the trees regress the compressed network's actions (test RMSE
// below 0.4 × the teacher's actions' standard deviation; measured 0.087
// against 0.33 on this deliberately irregular actor) and `decc` with tree_output value runs them.
func TestQuickStageContinuous(t *testing.T) {
	m := deccmodel.NewContinuousActor()
	m.Init(nn.NewRand(11))
	for _, p := range m.Params() {
		for i := range p.W {
			p.W[i] *= 2.5
		}
	}
	s, err := Build(m, QuickConfig())
	if err != nil {
		t.Fatal(err)
	}
	rep := s.Report
	_, bin, err := deccmodel.DecodeBinary(s.Binary)
	if err != nil || !deccmodel.IsContinuous(bin) {
		t.Fatalf("binary: %v", err)
	}
	if rep.Actor != "continuous" {
		t.Errorf("report actor %q, want continuous", rep.Actor)
	}
	// the spread of the teacher's recorded actions (at their levels)
	levels, n, sum, sq := 0, 0.0, 0.0, 0.0
	for k, c := range rep.TeacherActions {
		if c > 0 {
			levels++
		}
		a := deccmodel.ActionValue(k)
		n, sum, sq = n+float64(c), sum+float64(c)*a, sq+float64(c)*a*a
	}
	sd := math.Sqrt(sq/n - (sum/n)*(sum/n))
	trees, err := deccmodel.DecodeTrees(s.Trees)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("teacher levels used %d %v; discrepancy %.4f; trees %d, test RMSE %.4f, agreement %.3f (compressed) %.3f (teacher)",
		levels, rep.TeacherActions, rep.Compression.Discrepancy, rep.Trees.Trees, rep.Trees.TestRMSE, rep.Trees.Agreement, rep.Trees.AgreementTeacher)
	if levels < 3 || !(rep.Trees.TestRMSE < 0.4*sd) {
		t.Errorf("teacher uses %d levels, trees' test RMSE %v: want ≥ 3 and < 0.4 × the actions' standard deviation %v", levels, rep.Trees.TestRMSE, sd)
	}
	p := cc.DECCTreeDefaults()
	p.TreeOutput = "value"
	p.SetTrees(trees, "test trees")
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	pol := cc.NewDECCTreeValuePolicy(trees)
	w := make([]float64, deccmodel.TreeFeatures)
	for i := range w {
		w[i] = 1
	}
	if a := pol.Act(w, deccmodel.History); a != min(max(trees.Predict(w), -0.5), 0.5) {
		t.Errorf("tree_output value: action %v, want the prediction %v clamped", a, trees.Predict(w))
	}
}
