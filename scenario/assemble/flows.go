package assemble

import (
	"fmt"
	"os"
	"slices"

	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/topo"
	"github.com/ccsim/ccsim/workload"
)

// Flows builds the scenario's workload on graph g: the flows of every
// section given, merged (workload.Merge) when there are several or any is
// generated. Every section is built, so that the errors of all are
// reported.
func Flows(s *scenario.Scenario, g *topo.Graph) ([]workload.Flow, error) {
	w := &s.Workload
	var lists [][]workload.Flow
	var errs scenario.Errors
	if len(w.Flows) > 0 {
		fl, err := explicitFlows(w.Flows, g)
		errs = append(errs, err...)
		lists = append(lists, fl)
	}
	if w.File != "" {
		if fl, err := readFlowFile(s); err != nil {
			errs = append(errs, err)
		} else {
			lists = append(lists, fl)
		}
	}
	if in := w.Incast; in != nil {
		fl, err := incastFlows(in, g)
		if err != nil {
			errs = append(errs, err)
		}
		lists = append(lists, fl)
	}
	if w.HasGenerators() {
		gen, err := generated(s, g)
		if err != nil {
			errs = scenario.AppendError(errs, err)
		}
		lists = append(lists, gen...)
	}
	if len(errs) > 0 {
		// the sections that built are checked too
		if err := checkEndpoints(g, slices.Concat(lists...)); err != nil {
			errs = scenario.AppendError(errs, err)
		}
		return nil, errs
	}
	var flows []workload.Flow
	if len(lists) == 1 && !w.HasGenerators() {
		flows = lists[0] // as the section gives them (reference files keep their ports)
	} else {
		flows = workload.Merge(lists...)
	}
	if err := checkEndpoints(g, flows); err != nil {
		return nil, err
	}
	return flows, nil
}

// explicitFlows builds workload.flows, with their chains and pinned
// routes (the errors of the pins that are not on a shortest path).
func explicitFlows(specs []scenario.FlowSpec, g *topo.Graph) ([]workload.Flow, scenario.Errors) {
	var errs scenario.Errors
	var fl []workload.Flow
	for i, f := range specs {
		wf := workload.Flow{Src: int(f.Src), Dst: int(f.Dst), Prio: f.Prio, SizeBytes: f.SizeBytes,
			Start: scenario.NsTime(f.StartNs)}
		if f.After != nil {
			wf.After, wf.HasAfter, wf.Gap = *f.After, true, scenario.NsTime(f.GapNs)
		}
		if f.AlsoAfter != nil {
			wf.AlsoAfter, wf.HasAlsoAfter = *f.AlsoAfter, true
		}
		if f.Next != nil {
			wf.Next, wf.HasNext, wf.Gap = *f.Next, true, scenario.NsTime(f.GapNs)
		}
		if f.Via != nil {
			if err := checkVia(g, fmt.Sprintf("workload.flows[%d].via", i), wf.Src, wf.Dst, *f.Via); err != nil {
				errs = append(errs, err)
			}
			wf.Via, wf.HasVia = int(*f.Via), true
		}
		fl = append(fl, wf)
	}
	return fl, errs
}

// incastFlows builds workload.incast: each sender's bytes over its QPs,
// all pinned through via if given (the error of the first sender whose
// path cannot be pinned).
func incastFlows(in *scenario.Incast, g *topo.Graph) ([]workload.Flow, error) {
	sizes := in.SizesBytes
	if len(sizes) == 1 {
		for len(sizes) < len(in.Senders) {
			sizes = append(sizes, in.SizesBytes[0])
		}
	}
	fl := workload.IncastQPs(scenario.IDs(in.Senders), int(in.Receiver), sizes, in.QPsPerSender, scenario.NsTime(in.StartNs), in.Prio)
	if in.Via == nil {
		return fl, nil
	}
	var err error
	for _, snd := range in.Senders {
		if err = checkVia(g, "workload.incast.via", int(snd), int(in.Receiver), *in.Via); err != nil {
			break
		}
	}
	for i := range fl {
		fl[i].Via, fl[i].HasVia = int(*in.Via), true
	}
	return fl, err
}

// readFlowFile reads workload.file.
func readFlowFile(s *scenario.Scenario) ([]workload.Flow, error) {
	w := &s.Workload
	fh, err := os.Open(s.Resolve(w.File))
	if err != nil {
		return nil, fmt.Errorf("workload.file: %w", err)
	}
	defer fh.Close()
	fl, err := workload.ReadNS3Flows(fh)
	if err != nil {
		return nil, fmt.Errorf("workload.file %s: %w", w.File, err)
	}
	return fl, nil
}

// checkVia checks that via (field) is a switch on a shortest path from
// host src to host dst of g, for route pinning. Endpoints that are not
// hosts are left to checkEndpoints.
func checkVia(g *topo.Graph, field string, src, dst int, via scenario.NodeID) error {
	if !isHost(g, src) || !isHost(g, dst) {
		return nil
	}
	if err := g.CheckVia(src, dst, int(via)); err != nil {
		return fmt.Errorf("%s = %d: cannot pin the flow %d → %d through it: %v", field, via, src, dst, err)
	}
	return nil
}

// maxEndpointErrors bounds the bad flows listed one by one.
const maxEndpointErrors = 10

// checkEndpoints reports the flows whose source or destination is not a
// host of g.
func checkEndpoints(g *topo.Graph, flows []workload.Flow) error {
	var errs scenario.Errors
	bad := 0
	for i, f := range flows {
		for _, e := range []struct {
			what string
			id   int
		}{{"src", f.Src}, {"dst", f.Dst}} {
			if isHost(g, e.id) {
				continue
			}
			if bad++; bad <= maxEndpointErrors {
				errs = append(errs, fmt.Errorf("workload flow %d: %s %d is not a host of the topology (%s)", i, e.what, e.id, describeHosts(g)))
			}
		}
	}
	if bad > maxEndpointErrors {
		errs = append(errs, fmt.Errorf("workload: %d more flow endpoints are not hosts of the topology", bad-maxEndpointErrors))
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// isHost reports whether id is a host of g.
func isHost(g *topo.Graph, id int) bool {
	return id >= 0 && id < g.NumNodes() && g.Kinds[id] == topo.Host
}

// describeHosts summarises the host ids of g for error messages.
func describeHosts(g *topo.Graph) string {
	hs := g.Hosts()
	if len(hs) > 0 && hs[len(hs)-1]-hs[0] == len(hs)-1 {
		return fmt.Sprintf("hosts are %d..%d of %d nodes", hs[0], hs[len(hs)-1], g.NumNodes())
	}
	return fmt.Sprintf("%d hosts among %d nodes", len(hs), g.NumNodes())
}
