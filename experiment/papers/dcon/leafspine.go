package dcon

// The leaf-spine of E3 and E4 (scenarios/papers/dcon/leafspine.yaml): its
// size and patches at each scale, the NS-3 switch settings the paper leaves
// open (readings), and the point read from a run.

import (
	"fmt"
	"math"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/topo"
	"github.com/ccsim/ccsim/workload"
)

const leafspine = "leafspine.yaml"

// loads are the core-layer loads of E3 and E4 at paper scale.
var loads = []float64{0.4, 0.5, 0.6, 0.7, 0.8}

// minFlows is the number of flows each E3/E4 point needs (≥ 10,000).
const minFlows = 10_000

// lsScale is the leaf-spine and the flow target at a scale.
func lsScale(sc experiment.Scale) (p topo.LeafSpineParams, flows int, loadsAt []float64) {
	p = topo.LeafSpineParams{Spines: 8, Leaves: 10, HostsPerLeaf: 24, HostBps: 40e9, FabricBps: 40e9}
	if sc == experiment.ScaleQuick {
		return topo.LeafSpineParams{Spines: 2, Leaves: 3, HostsPerLeaf: 4, HostBps: 40e9, FabricBps: 40e9}, 150, []float64{0.4, 0.8}
	}
	return p, minFlows, loads
}

// durationMs is the Poisson arrival window that gives about flows flows
// (5 % margin) at a core load: λ = ρ_h · hosts · rate / (8 · mean size).
func durationMs(p topo.LeafSpineParams, cdf string, core float64, flows int) float64 {
	c, err := workload.BuiltinCDF(cdf)
	if err != nil {
		panic(err)
	}
	rho, err := p.HostLoadForCoreLoad(core)
	if err != nil {
		panic(err)
	}
	hosts := float64(p.Leaves * p.HostsPerLeaf)
	perS := rho * hosts * float64(p.HostBps) / (8 * c.Mean())
	return math.Ceil(1.05*float64(flows)/perS*1e3*10) / 10
}

// lsPatch is the patch of one point: topology size, workload, load,
// duration.
func lsPatch(sc experiment.Scale, cdf string, core float64) map[string]any {
	p, flows, _ := lsScale(sc)
	return map[string]any{
		"topology": map[string]any{"spines": p.Spines, "leaves": p.Leaves, "hosts_per_leaf": p.HostsPerLeaf},
		"workload": map[string]any{"poisson": map[string]any{"cdf": cdf, "core_load": core, "duration_ms": durationMs(p, cdf, core, flows)}},
	}
}

// loadAxis sweeps the core load at a scale with the workload cdf.
func loadAxis(sc experiment.Scale, cdf string) experiment.Axis {
	_, _, ls := lsScale(sc)
	ax := experiment.Axis{Name: "load"}
	for _, l := range ls {
		ax.Values = append(ax.Values, experiment.Value{Label: fmt.Sprint(l), Patch: lsPatch(sc, cdf, l)})
	}
	return ax
}

// lsTopologyText describes the leaf-spine at a scale.
func lsTopologyText(sc experiment.Scale) string {
	p, _, _ := lsScale(sc)
	rho, _ := p.HostLoadForCoreLoad(1)
	return fmt.Sprintf("%d spines, %d leaves, %d servers per leaf (%d servers), every leaf linked to every spine, all links 40 Gb/s, 5 µs per hop (%g:1 oversubscribed); a host's offered load is %.3g × the core load",
		p.Spines, p.Leaves, p.HostsPerLeaf, p.Leaves*p.HostsPerLeaf, float64(p.HostsPerLeaf)/float64(p.Spines), rho)
}

// ---- The NS-3 switch setting (E3, E4): readings

// The paper prints no NS-3 buffer, PFC or ECN setting; ccsim uses the
// testbed's (§3.1: 22 MB, PAUSE at 320 KB, ECN at 200 KB) and reads E4's
// "40 %/60 % of a fixed buffer size" in three ways (docs/algorithms/dcon.md
// I10). Checks: switchChecks.
const (
	perportWhy    = `Only printed constants: Q_PFC 320 KB and Q_ECN 200 KB of the testbed (§3.1), and "a fixed buffer size" (固定缓存大小, §6.2.2) read as the per-port share of the testbed switch's 22 MB over the 32 ports of its Wedge 100BF-32X (§5): B = 687.5 KB, so 40 % = 275 KB and 60 % = 412.5 KB. Consistent with §4.4 (Q_CNM ≥ Q_ECN) and with Fig. 11's text (the dynamic threshold, 320 KB = 46.5 % of B where M = 1, between the fixed ones).`
	pfcQ100Why    = `The setting before issue 16: the fixed buffer size read as the PFC threshold (40 %/60 % of 320 KB = 128/192 KB) and Q_ECN lowered to 100 KB so that both lie above it. Inconsistent with Fig. 11's text: the dynamic threshold (320 KB where M = 1) is then above both fixed ones, and 60 % is below the PFC threshold.`
	testbedPFCWhy = `The literal "fractions of the PFC threshold" with the printed Q_ECN of 200 KB: 40 % and 60 % of 320 KB (128 and 192 KB) both fall below Q_ECN and are raised to it, against §4.4 (「不小于ECN标记阈值Q_ECN」). In E3 (dynamic Q_CNM only) it runs the same simulations as the primary reading.`
)

