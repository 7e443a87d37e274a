package decc

// The topologies (scenarios/papers/decc/fattree.yaml, star16.yaml) and the
// workload builders of E4–E6: explicit flow lists, since the paper's
// workloads are not among the scenario generators (docs/workloads.md): a
// many-to-one of N flows round-robin over the senders, broadcast processes
// as chains of 64-KB messages, and the pairwise-exchange all-to-all as one
// chain of sends per node.

import (
	"github.com/ccsim/ccsim/experiment"
)

const (
	fattree = "fattree.yaml"
	star16  = "star16.yaml"
)

// msgBytes is the paper's RDMA WRITE size (§4.1: "each flow continuously
// posts 64 KB RDMA WRITE requests").
const msgBytes = 64 << 10

// streamBytes is the size of a long-lived flow: more than any flow can send
// in a run (1 GB at 400 Gb/s takes 20 ms, runs last at most 2 ms). The
// paper's flows are endless streams of 64-KB WRITEs; ccsim reads one as one
// byte stream (as perftest's bandwidth QPs, docs/workloads.md P-I2).
const streamBytes = 1_000_000_000

// tree is the fat-tree's size at a scale: spines, ToRs, hosts per ToR.
type tree struct{ spines, tors, perToR int }

// hosts is the number of compute nodes.
func (t tree) hosts() int { return t.tors * t.perToR }

// treeAt is the fat-tree at a scale: the paper's 4 ToRs × 16 nodes with 4
// spines (decc.md §2.1), or 2 spines, 2 ToRs × 4 nodes at quick scale.
func treeAt(sc experiment.Scale) tree {
	return experiment.AtScale(sc, tree{2, 2, 4}, tree{4, 4, 16})
}

// treePatch sets the fat-tree's size, its non-blocking ToR–spine links
// (a ToR's host capacity over its spines: 1,600 Gb/s at the paper's
// scale; the oversubscribed reading sets 400) and the run's length.
func treePatch(sc experiment.Scale, stopMs float64) map[string]any {
	t := treeAt(sc)
	return map[string]any{
		"stop_ms": stopMs,
		"topology": map[string]any{"spines": t.spines, "leaves": t.tors, "hosts_per_leaf": t.perToR,
			"fabric_gbps": 400 * t.perToR / t.spines},
	}
}

// flowsPatch is a workload of explicit flows, replacing the base's incast.
func flowsPatch(flows []any) map[string]any {
	return map[string]any{"workload": map[string]any{"flows": flows, "incast": nil}}
}

// manyToOne is E4's workload: n long-lived flows from the hosts other than
// host 0, assigned round-robin (flow i from host 1 + i mod (hosts − 1)), to
// host 0, all starting at 0 (decc.md §2.4's interpretation). It is an
// incast section with a sender listed once per flow: a list of integers,
// which resolves in milliseconds where 8192 explicit flows take seconds
// per run.
func manyToOne(hosts, n int) map[string]any {
	src := make([]any, n)
	for i := range src {
		src[i] = 1 + i%(hosts-1)
	}
	return map[string]any{"workload": map[string]any{"incast": map[string]any{
		"senders": src, "receiver": 0, "sizes_bytes": []any{streamBytes}, "start_ns": 0,
	}}}
}

// broadcastDst is the destination of message m of process p at node i
// among n nodes: the processes of a node start at successive other nodes
// and each visits every other node in round-robin order (decc.md §2.5).
func broadcastDst(i, p, m, n int) int {
	return (i + 1 + (p+m)%(n-1)) % n
}

// broadcast is E5's workload: k processes on each of the n hosts, each a
// chain of msgs 64-KB messages (a message is posted when the previous one
// completes, its last byte acknowledged: one WRITE outstanding per
// process), the first of every chain starting at 0. Flows are listed chain
// by chain: node i's process p is chain i·k + p.
func broadcast(n, k, msgs int) []any {
	out := make([]any, 0, n*k*msgs)
	for i := 0; i < n; i++ {
		for p := 0; p < k; p++ {
			first := len(out)
			for m := 0; m < msgs; m++ {
				f := map[string]any{"src": i, "dst": broadcastDst(i, p, m, n), "size_bytes": msgBytes}
				if m == 0 {
					f["start_ns"] = 0
				} else {
					f["after"] = first + m - 1
				}
				out = append(out, f)
			}
		}
	}
	return out
}

// ringBroadcast is E5's workload under the primary reading: k processes
// on each of the n hosts, each a message ring (docs/workloads.md §4.4) of
// n − 1 queue pairs, one per destination in the process's round-robin
// order: the process posts its next 64-KB message to the next node when
// the previous one completes (one WRITE outstanding per process), on the
// queue pair it keeps for that node, whose algorithm keeps its state
// between the process's visits. The first queue pair of every ring starts
// at 0; each other starts at its first turn. Flows are listed ring by
// ring: node i's process p is ring i·k + p, its queue pair m at
// (i·k + p)·(n − 1) + m.
func ringBroadcast(n, k int) []any {
	out := make([]any, 0, n*k*(n-1))
	for i := 0; i < n; i++ {
		for p := 0; p < k; p++ {
			first := len(out)
			for m := 0; m < n-1; m++ {
				f := map[string]any{"src": i, "dst": broadcastDst(i, p, m, n), "size_bytes": msgBytes, "next": first + (m+1)%(n-1)}
				if m == 0 {
					f["start_ns"] = 0
				} else {
					f["after"] = first + m - 1
				}
				out = append(out, f)
			}
		}
	}
	return out
}

// chainMsgs is how many messages a broadcast process needs so that its
// chain cannot run out before the run ends: a message completes when the
// ACK of its last byte returns, so it takes at least its serialisation at
// 400 Gb/s (1.31 µs) plus the smallest base RTT of the fat-tree (4 µs: two
// links of 1 µs each way under one ToR); one more keeps a margin.
func chainMsgs(stopMs float64) int {
	perMsgUs := float64(msgBytes)*8/400e3 + 4
	return int(stopMs*1000/perMsgUs) + 1
}

// pairwise is E6's workload: MPI_Alltoall as the pairwise exchange, n − 1
// rounds; in round r (1 … n−1) node i sends one message of size bytes to
// node (i + r) mod n. Flow (i, r) is entry i·(n−1) + r − 1. With recv,
// node i's round r starts when both its own send of round r − 1 and its
// receive of that round (the message of node (i − r + 1) mod n) have
// completed — MPI_Sendrecv's barrier, the primary reading (docs/workloads.md
// §4.1: two predecessors); without, when its own send has (reading
// send-only).
func pairwise(n int, size int64, recv bool) []any {
	out := make([]any, 0, n*(n-1))
	idx := func(i, r int) int { return i*(n-1) + r - 1 }
	for i := 0; i < n; i++ {
		for r := 1; r < n; r++ {
			f := map[string]any{"src": i, "dst": (i + r) % n, "size_bytes": size}
			if r == 1 {
				f["start_ns"] = 0
			} else {
				f["after"] = idx(i, r-1)
				if from := ((i-(r-1))%n + n) % n; recv {
					f["also_after"] = idx(from, r-1)
				}
			}
			out = append(out, f)
		}
	}
	return out
}
