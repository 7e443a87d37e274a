package scenario

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/ccsim/ccsim/sim"
	"github.com/ccsim/ccsim/topo"
	"github.com/ccsim/ccsim/workload"
)

// Generated workload sections. Any combination may be given; their flows
// are merged (with `flows`, `file` and `incast` too).

// PoissonSpec is background traffic: every host starts flows as a Poisson
// process whose sizes follow a CDF, at a target load (fraction of the host
// link rate), as the reference traffic generator.
type PoissonSpec struct {
	CDF  string  `yaml:"cdf"`            // websearch | datamining | fbhadoop | googlerpc | alistorage, or a file path
	Load float64 `yaml:"load,omitempty"` // (0, 1]; 0 (omitted) with core_load
	// CoreLoad, instead of Load, is the average load of the core layer (the
	// leaf→spine uplinks) of a leaf_spine topology; it is converted to the
	// per-host load by topo.LeafSpineParams.HostLoadForCoreLoad:
	// ρ_h = ρ_c·S·r_fabric / (H·r_host·f), f = (L−1)·H / (L·H − 1).
	CoreLoad  *float64 `yaml:"core_load,omitempty"`
	loadGiven bool     // load was given (set by applyDefaults)

	DurationMs float64  `yaml:"duration_ms"`
	StartNs    float64  `yaml:"start_ns"`
	Hosts      []NodeID `yaml:"hosts"` // default: every host
	Prio       int      `yaml:"prio"`
}

// IncastBurstsSpec is random N-to-1 incast bursts.
type IncastBurstsSpec struct {
	Senders    int      `yaml:"senders"`
	SizeBytes  int64    `yaml:"size_bytes"`
	Load       float64  `yaml:"load"`         // share of the aggregate host capacity
	BurstsPerS float64  `yaml:"bursts_per_s"` // or an explicit rate
	Count      int      `yaml:"count"`        // or an exact number of bursts
	DurationMs float64  `yaml:"duration_ms"`
	StartNs    float64  `yaml:"start_ns"`
	Hosts      []NodeID `yaml:"hosts"`
	Prio       int      `yaml:"prio"`
}

// AllToAllSpec is one flow per ordered host pair.
type AllToAllSpec struct {
	SizeBytes int64    `yaml:"size_bytes"`
	StartNs   float64  `yaml:"start_ns"`
	Hosts     []NodeID `yaml:"hosts"`
	Prio      int      `yaml:"prio"`
}

// ManyToManySpec is streams of equal messages from senders to receivers.
type ManyToManySpec struct {
	Senders    []NodeID `yaml:"senders"`
	Receivers  []NodeID `yaml:"receivers"`
	SizeBytes  int64    `yaml:"size_bytes"`
	PerSender  int      `yaml:"per_sender"`
	Count      int      `yaml:"count"`
	IntervalUs float64  `yaml:"interval_us"`
	StartNs    float64  `yaml:"start_ns"`
	RandomDst  bool     `yaml:"random_dst"`
	Prio       int      `yaml:"prio"`
}

// LongShortSpec is long flows plus sequences of short flows to a receiver.
type LongShortSpec struct {
	LongSenders   []NodeID `yaml:"long_senders"`
	LongReceivers []NodeID `yaml:"long_receivers"`
	LongSizeBytes int64    `yaml:"long_size_bytes"`
	LongStartNs   float64  `yaml:"long_start_ns"`
	ShortSenders  []NodeID `yaml:"short_senders"`
	Receiver      NodeID   `yaml:"receiver"`
	ShortCount    int      `yaml:"short_count"`
	RandomSenders bool     `yaml:"random_senders"`
	ShortMinBytes int64    `yaml:"short_min_bytes"`
	ShortMaxBytes int64    `yaml:"short_max_bytes"`
	ShortCDF      string   `yaml:"short_cdf"`
	ShortStartNs  float64  `yaml:"short_start_ns"`
	IntervalUs    float64  `yaml:"interval_us"`
	Poisson       bool     `yaml:"poisson"`
	Prio          int      `yaml:"prio"`
	// LongVia pins the long flows' data paths through this switch (route
	// pinning, as workload.flows[].via).
	LongVia *NodeID `yaml:"long_via,omitempty"`
}

func nsTime(ns float64) sim.Time { return sim.Time(ns*float64(sim.Nanosecond) + 0.5) }
func usTime(us float64) sim.Time { return sim.Time(us*float64(sim.Microsecond) + 0.5) }
func msTime(ms float64) sim.Time { return sim.Time(ms*float64(sim.Millisecond) + 0.5) }