// nsReadings are E3's and E4's readings of the NS-3 switch setting. The
// primary's B reaches E4's 40 %/60 % runs through their axis (e4QCNM), so
// that its dynamic runs are E3's DCON runs; the other readings set B back
// to 0 (Q_PFC), DCON's default, which leaves every dynamic run unchanged.
// The two inconsistent readings run one seed (cost).
func nsReadings() []experiment.Reading {
	patch := func(p map[string]any) func(experiment.Scale) map[string]any {
		return func(experiment.Scale) map[string]any { return dconPatch(p) }
	}
	return []experiment.Reading{
		{ID: "perport", Primary: true, Title: "Q_ECN 200 KB; E4's fixed buffer size B = 22 MB / 32 ports = 687.5 KB", Why: perportWhy},
		{ID: "pfc-q100", Title: "Q_ECN 100 KB; B = Q_PFC = 320 KB (the setting before issue 16)", Why: pfcQ100Why,
			Patch: patch(map[string]any{"q_ecn_kb": 100, "q_cnm_fraction_of_kb": 0}), OnlySeeds: []uint64{1}},
		{ID: "testbed-pfc", Title: "Q_ECN 200 KB; B = Q_PFC = 320 KB", Why: testbedPFCWhy,
			Patch: patch(map[string]any{"q_cnm_fraction_of_kb": 0}), OnlySeeds: []uint64{1}},
	}
}

// nsSettingText describes the reading's switch setting for the notes.
func nsSettingText(id string) string {
	switch id {
	case "pfc-q100":
		return "Q_ECN 100 KB, B = 320 KB"
	case "testbed-pfc":
		return "Q_ECN 200 KB, B = 320 KB"
	}
	return fmt.Sprintf("Q_ECN 200 KB, B = %g KB", e4FixedBufferKB)
}

// ---- What E3 and E4 read from a run

// lsRun is one run's point.
type lsRun struct {
	avg, p99        float64 // FCT, µs, censored flows included
	censored, flows int
	frames          int64
	pausePerMs      float64 // network-wide PAUSE frames per ms of the arrival window
	ecnMarked       int64
	wall            float64
	events          int64
}

// lsPoint is a point over its seeds.
type lsPoint struct{ runs []*lsRun }

func (p *lsPoint) sample(f func(*lsRun) float64) experiment.Sample {
	if len(p.runs) == 0 {
		return experiment.Sample{math.NaN()}
	}
	out := make(experiment.Sample, len(p.runs))
	for i, r := range p.runs {
		out[i] = f(r)
	}
	return out
}

func (p *lsPoint) avg() experiment.Sample { return p.sample(func(r *lsRun) float64 { return r.avg }) }
func (p *lsPoint) p99() experiment.Sample { return p.sample(func(r *lsRun) float64 { return r.p99 }) }
func (p *lsPoint) pause() experiment.Sample {
	return p.sample(func(r *lsRun) float64 { return r.pausePerMs })
}

// censored is the number of censored flows over the seeds: with any, the
// FCT statistics are lower bounds.
func (p *lsPoint) censored() int {
	n := 0
	for _, r := range p.runs {
		n += r.censored
	}
	return n
}

// readLS reads every seed of run key (an empty point, NaN, with the error
// when a run is missing).
func readLS(ctx *experiment.Context, key string) (*lsPoint, error) {
	runs, err := ctx.SeedRuns(key)
	if err != nil {
		return &lsPoint{}, err
	}
	p := &lsPoint{}
	for _, run := range runs {
		r, err := readLSRun(run)
		if err != nil {
			return &lsPoint{}, err
		}
		p.runs = append(p.runs, r)
	}
	return p, nil
}

// readLSRun reads one run's summary: its FCT statistics over every flow
// that started (summary.json's fct, unfinished flows censored at the end),
// and its PAUSE frames per ms of the Poisson arrival window, the same span
// for every algorithm at a point.
func readLSRun(run *experiment.RunRef) (*lsRun, error) {
	s, err := run.Summary()
	if err != nil {
		return nil, err
	}
	window := math.NaN()
	if run.Scenario != nil && run.Scenario.Workload.Poisson != nil {
		window = run.Scenario.Workload.Poisson.DurationMs
	}
	all := s.Summary.All
	return &lsRun{avg: all.FCTUs.Mean, p99: all.FCTUs.P99, censored: s.Summary.Censored, flows: s.Summary.Flows,
		frames: s.PFC.PauseFrames, pausePerMs: float64(s.PFC.PauseFrames) / window, ecnMarked: s.ECNMarked,
		wall: s.WallSeconds, events: s.Events}, nil
}
