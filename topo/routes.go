package topo

import (
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/ccsim/ccsim/sim"
)

// nbr is one neighbour of a node as the reference's BFS sees it.
type nbr struct {
	node     int32 // neighbour node id
	port     int32 // port at this node leading to node
	peerPort int32 // port at node leading back here
	link     int32 // index into Graph.Links
}

// neighbours returns, for every node, its distinct neighbours in the
// reference simulator's visiting order (docs/reference-simulator.md §1.3):
// hosts first by ascending
// id, then switches by descending id. With parallel links between the same
// pair of nodes only the last one in link order is kept, as the reference's
// neighbour map is overwritten link by link.
func (g *Graph) neighbours() [][]nbr {
	ports := g.Ports()
	out := make([][]nbr, len(ports))
	flat := make([]nbr, 0, 2*len(g.Links))
	last := make([]int32, len(g.Kinds)) // peer -> index in out[n] + 1, reset per node
	for n, ps := range ports {
		list := flat[len(flat) : len(flat) : len(flat)+len(ps)]
		for p, pr := range ps {
			e := nbr{node: int32(pr.Peer), port: int32(p), peerPort: int32(pr.PeerPort), link: int32(pr.Link)}
			if k := last[pr.Peer]; k > 0 {
				list[k-1] = e
				continue
			}
			list = append(list, e)
			last[pr.Peer] = int32(len(list))
		}
		for _, e := range list {
			last[e.node] = 0
		}
		slices.SortFunc(list, func(a, b nbr) int {
			ka, kb := g.Kinds[a.node], g.Kinds[b.node]
			switch {
			case ka == Host && kb != Host:
				return -1
			case ka != Host && kb == Host:
				return 1
			case ka == Host:
				return int(a.node - b.node)
			default:
				return int(b.node - a.node)
			}
		})
		out[n] = list
		flat = flat[:len(flat)+len(list)]
	}
	return out
}

// bfs runs the reference's route computation rooted at root (docs/reference-simulator.md §1.3):
// only root and switches are expanded, in FIFO order. dist receives hop
// counts (-1 = unreachable); queue is scratch space. first(now, e) is called
// when e.node is discovered from now (now is then the first entry of
// e.node's next-hop list); nextHop(now, e) is called whenever now is a next
// hop of e.node towards root (dist[e.node] == dist[now]+1), in list order.
// Either callback may be nil.
func (g *Graph) bfs(nb [][]nbr, root int, dist, queue []int32,
	first func(now int32, e nbr), nextHop func(now int32, e nbr)) {
	for i := range dist {
		dist[i] = -1
	}
	dist[root] = 0
	queue = append(queue[:0], int32(root))
	for i := 0; i < len(queue); i++ {
		now := queue[i]
		d := dist[now]
		for _, e := range nb[now] {
			if dist[e.node] < 0 {
				dist[e.node] = d + 1
				if first != nil {
					first(now, e)
				}
				if g.Kinds[e.node] == Switch {
					queue = append(queue, e.node)
				}
			}
			if nextHop != nil && dist[e.node] == d+1 {
				nextHop(now, e)
			}
		}
	}
}

// Routes holds, for every node and every destination host, the equal-cost
// next-hop ports in the reference simulator's order, plus hop distances. It
// is immutable and safe for concurrent use.
//
// Only switches and hosts with more than one neighbour have rows. A host
// with a single neighbour u (every host of the built-in topologies) has
// one possible list towards any destination — the port of its link to u —
// and its distance is u's plus one; storing them took (hosts × hosts) of
// the table's (nodes × hosts) pairs, most of its memory on a fat-tree
// (issue 19 §2). Next and Dist answer for such hosts from up and upPeer
// instead, with the values the full table held (TestRoutesMatchFullTable).
type Routes struct {
	g       *Graph
	ports   [][]PortRef
	hosts   []int32 // dense host index -> node id
	hostIdx []int32 // node id -> dense host index, -1 for switches
	row     []int32 // node id -> row in off and dist, -1 for a single-neighbour host
	rows    int     // nodes with rows
	off     []int32 // (hostIndex*rows + row) -> start in hops; len H*rows+1
	hops    []int32 // flat next-hop port lists
	dist    []int32 // (hostIndex*rows + row) -> hop count, -1 = unreachable
	// up and upPeer, for a single-neighbour host: its port towards the
	// neighbour (the one-entry list) and the neighbour; -1 elsewhere
	up, upPeer []int32
}

