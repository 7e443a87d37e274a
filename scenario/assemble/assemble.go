// Package assemble builds and runs the simulation a scenario describes:
// the topology graph (graph.go), the workload's flows (flows.go,
// generate.go), the fabric configuration (fabric.go, overrides.go,
// timers.go), the network of one algorithm (network.go), the recorders of
// the outputs section (record.go, series.go) and the Result they fill
// (collect.go). Check builds everything a run builds without simulating
// (check.go); RunAll runs every algorithm of a scenario in parallel
// (run.go). The scenario schema and its validation are package scenario's,
// the Result and its files package scenario/result's.
package assemble

import (
	"time"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/metrics"
	"github.com/ccsim/ccsim/scenario"
	"github.com/ccsim/ccsim/scenario/result"
	"github.com/ccsim/ccsim/sim"
	"github.com/ccsim/ccsim/topo"
	"github.com/ccsim/ccsim/workload"
)

// Options modify one run.
type Options struct {
	Seed uint64 // overrides the scenario seed when non-zero or SeedSet
	// SeedSet makes Seed override the scenario seed even when it is 0.
	SeedSet bool
	// Progress, if set, is called about every million events with the
	// simulated time elapsed since the first flow start (from the run's
	// goroutine: it must be safe for concurrent use).
	Progress func(name string, elapsed sim.Time)
	// routes, if set, are the graph's routing tables, shared by the
	// networks a check builds on one graph (fabric.Config.Routes).
	routes *topo.Routes
}

// Built is a simulation ready to run, with the inputs it was built from.
type Built struct {
	Scenario *scenario.Scenario
	CC       string
	Net      *fabric.Network
	Graph    *topo.Graph
	Flows    []workload.Flow
	pfc      []metrics.PFCEvent
	queue    []result.QueueSample
	qcdf     *metrics.QueueCDFs
	bytes    *metrics.ByteSeries
	series   *seriesRec
	first    sim.Time
	stop     sim.Time
	// message chains (perftest's probe): completed messages; the test
	// window of workload.perftest
	chains             bool
	msgs               []metrics.MessageRecord
	testStart, testEnd sim.Time
}

// Build constructs the simulation of algorithm ccName of scenario s.
func Build(s *scenario.Scenario, ccName string, opt Options) (*Built, error) {
	if _, err := cc.Lookup(ccName); err != nil {
		return nil, err
	}
	g, err := Graph(s)
	if err != nil {
		return nil, err
	}
	return buildOn(s, ccName, opt, g)
}

// buildOn is Build on the graph g of s (shared by RunAll's runs, with the
// routing table in opt.routes); the flows are the run's own.
func buildOn(s *scenario.Scenario, ccName string, opt Options, g *topo.Graph) (*Built, error) {
	if _, err := cc.Lookup(ccName); err != nil {
		return nil, err
	}
	flows, err := Flows(s, g)
	if err != nil {
		return nil, err
	}
	return build(s, ccName, opt, g, flows)
}

// build constructs the simulation of algorithm ccName on graph g with
// flows: the network, the run's time frame, then the recorders of the
// outputs section in a fixed order (the order of their monitors is the
// order of their events).
func build(s *scenario.Scenario, ccName string, opt Options, g *topo.Graph, flows []workload.Flow) (*Built, error) {
	net, err := algorithmNetwork(s, ccName, opt, g, flows)
	if err != nil {
		return nil, err
	}
	b := &Built{Scenario: s, CC: ccName, Net: net, Graph: g, Flows: flows}
	b.setTimes()
	b.recordMessages()
	b.recordPFC()
	if err := b.recordQueues(); err != nil {
		return nil, err
	}
	b.recordQueueCDF()
	b.recordThroughput()
	if err := b.setupSeries(); err != nil {
		return nil, err
	}
	if err := b.recordRates(); err != nil {
		return nil, err
	}
	if err := b.recordPerRTT(); err != nil {
		return nil, err
	}
	return b, nil
}

// setTimes sets the run's first flow start, whether the workload has
// message chains, and the stop time: stop_ms after the first start, or
// the end of the perftest test if earlier (docs/workloads.md §3).
func (b *Built) setTimes() {
	s := b.Scenario
	first := sim.Never
	for _, f := range b.Flows {
		if f.Start < first && !f.HasAfter { // a chained flow's Start is not a start time
			first = f.Start
		}
		b.chains = b.chains || f.Messages > 1
	}
	if first == sim.Never {
		first = 0
	}
	b.first = first
	b.stop = first + scenario.MsTime(s.StopMs)
	if pt := s.Workload.Perftest; pt != nil {
		b.testStart, b.testEnd = scenario.NsTime(pt.StartNs), pt.TestEnd()
		b.stop = min(b.stop, b.testEnd)
	}
	b.Net.SetStop(b.stop)
}

// Run executes the built simulation and collects its results.
func (b *Built) Run() *result.Result {
	t0 := time.Now()
	end := b.Net.Run()
	wall := time.Since(t0).Seconds()
	return b.collect(end, wall)
}
