package decc

// E9: the DPU's load (the paper's Fig. 12, §4.6), as a proxy computed from
// the many-to-many runs of E5: the decisions each algorithm took per node
// and second (flow_stats.csv), times a cost per decision, over the DPU's
// cores. ccsim simulates no DPU: this is a proxy, not a measurement.

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/report"
)

// e9Algs are Fig. 12's algorithms.
var e9Algs = experiment.Algs{{CC: "decc", Name: "DECC"}, {CC: "hpcc", Name: "HPCC"}, {CC: "adpg", Name: "ADPG"}, {CC: "aurora", Name: "Aurora"}}

// e9CostUs is the cost of one decision on a DPU core, µs: Table 3's 1.53
// for DECC's trees and 458 for a full DNN (ADPG's and Aurora's, as their
// decision lag in E4–E7); HPCC's per-ACK update 1 µs (decc.md §1.10: rule-
// based algorithms decide within 2 µs).
var e9CostUs = map[string]float64{"decc": 1.53, "hpcc": 1, "adpg": 458, "aurora": 458}

// dpuCores is the BlueField-2's Arm core count (vendor data, decc.md §2.9).
const dpuCores = 8

// e9Heads are the paper's CPU utilisations at 16 processes (§4.6).
var e9Heads = map[string]float64{"decc": 21.9, "hpcc": 20.6, "adpg": 57.6}

func e9() *experiment.Experiment {
	var cs []experiment.Claim
	for _, cc := range []string{"decc", "hpcc", "adpg"} {
		cs = append(cs, experiment.Claim{ID: cc + "-cpu", Description: fmt.Sprintf("%s's DPU CPU utilisation at 16 processes (Fig. 12; ccsim: the decision-cost proxy)", e9Algs.Name(cc)),
			PaperValue: experiment.G4(e9Heads[cc]), Unit: "%", Kind: experiment.Magnitude, Mag: experiment.MagValue, Paper: e9Heads[cc]})
	}
	cs = append(cs,
		experiment.Claim{ID: "decc-below-adpg", Description: "DECC's DPU CPU utilisation is below ADPG's at 16 processes (§4.6: 61.9 % lower)", PaperValue: "yes",
			Kind: experiment.Direction, Rel: experiment.Less},
		experiment.Claim{ID: "learned-grow", Description: "ADPG's and Aurora's DPU CPU utilisation grows from the fewest to the most processes (§4.6: they explode at scale)", PaperValue: "2 of 2",
			Unit: "algorithms", Kind: experiment.Count, Need: 2, Of: 2},
	)
	return &experiment.Experiment{
		ID:    "e9",
		Title: "The DPU's load (Fig. 12), a proxy",
		SetupAt: func(sc experiment.Scale) string {
			return fmt.Sprintf(`A proxy, not a measurement: ccsim simulates no DPU. E5's many-to-many runs (k ∈ %v processes per node, the primary reading; the same runs, stored once) give each algorithm's control decisions per flow (flow_stats.csv: DECC's policy runs, HPCC's per-ACK updates, ADPG's and Aurora's intervals); CPU utilisation = the decisions per node and second × a cost per decision / %d cores (a BlueField-2's Arm cores, vendor data; decc.md §2.9), the cost being Table 3's 1.53 µs for DECC's trees, 458 µs for a full DNN (ADPG, Aurora) and 1 µs for HPCC's update (decc.md §1.10). Above 100 %% the DPU could not keep up. Memory is not modelled (the paper's 28.6–62.6 %% include what runs on the DPU besides congestion control; a model of a few hundred kilobytes and a few hundred bytes per flow are far below 1 %% of 16 GB), so its claims are not declared.`,
				e5Procs(sc), dpuCores)
		},
		Claims:  cs,
		Runs:    e9Runs,
		Analyze: analyzeE9,
	}
}

// e9Runs are E5's runs of the algorithms of Fig. 12 (identical specs: the
// store runs them once).
func e9Runs(sc experiment.Scale) []experiment.RunSpec {
	return slices.DeleteFunc(e5Runs(sc), func(r experiment.RunSpec) bool {
		return !slices.ContainsFunc(e9Algs, func(a experiment.Alg) bool { return a.CC == r.CC })
	})
}

// e9CPU is a run's CPU-utilisation proxy in per cent.
func e9CPU(cc string) func(*experiment.RunRef) (float64, error) {
	return func(r *experiment.RunRef) (float64, error) {
		st, err := r.Table("flow_stats.csv")
		if err != nil {
			return 0, err
		}
		d, err := st.Floats("decisions")
		if err != nil {
			return 0, err
		}
		var sum float64
		for _, x := range d {
			sum += x
		}
		hosts := float64(r.Scenario.Topology.Leaves * r.Scenario.Topology.HostsPerLeaf)
		sec := r.Scenario.StopMs * 1e-3
		return 100 * sum / hosts / sec * e9CostUs[cc] * 1e-6 / dpuCores, nil
	}
}

func analyzeE9(ctx *experiment.Context) (*report.Section, error) {
	procs := e5Procs(ctx.Scale)
	t := report.Table{ID: "cpu", Title: "DPU CPU utilisation proxy (%): decisions per node and second × cost / 8 cores", Columns: []string{"processes"}}
	for _, a := range e9Algs {
		t.Columns = append(t.Columns, fmt.Sprintf("%s (%g µs)", a.Name, e9CostUs[a.CC]))
	}
	var notes []string
	cpu := map[string]map[int]experiment.Sample{}
	for _, k := range procs {
		row := []string{strconv.Itoa(k)}
		for _, a := range e9Algs {
			v, err := ctx.Sample(fmt.Sprintf("procs=%d cc=%s", k, a.CC), e9CPU(a.CC))
			if err != nil {
				notes, row = append(notes, err.Error()), append(row, experiment.Dash)
				continue
			}
			if cpu[a.CC] == nil {
				cpu[a.CC] = map[int]experiment.Sample{}
			}
			cpu[a.CC][k] = v
			row = append(row, experiment.G4(v.Mean()))
		}
		t.Rows = append(t.Rows, row)
	}
	lo, hi := procs[0], procs[len(procs)-1]
	for cc := range e9Heads {
		if v, ok := cpu[cc][hi]; ok {
			ctx.Measure(cc+"-cpu", experiment.Measure{Mag: []experiment.Sample{v}, Note: fmt.Sprintf("procs=%d", hi)})
		}
	}
	if d, ok := cpu["decc"][hi]; ok {
		if a, ok := cpu["adpg"][hi]; ok {
			ctx.Measure("decc-below-adpg", experiment.Measure{Values: []experiment.Sample{d, a}, Labels: []string{"DECC", "ADPG"}})
		}
	}
	var at, from []experiment.Sample
	for _, cc := range []string{"adpg", "aurora"} {
		a, ok1 := cpu[cc][hi]
		b, ok2 := cpu[cc][lo]
		if ok1 && ok2 {
			at, from = append(at, a), append(from, b)
		}
	}
	if len(at) == 2 {
		m := experiment.CountPairs(experiment.Greater, at, from, nil, nil)
		m.Note = fmt.Sprintf("procs=%d against procs=%d", hi, lo)
		ctx.Measure("learned-grow", m)
	}
	return &report.Section{Tables: []report.Table{t}, Notes: notes}, nil
}