// NextHops computes the routing tables of the reference simulator
// (docs/reference-simulator.md §1.3): a BFS from every destination host h
// in which only h and switches
// are expanded, neighbours being visited hosts first (ascending id) then
// switches by descending id; every neighbour at distance d+1 of an expanded
// node at distance d gets that node appended to its next-hop list towards h.
// So each list holds all neighbours one hop closer to h, in BFS dequeue
// order. Hosts get lists too (a single-NIC host: its port 0).
func (g *Graph) NextHops() *Routes {
	n := len(g.Kinds)
	r := &Routes{g: g, ports: g.Ports(), hostIdx: make([]int32, n)}
	for i, k := range g.Kinds {
		r.hostIdx[i] = -1
		if k == Host {
			r.hostIdx[i] = int32(len(r.hosts))
			r.hosts = append(r.hosts, int32(i))
		}
	}
	nh := len(r.hosts)
	nb := g.neighbours()
	r.row, r.up, r.upPeer = make([]int32, n), make([]int32, n), make([]int32, n)
	for v := range n {
		r.up[v], r.upPeer[v] = -1, -1
		if u := singleNeighbour(g, nb, v); u >= 0 {
			r.row[v] = -1
			r.upPeer[v] = int32(u)
			for _, e := range nb[u] { // the port the BFS records for v: v's end of u's entry
				if int(e.node) == v {
					r.up[v] = e.peerPort
				}
			}
			continue
		}
		r.row[v] = int32(r.rows)
		r.rows++
	}
	nr := r.rows
	// Host-major layout: the lists towards host hi are one block, so each
	// BFS's records are placed as soon as it ends (a stable counting sort
	// by node keeps the discovery order within each list) and no record
	// outlives its BFS (issue 19 §2: a k = 24 fat-tree kept 690 MB of
	// records and spent most of its time moving them).
	r.dist = make([]int32, nr*nh)
	r.off = make([]int32, nr*nh+1)
	type rec struct{ node, port int32 }
	var rs []rec
	cnt := make([]int32, n) // records per node in this BFS, then the fill cursors
	dist := make([]int32, n)
	queue := make([]int32, 0, n)
	var total int64
	for hi, h := range r.hosts {
		rs = rs[:0]
		g.bfs(nb, int(h), dist, queue, nil, func(now int32, e nbr) {
			if r.row[e.node] >= 0 {
				rs = append(rs, rec{e.node, e.peerPort})
				cnt[e.node]++
			}
		})
		for v, rw := range r.row {
			if rw >= 0 {
				r.dist[hi*nr+int(rw)] = dist[v]
			}
		}
		if r.hops == nil { // the first BFS's size times the hosts, about the table's
			r.hops = make([]int32, 0, min(len(rs)*nh+len(rs), math.MaxInt32))
		}
		block := r.off[hi*nr : (hi+1)*nr]
		for v, rw := range r.row {
			if rw < 0 {
				continue
			}
			block[rw] = int32(total)
			total += int64(cnt[v])
			cnt[v] = block[rw]
		}
		if total > math.MaxInt32 {
			panic("topo: routing table too large")
		}
		r.hops = slices.Grow(r.hops, int(total)-len(r.hops))[:total]
		for _, x := range rs {
			r.hops[cnt[x.node]] = x.port
			cnt[x.node]++
		}
		clear(cnt)
	}
	r.off[nr*nh] = int32(total)
	return r
}

// RouteRows returns the number of rows NextHops's table has (the switches
// and the hosts without a single neighbour), without building it: the
// table holds RouteRows() × hosts entries.
func (g *Graph) RouteRows() int {
	nb := g.neighbours()
	rows := 0
	for v := range g.Kinds {
		if singleNeighbour(g, nb, v) < 0 {
			rows++
		}
	}
	return rows
}

// singleNeighbour returns the one neighbour of host v, or -1 when v is a
// switch or has none, several, or itself as a neighbour.
func singleNeighbour(g *Graph, nb [][]nbr, v int) int {
	if g.Kinds[v] != Host || len(nb[v]) != 1 || int(nb[v][0].node) == v {
		return -1
	}
	return int(nb[v][0].node)
}

// Rows returns the number of nodes with rows in the table (switches and
// hosts with several neighbours): the table holds Rows() × NumHosts()
// entries.
func (r *Routes) Rows() int { return r.rows }

