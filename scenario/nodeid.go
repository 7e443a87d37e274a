package scenario

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// NodeID is a node id in a scenario field (flow endpoints, incast and
// generator hosts, sampled ports, via switches, switch overrides). In the
// file it is an integer id or, on a topology whose nodes are named (kinds
// dcon_testbed, cross_dc, two_site), a node's name such as "R1", "A.dci"
// or "SW1". Parsing keeps a name as a placeholder value and validation
// replaces it by the id the name has in the graph the scenario's topology
// section builds (parameters may change the names, e.g. cross_dc.pods), so
// after a successful Parse every NodeID is an id (and Resolved writes ids).
type NodeID int

// namedKinds are the topology kinds whose graphs name their nodes.
var namedKinds = []string{"dcon_testbed", "cross_dc", "two_site"}

// Names met in scenario files, interned: a name decodes to nameBase − 1 −
// (its index here) until validation resolves it against the graph. The
// table only grows, by the distinct names parsed in this process.
var names struct {
	sync.RWMutex
	list  []string
	index map[string]int
}

// internName returns the index of name in the table, adding it.
func internName(name string) int {
	names.RLock()
	i, ok := names.index[name]
	names.RUnlock()
	if ok {
		return i
	}
	names.Lock()
	defer names.Unlock()
	if i, ok := names.index[name]; ok {
		return i
	}
	if names.index == nil {
		names.index = map[string]int{}
	}
	i = len(names.list)
	names.list = append(names.list, name)
	names.index[name] = i
	return i
}

// nameBase marks a node field whose value failed to decode (the decoder
// reported it); name i of the table is nameBase − 1 − i. Ids at or below
// it are rejected when decoded.
const nameBase = -(1 << 20)

// isName reports whether v is the placeholder of a name.
func (v NodeID) isName() bool {
	if v >= nameBase {
		return false
	}
	names.RLock()
	defer names.RUnlock()
	return int(nameBase-1-v) < len(names.list)
}

// Unresolved reports whether v is a name placeholder or a value that
// failed to decode: checks of ids skip it (its error is reported by
// validation). After a successful Parse no NodeID is unresolved.
func (v NodeID) Unresolved() bool { return v <= nameBase }

// name returns the name v stands for (isName must hold).
func (v NodeID) name() string {
	names.RLock()
	defer names.RUnlock()
	return names.list[nameBase-1-v]
}

// UnmarshalYAML accepts an integer id or a node name (any other string;
// it is resolved by validation). A value that is neither leaves the field
// marked as failed (so that checks of the id do not report it again) and
// returns the error.
func (v *NodeID) UnmarshalYAML(n *yaml.Node) error {
	*v = nameBase
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" {
		if _, err := strconv.Atoi(strings.TrimSpace(n.Value)); err == nil || n.Value == "" {
			return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: node %q: not a node id, nor a node name (an id is an unquoted integer; named kinds: %s)",
				n.Line, n.Value, strings.Join(namedKinds, ", "))}}
		}
		*v = NodeID(nameBase - 1 - internName(n.Value))
		return nil
	}
	var id int
	if err := n.Decode(&id); err != nil {
		return err
	}
	if id <= nameBase {
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: node id %d out of range", n.Line, id)}}
	}
	*v = NodeID(id)
	return nil
}

// summarizeNames writes runs of names with a common prefix and consecutive
// numbers as ranges: H0..H15, R0, R1, L0..L2, S0, S1.
func summarizeNames(names []string) string {
	var out []string
	for i := 0; i < len(names); {
		p, n, ok := splitNum(names[i])
		j := i + 1
		for ok && j < len(names) {
			q, m, ok2 := splitNum(names[j])
			if !ok2 || q != p || m != n+(j-i) {
				break
			}
			j++
		}
		switch {
		case j-i > 2:
			out = append(out, names[i]+".."+names[j-1])
		default:
			out = append(out, names[i:j]...)
		}
		i = j
	}
	return strings.Join(out, ", ")
}

// splitNum splits "H12" into "H", 12.
func splitNum(s string) (string, int, bool) {
	k := len(s)
	for k > 0 && s[k-1] >= '0' && s[k-1] <= '9' {
		k--
	}
	if k == len(s) {
		return s, 0, false
	}
	n, err := strconv.Atoi(s[k:])
	return s[:k], n, err == nil
}

var nodeIDType = reflect.TypeFor[NodeID]()

// resolveNames replaces the name placeholders in the NodeID fields of v (a
// pointer to a section of the scenario, or to one of its values) by the
// ids of the nodes so named in the topology's graph (names, indexed by
// node id; nil when topology.kind names no nodes), reporting the names it
// does not define. path is v's field path ("workload"), extended with the
// yaml names of the fields and the indices of the lists for the errors.
// With known false (a named kind whose parameters are invalid, reported
// elsewhere) names are left unresolved silently. It returns whether any
// node field is left without an id (a name the graph does not define, or a
// value the decoder rejected), so that the section is not built.
func resolveNames(v any, path, kind string, names []string, known bool, errs *Errors) (unresolved bool) {
	var walk func(r reflect.Value, path string)
	walk = func(r reflect.Value, path string) {
		switch r.Kind() {
		case reflect.Pointer:
			if !r.IsNil() {
				walk(r.Elem(), path)
			}
		case reflect.Slice:
			for i := range r.Len() {
				walk(r.Index(i), fmt.Sprintf("%s[%d]", path, i))
			}
		case reflect.Struct:
			t := r.Type()
			for i := range t.NumField() {
				f := t.Field(i)
				if !f.IsExported() {
					continue
				}
				name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
				if name == "" || name == "-" {
					continue
				}
				walk(r.Field(i), path+"."+name)
			}
		case reflect.Int:
			if r.Type() != nodeIDType {
				return
			}
			id := NodeID(r.Int())
			if !id.Unresolved() {
				return
			}
			if !id.isName() || !known {
				unresolved = true
				return // the decoder or the topology's validation reported it
			}
			if k := slices.Index(names, id.name()); k >= 0 {
				r.SetInt(int64(k))
				return
			}
			unresolved = true
			if len(names) == 0 {
				*errs = append(*errs, fmt.Errorf("%s = %q: topology.kind %s has no node names; give a node id (named kinds: %s)",
					path, id.name(), kind, strings.Join(namedKinds, ", ")))
			} else {
				*errs = append(*errs, fmt.Errorf("%s = %q: not a node of topology.kind %s (names: %s)", path, id.name(), kind, summarizeNames(names)))
			}
		}
	}
	walk(reflect.ValueOf(v), path)
	return unresolved
}

// resolveNames resolves the node names in v against the scenario's
// topology (see the function resolveNames).
func (s *Scenario) resolveNames(v any, path string, errs *Errors) bool {
	return resolveNames(v, path, s.Topology.Kind, s.nodeNames, s.namesKnown, errs)
}

// IDs converts node ids to ints (nil stays nil).
func IDs(v []NodeID) []int {
	if v == nil {
		return nil
	}
	out := make([]int, len(v))
	for i, x := range v {
		out[i] = int(x)
	}
	return out
}