func prioOr(p int) int {
	if p == 0 {
		return DefaultPrio
	}
	return p
}

func hostsOr(hs []NodeID, g *topo.Graph) []int {
	if len(hs) > 0 {
		return ids(hs)
	}
	return g.Hosts()
}

// cdfOf resolves a CDF name or a file path (relative to the scenario).
func (s *Scenario) cdfOf(name string) (*workload.CDF, error) {
	if c, err := workload.BuiltinCDF(name); err == nil {
		return c, nil
	}
	p := s.path(name)
	if _, err := os.Stat(p); err != nil {
		return nil, fmt.Errorf("cdf %q: neither a built-in (%v) nor a readable file", name, workload.BuiltinCDFNames())
	}
	return workload.LoadCDF(p)
}

// hostBps is the rate of a host's first link.
func hostBps(g *topo.Graph, h int) int64 {
	for _, l := range g.Links {
		if l.A == h || l.B == h {
			return l.Bps
		}
	}
	return 0
}

// checkHostLists reports the host ids of the generator sections that are
// not hosts of g, naming the field.
func (s *Scenario) checkHostLists(g *topo.Graph) error {
	w := &s.Workload
	var errs Errors
	list := func(field string, hosts []NodeID) {
		for i, h := range hosts {
			if !isHost(g, int(h)) {
				errs = append(errs, fmt.Errorf("workload.%s[%d] = %d is not a host of the topology (%s)", field, i, h, describeHosts(g)))
			}
		}
	}
	if p := w.Poisson; p != nil {
		list("poisson.hosts", p.Hosts)
	}
	if p := w.IncastBursts; p != nil {
		list("incast_bursts.hosts", p.Hosts)
	}
	if p := w.AllToAll; p != nil {
		list("all_to_all.hosts", p.Hosts)
	}
	if p := w.ManyToMany; p != nil {
		list("many_to_many.senders", p.Senders)
		list("many_to_many.receivers", p.Receivers)
	}
	if p := w.CrossDC; p != nil {
		list("cross_dc.domain_a", p.DomainA)
		list("cross_dc.domain_b", p.DomainB)
	}
	if p := w.LongShort; p != nil {
		list("long_short.long_senders", p.LongSenders)
		list("long_short.long_receivers", p.LongReceivers)
		list("long_short.short_senders", p.ShortSenders)
		if (p.ShortCount > 0 || len(p.LongReceivers) == 0 && len(p.LongSenders) > 0) && !isHost(g, int(p.Receiver)) {
			errs = append(errs, fmt.Errorf("workload.long_short.receiver = %d is not a host of the topology (%s)", p.Receiver, describeHosts(g)))
		}
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// generated builds the flows of the generator sections.
func (s *Scenario) generated(g *topo.Graph) ([][]workload.Flow, error) {
	if err := s.checkHostLists(g); err != nil {
		return nil, err
	}
	w := &s.Workload
	var out [][]workload.Flow
	var errs Errors // every generator's, not only the first
	if p := w.Poisson; p != nil {
		hs := hostsOr(p.Hosts, g)
		load, lerr := s.poissonLoad()
		if lerr != nil {
			errs = append(errs, lerr)
		} else if c, err := s.cdfOf(p.CDF); err != nil {
			errs = append(errs, fmt.Errorf("workload.poisson.%v", err))
		} else if fl, err := workload.Poisson(workload.PoissonParams{Hosts: hs, HostBps: hostBps(g, hs[0]), Load: load, CDF: c,
			Start: nsTime(p.StartNs), Duration: msTime(p.DurationMs), Prio: prioOr(p.Prio), Seed: s.Seed}); err != nil {
			errs = append(errs, fmt.Errorf("workload.poisson: %w", err))
		} else {
			out = append(out, fl)
		}
	}
	if p := w.IncastBursts; p != nil {
		hs := hostsOr(p.Hosts, g)
		fl, err := workload.IncastBursts(workload.IncastBurstParams{Hosts: hs, Senders: p.Senders, SizeBytes: p.SizeBytes,
			Load: p.Load, HostBps: hostBps(g, hs[0]), BurstRate: p.BurstsPerS, Count: p.Count,
			Start: nsTime(p.StartNs), Duration: msTime(p.DurationMs), Prio: prioOr(p.Prio), Seed: s.Seed})
		if err != nil {
			errs = append(errs, fmt.Errorf("workload.incast_bursts: %w", err))
		} else {
			out = append(out, fl)
		}
	}
	if p := w.AllToAll; p != nil {
		out = append(out, workload.AllToAll(hostsOr(p.Hosts, g), p.SizeBytes, nsTime(p.StartNs), prioOr(p.Prio)))
	}
	if p := w.ManyToMany; p != nil {
		fl, err := workload.ManyToMany(workload.ManyToManyParams{Senders: ids(p.Senders), Receivers: ids(p.Receivers), SizeBytes: p.SizeBytes,
			PerSender: p.PerSender, Count: p.Count, Interval: usTime(p.IntervalUs), Start: nsTime(p.StartNs),
			RandomDst: p.RandomDst, Prio: prioOr(p.Prio), Seed: s.Seed})
		if err != nil {
			errs = append(errs, fmt.Errorf("workload.many_to_many: %w", err))
		} else {
			out = append(out, fl)
		}
	}
	if p := w.LongShort; p != nil {
		lp := workload.LongShortParams{LongSenders: ids(p.LongSenders), LongReceivers: ids(p.LongReceivers), LongSize: p.LongSizeBytes,
			LongStart: nsTime(p.LongStartNs), ShortSenders: ids(p.ShortSenders), Receiver: int(p.Receiver), ShortCount: p.ShortCount,
			RandomSenders: p.RandomSenders, ShortMin: p.ShortMinBytes, ShortMax: p.ShortMaxBytes, ShortStart: nsTime(p.ShortStartNs),
			Interval: usTime(p.IntervalUs), Poisson: p.Poisson, Prio: prioOr(p.Prio), Seed: s.Seed}
		if p.LongVia != nil {
			lp.LongVia, lp.LongPinned = int(*p.LongVia), true
			for i, snd := range p.LongSenders {
				dst := p.Receiver
				switch len(p.LongReceivers) {
				case 1:
					dst = p.LongReceivers[0]
				case len(p.LongSenders):
					dst = p.LongReceivers[i]
				}
				if err := checkVia(g, "workload.long_short.long_via", int(snd), int(dst), *p.LongVia); err != nil {
					errs = append(errs, err)
					break
				}
			}
		}
		var cdfErr error
		if p.ShortCDF != "" {
			lp.ShortCDF, cdfErr = s.cdfOf(p.ShortCDF)
		}
		if cdfErr != nil {
			errs = append(errs, fmt.Errorf("workload.long_short.short_%v", cdfErr))
		} else if fl, err := workload.LongShort(lp); err != nil {
			errs = append(errs, fmt.Errorf("workload.long_short: %w", err))
		} else {
			out = append(out, fl)
		}
	}
	if w.CrossDC != nil {
		if p, err := s.crossDCParams(g); err != nil {
			errs = append(errs, err)
		} else if fl, err := workload.CrossDC(p); err != nil {
			errs = append(errs, fmt.Errorf("workload.cross_dc: %w", err))
		} else {
			out = append(out, fl)
		}
	}
	if w.Perftest != nil {
		if p, err := s.perftestParams(g); err != nil {
			errs = append(errs, err)
		} else if fl, err := workload.Perftest(p); err != nil {
			errs = append(errs, fmt.Errorf("workload.perftest: %w", err))
		} else {
			out = append(out, fl)
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return out, nil
}

// poissonLoad is the per-host load of workload.poisson: load, or core_load
// converted for the leaf_spine topology (topo.LeafSpineParams.
// HostLoadForCoreLoad: ρ_h = ρ_c·S·r_fabric / (H·r_host·f) with f =
// (L−1)·H / (L·H − 1), the share of a host's traffic to uniformly random
// hosts that leaves its leaf).
func (s *Scenario) poissonLoad() (float64, error) {
	p := s.Workload.Poisson
	if p.CoreLoad == nil {
		return p.Load, nil
	}
	t := &s.Topology
	if t.Kind != "leaf_spine" {
		return 0, fmt.Errorf("workload.poisson.core_load needs topology.kind leaf_spine, not %s", t.Kind)
	}
	lp := s.leafSpineParams()
	h, err := lp.HostLoadForCoreLoad(*p.CoreLoad)
	if err != nil {
		return 0, fmt.Errorf("workload.poisson.core_load: %w", err)
	}
	if !(h <= 1) {
		return 0, fmt.Errorf("workload.poisson.core_load = %v needs a per-host load of %.4g > 1 on this topology (%d spines × %v Gb/s up, %d hosts × %v Gb/s down per leaf); lower it",
			*p.CoreLoad, h, lp.Spines, float64(lp.FabricBps)/1e9, lp.HostsPerLeaf, float64(lp.HostBps)/1e9)
	}
	return h, nil
}

// hasGenerators reports whether any generator section is present.
func (w *Workload) hasGenerators() bool {
	return w.Poisson != nil || w.IncastBursts != nil || w.AllToAll != nil || w.ManyToMany != nil || w.LongShort != nil ||
		w.CrossDC != nil || w.Perftest != nil
}

// workloadSections names the workload sections in merge order.
var workloadSections = []string{"flows", "file", "incast", "poisson", "incast_bursts", "all_to_all", "many_to_many", "long_short", "cross_dc", "perftest"}

// generatorSections are the sections of kind generated.
var generatorSections = workloadSections[3:]

// kindSections lists the sections each workload kind takes.
var kindSections = map[string][]string{
	"flows":     {"flows"},
	"ns3":       {"file"},
	"incast":    {"incast"},
	"generated": generatorSections,
	"mixed":     workloadSections,
}

// sections returns the sections given, in merge order.
func (w *Workload) sections() []string {
	var out []string
	for i, on := range []bool{len(w.Flows) > 0, w.File != "", w.Incast != nil, w.Poisson != nil,
		w.IncastBursts != nil, w.AllToAll != nil, w.ManyToMany != nil, w.LongShort != nil, w.CrossDC != nil, w.Perftest != nil} {
		if on {
			out = append(out, workloadSections[i])
		}
	}
	return out
}

// inferKind is the kind of a workload that does not name one: the kind of
// its only section, generated for generator sections only, mixed for
// several.
func (w *Workload) inferKind() string {
	secs := w.sections()
	switch {
	case len(secs) == 0:
		return "flows" // and validation asks for flows
	case !slices.Contains(secs, "flows") && !slices.Contains(secs, "file") && !slices.Contains(secs, "incast"):
		return "generated"
	case len(secs) > 1:
		return "mixed"
	case secs[0] == "file":
		return "ns3"
	}
	return secs[0]
}

// linkParams returns the host and fabric link rates and delays of the
// topology section.
func (t *Topology) linkParams() (hb, fb int64, hd, fd sim.Time) {
	hb = int64(t.LinkGbps * 1e9)
	fb = hb
	if t.FabricGbps != nil {
		fb = int64(*t.FabricGbps * 1e9)
	}
	hd = nsTime(t.LinkDelayNs)
	fd = hd
	if t.FabricDelayNs != nil {
		fd = nsTime(*t.FabricDelayNs)
	}
	return hb, fb, hd, fd
}

// leafSpineParams returns the builder parameters of kind leaf_spine.
func (s *Scenario) leafSpineParams() topo.LeafSpineParams {
	t := &s.Topology
	hb, fb, hd, fd := t.linkParams()
	return topo.LeafSpineParams{Spines: t.Spines, Leaves: t.Leaves, HostsPerLeaf: t.HostsPerLeaf,
		HostBps: hb, FabricBps: fb, HostDelay: hd, FabricDelay: fd}
}

// builtGraph builds the generated topology kinds.
func (s *Scenario) builtGraph() (*topo.Graph, error) {
	t := &s.Topology
	hb, fb, hd, fd := t.linkParams()
	switch t.Kind {
	case "leaf_spine":
		return topo.LeafSpine(s.leafSpineParams())
	case "fat_tree":
		return topo.FatTree(topo.FatTreeParams{K: t.K, HostsPerEdge: t.HostsPerEdge, HostBps: hb, FabricBps: fb, Delay: hd})
	case "dcon_testbed":
		g, _, err := topo.DCONTestbed(topo.DCONTestbedParams{HostBps: hb, FabricBps: fb, HostDelay: hd, FabricDelay: fd})
		return g, err
	case "cross_dc":
		return topo.CrossDC(s.crossDCTopoParams())
	case "two_site":
		return topo.TwoSite(s.twoSiteParams())
	case "fat320":
		p := topo.RefFat320Params()
		if t.FabricGbps != nil {
			p.FabricBps = fb
		}
		p.HostBps = hb
		p.HostDelay, p.FabricDelay = hd, fd
		return topo.HPCCFatTree(p)
	}
	return nil, fmt.Errorf("topology.kind %q unknown", t.Kind)
}

// WriteFlowFile writes the scenario's workload for topology g as a reference
// flow file (`outputs.flow_file`), e.g. to replay it in the reference
// simulator.
func WriteFlowFile(dir string, flows []workload.Flow) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return writeFile(filepath.Join(dir, "flows.txt"), func(f *os.File) error { return workload.WriteNS3Flows(f, flows) })
}