// Graph returns the graph the tables were computed from.
func (r *Routes) Graph() *Graph { return r.g }

// NumHosts returns the number of hosts (destinations) in the table.
func (r *Routes) NumHosts() int { return len(r.hosts) }

// HostIndex returns the dense index (0..NumHosts()-1, ascending node id) of
// host node, or -1 if node is not a host.
func (r *Routes) HostIndex(node int) int {
	if uint(node) >= uint(len(r.hostIdx)) {
		return -1
	}
	return int(r.hostIdx[node])
}

// Next returns the equal-cost next-hop ports (port indices at node, see
// Graph.Ports) from node towards host dstHost, in the reference order. It is
// empty if node is dstHost, dstHost is unreachable or not a host. The slice
// aliases the table: do not modify it. Next does not allocate.
func (r *Routes) Next(node, dstHost int) []int32 {
	if uint(dstHost) >= uint(len(r.hostIdx)) || uint(node) >= uint(len(r.hostIdx)) {
		return nil
	}
	hi := r.hostIdx[dstHost]
	if hi < 0 {
		return nil
	}
	rw := r.row[node]
	if rw < 0 { // a single-neighbour host: its uplink, when it leads to dstHost
		if r.Dist(node, dstHost) <= 0 {
			return r.hops[:0:0]
		}
		return r.up[node : node+1 : node+1]
	}
	i := int(hi)*r.rows + int(rw)
	a, b := r.off[i], r.off[i+1]
	return r.hops[a:b:b]
}

// Dist returns the hop count from node to host dstHost, or -1 if it is
// unreachable or dstHost is not a host.
func (r *Routes) Dist(node, dstHost int) int {
	if uint(dstHost) >= uint(len(r.hostIdx)) || uint(node) >= uint(len(r.hostIdx)) {
		return -1
	}
	hi := r.hostIdx[dstHost]
	if hi < 0 {
		return -1
	}
	if rw := r.row[node]; rw >= 0 {
		return int(r.dist[int(hi)*r.rows+int(rw)])
	}
	// a single-neighbour host: 0 to itself; else one more than its
	// neighbour u, which the BFS expands only if u is a switch or the
	// destination itself
	switch u := int(r.upPeer[node]); {
	case node == dstHost:
		return 0
	case u == dstHost:
		return 1
	case r.g.Kinds[u] == Host: // not expanded
		return -1
	default: // a switch: it has a row
		if d := r.dist[int(hi)*r.rows+int(r.row[u])]; d >= 0 {
			return int(d) + 1
		}
		return -1
	}
}

// PathInfo holds the constants of the path between two hosts that the
// reference simulator uses for base RTT, BDP and standalone FCT
// (docs/reference-simulator.md §1.4):
// the first path its BFS discovers, i.e. the path that from the source
// follows the first entry of every next-hop list.
type PathInfo struct {
	Hops    int      // links on the path; 0 if src == dst; -1 if unreachable
	Nodes   []int    // node ids from src to dst (Hops+1 of them)
	Links   []int    // link indices from src to dst
	LinkBps []int64  // rate of each link on the path, b/s
	Delay   sim.Time // sum of the one-way propagation delays
	MinBps  int64    // bottleneck rate, b/s (0 if Hops <= 0)
	// TxDelay is the exact sum over the links of the payload serialization
	// time (sim.TxTime, ps).
	TxDelay sim.Time
	// TxDelayRef is the reference's value: the sum over the links of
	// payload·8·10^9/bps ns, integer division per link (a whole number of ns).
	TxDelayRef sim.Time
}

// BaseRTT returns 2·Delay + TxDelay (exact serialization times).
func (p PathInfo) BaseRTT() sim.Time { return 2*p.Delay + p.TxDelay }

// RefRTT returns the reference's pairRtt: 2·Delay + TxDelayRef.
func (p PathInfo) RefRTT() sim.Time { return 2*p.Delay + p.TxDelayRef }

// RefBDPBytes returns the reference's pairBdp: RefRTT·MinBps/10^9/8 bytes,
// rounded down.
func (p PathInfo) RefBDPBytes() int64 { return sim.BytesIn(p.RefRTT(), p.MinBps) }

// refTxNs is the reference's per-link tx time of payload bytes: integer ns.
func refTxNs(payloadBytes int, bps int64) sim.Time {
	if payloadBytes <= 0 || bps <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(payloadBytes), 8e9)
	if hi >= uint64(bps) {
		return sim.Never
	}
	q, _ := bits.Div64(hi, lo, uint64(bps))
	if q > uint64(sim.Never/sim.Nanosecond) {
		return sim.Never
	}
	return sim.Time(q) * sim.Nanosecond
}

// addLink extends p by link li (going to node to).
func (p *PathInfo) addLink(g *Graph, li, to, payloadBytes int) {
	l := g.Links[li]
	p.Hops++
	p.Nodes = append(p.Nodes, to)
	p.Links = append(p.Links, li)
	p.LinkBps = append(p.LinkBps, l.Bps)
	p.Delay += l.Delay
	if p.MinBps == 0 || l.Bps < p.MinBps {
		p.MinBps = l.Bps
	}
	p.TxDelay += sim.TxTime(int64(payloadBytes), l.Bps)
	p.TxDelayRef += refTxNs(payloadBytes, l.Bps)
}

// PathInfo returns the constants of the first BFS path from host src to host
// dst for packets of payloadBytes (docs/reference-simulator.md §1.4). src may also be a switch;
// Hops is -1 if dst is not a host or is unreachable from src. It runs one
// BFS; use Routes.PathInfo when the tables are already built.
func (g *Graph) PathInfo(src, dst int, payloadBytes int) PathInfo {
	n := len(g.Kinds)
	if src < 0 || src >= n || dst < 0 || dst >= n || g.Kinds[dst] != Host {
		return PathInfo{Hops: -1}
	}
	if src == dst {
		return PathInfo{Nodes: []int{src}}
	}
	parent := make([]nbr, n) // for each node: its first next hop (node, port at the node)
	dist := make([]int32, n)
	g.bfs(g.neighbours(), dst, dist, nil, func(now int32, e nbr) {
		parent[e.node] = nbr{node: now, port: e.peerPort, link: e.link}
	}, nil)
	if dist[src] < 0 {
		return PathInfo{Hops: -1}
	}
	p := PathInfo{Nodes: []int{src}}
	for v := src; v != dst; {
		e := parent[v]
		p.addLink(g, int(e.link), int(e.node), payloadBytes)
		v = int(e.node)
	}
	return p
}

// PathInfo returns the same as Graph.PathInfo, walking the first entry of
// the precomputed next-hop lists.
func (r *Routes) PathInfo(src, dst int, payloadBytes int) PathInfo {
	if r.Dist(src, dst) < 0 {
		return PathInfo{Hops: -1}
	}
	p := PathInfo{Nodes: []int{src}}
	for v := src; v != dst; {
		pr := r.ports[v][r.Next(v, dst)[0]]
		p.addLink(r.g, pr.Link, pr.Peer, payloadBytes)
		v = pr.Peer
	}
	return p
}

// PathConsts is PathInfo without the per-hop slices (Nodes, Links and
// LinkBps are nil): the path's hop count, delay, bottleneck and
// serialization sums, with no allocation. Setting up and summarising
// many flows (hundreds of thousands in paper 002's Google RPC runs) needs
// only these.
func (r *Routes) PathConsts(src, dst int, payloadBytes int) PathInfo {
	if r.Dist(src, dst) < 0 {
		return PathInfo{Hops: -1}
	}
	var p PathInfo
	for v := src; v != dst; {
		pr := r.ports[v][r.Next(v, dst)[0]]
		l := r.g.Links[pr.Link]
		p.Hops++
		p.Delay += l.Delay
		if p.MinBps == 0 || l.Bps < p.MinBps {
			p.MinBps = l.Bps
		}
		p.TxDelay += sim.TxTime(int64(payloadBytes), l.Bps)
		p.TxDelayRef += refTxNs(payloadBytes, l.Bps)
		v = pr.Peer
	}
	return p
}

// MaxRTT returns the reference's maxRtt and maxBdp (docs/reference-simulator.md §1.4): the maxima,
// each taken separately, over all ordered pairs of distinct mutually
// reachable hosts, of RefRTT and RefBDPBytes of the pair's first BFS path
// for packets of payloadBytes. It costs one BFS per host.
func (g *Graph) MaxRTT(payloadBytes int) (rtt sim.Time, bdpBytes int64) {
	n := len(g.Kinds)
	nb := g.neighbours()
	dist := make([]int32, n)
	queue := make([]int32, 0, n)
	rttTo := make([]sim.Time, n) // reference pairRtt from each node to the root
	minBps := make([]int64, n)
	for h, k := range g.Kinds {
		if k != Host {
			continue
		}
		rttTo[h], minBps[h] = 0, math.MaxInt64
		g.bfs(nb, h, dist, queue, func(now int32, e nbr) {
			l := g.Links[e.link]
			rttTo[e.node] = rttTo[now] + 2*l.Delay + refTxNs(payloadBytes, l.Bps)
			minBps[e.node] = min(minBps[now], l.Bps)
		}, nil)
		for s, d := range dist {
			if d <= 0 || g.Kinds[s] != Host {
				continue
			}
			rtt = max(rtt, rttTo[s])
			bdpBytes = max(bdpBytes, sim.BytesIn(rttTo[s], minBps[s]))
		}
	}
	return rtt, bdpBytes
}

// IdealFCT returns the reference's standalone FCT
// (docs/reference-simulator.md §9.1) of a message of
// sizeBytes over path p: p.RefRTT() + floor(total·8·10^9 / p.MinBps) ns, with
// total = size + ceil(size/payloadBytes)·hdrBytes (the reference uses
// hdrBytes = 48 and payloadBytes = PACKET_PAYLOAD_SIZE; p should have been
// computed with the same payload). The reference holds total in a uint32, so
// its value wraps for messages over ~4 GB; this function does not. Returns
// sim.Never if p is unreachable and 0 if src == dst.
func IdealFCT(p PathInfo, sizeBytes int64, payloadBytes int, hdrBytes int) sim.Time {
	if p.Hops < 0 {
		return sim.Never
	}
	if p.Hops == 0 || p.MinBps <= 0 {
		return 0
	}
	total := uint64(max(sizeBytes, 0))
	if sizeBytes > 0 && payloadBytes > 0 {
		total += uint64((sizeBytes-1)/int64(payloadBytes)+1) * uint64(max(hdrBytes, 0))
	}
	hi, lo := bits.Mul64(total, 8e9)
	if hi >= uint64(p.MinBps) {
		return sim.Never
	}
	q, _ := bits.Div64(hi, lo, uint64(p.MinBps))
	rtt := p.RefRTT()
	if q > uint64((sim.Never-rtt)/sim.Nanosecond) {
		return sim.Never
	}
	return rtt + sim.Time(q)*sim.Nanosecond
}

// DistFrom returns the hop count from node root to every node, over paths
// whose inner nodes are switches (the routing's BFS, with root as the only
// node expanded besides switches); -1 = unreachable. Distances are
// symmetric, so it is also the distance from every node to root.
func (g *Graph) DistFrom(root int) []int32 {
	dist := make([]int32, len(g.Kinds))
	if root < 0 || root >= len(g.Kinds) {
		for i := range dist {
			dist[i] = -1
		}
		return dist
	}
	g.bfs(g.neighbours(), root, dist, make([]int32, 0, len(g.Kinds)), nil, nil)
	return dist
}

// CheckVia reports whether switch via lies on a shortest path (as the
// routing counts hops) from host src to host dst, which is what routing a
// flow through via (route pinning) needs: a nil error if it does, else an
// error saying why not (via not a switch, unreachable, or a detour of so
// many hops). It runs two BFSs.
func (g *Graph) CheckVia(src, dst, via int) error {
	n := len(g.Kinds)
	switch {
	case via < 0 || via >= n:
		return fmt.Errorf("node %d does not exist (nodes are 0..%d)", via, n-1)
	case g.Kinds[via] != Switch:
		return fmt.Errorf("node %d is a host, not a switch", via)
	case src < 0 || src >= n || g.Kinds[src] != Host || dst < 0 || dst >= n || g.Kinds[dst] != Host:
		return fmt.Errorf("flow %d → %d: the endpoints must be hosts", src, dst)
	}
	dv := g.DistFrom(via)
	direct := g.DistFrom(dst)[src]
	if direct < 0 {
		return fmt.Errorf("host %d cannot reach host %d", src, dst)
	}
	if dv[src] < 0 || dv[dst] < 0 {
		return fmt.Errorf("switch %d is not reachable from hosts %d and %d", via, src, dst)
	}
	if d := dv[src] + dv[dst]; d != direct {
		return fmt.Errorf("switch %d is not on a shortest path from host %d to host %d (%d hops through it, %d on a shortest path)", via, src, dst, d, direct)
	}
	return nil
}
