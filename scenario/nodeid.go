package scenario

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ccsim/ccsim/topo"
)

// NodeID is a node id in a scenario field (flow endpoints, incast and
// generator hosts, sampled ports, via switches). In the file it is an
// integer id or, on a topology whose nodes are named (kind dcon_testbed),
// a node's name such as "R1" or "S1". Parsing keeps a name as a
// placeholder value and validation replaces it by the id for the
// scenario's topology.kind, so after a successful Parse every NodeID is an
// id (and Resolved writes ids).
type NodeID int

// Node names known to any topology kind, in one table: a name decodes to
// nameBase − 1 − (its index here) until validation resolves it for the
// kind.
var (
	kindNames = map[string][]string{
		"dcon_testbed": topo.DCONTestbedNames(), // indexed by node id
	}
	allNames = func() []string {
		var all []string
		for _, k := range slices.Sorted(func(yield func(string) bool) {
			for k := range kindNames {
				if !yield(k) {
					return
				}
			}
		}) {
			for _, n := range kindNames[k] {
				if !slices.Contains(all, n) {
					all = append(all, n)
				}
			}
		}
		return all
	}()
)

// nameBase marks a node field whose value failed to decode (the decoder
// reported it); allNames[i] is nameBase − 1 − i. Ids at or below it are
// rejected when decoded.
const nameBase = -(1 << 20)

// isName reports whether v is the placeholder of a name.
func (v NodeID) isName() bool { return v < nameBase && int(nameBase-1-v) < len(allNames) }

// unresolved reports whether v is a name placeholder or a value that failed
// to decode: checks of ids skip it (its error is reported elsewhere).
func (v NodeID) unresolved() bool { return v <= nameBase }

// name returns the name v stands for (isName must hold).
func (v NodeID) name() string { return allNames[nameBase-1-v] }

// UnmarshalYAML accepts an integer id or a node name. A value that is
// neither leaves the field marked as failed (so that checks of the id do
// not report it again) and returns the error.
func (v *NodeID) UnmarshalYAML(n *yaml.Node) error {
	*v = nameBase
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" {
		if i := slices.Index(allNames, n.Value); i >= 0 {
			*v = NodeID(nameBase - 1 - i)
			return nil
		}
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: node %q: not a node id, nor a node name of any topology kind (named kinds: %s)",
			n.Line, n.Value, describeNamedKinds())}}
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

// describeNamedKinds lists the kinds with names and their names, for
// errors.
func describeNamedKinds() string {
	var parts []string
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range kindNames {
			if !yield(k) {
				return
			}
		}
	}) {
		parts = append(parts, k+" ("+summarizeNames(kindNames[k])+")")
	}
	return strings.Join(parts, ", ")
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
// ids of topology kind, reporting the names kind does not define. path is
// v's field path ("workload"), extended with the yaml names of the fields
// and the indices of the lists for the errors. It returns whether any node
// field is left without an id (a name kind does not define, or a value the
// decoder rejected), so that the section is not built.
func resolveNames(v any, path, kind string, errs *Errors) (unresolved bool) {
	names := kindNames[kind]
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
			if !id.unresolved() {
				return
			}
			if !id.isName() {
				unresolved = true // the decoder reported it
				return
			}
			if k := slices.Index(names, id.name()); k >= 0 {
				r.SetInt(int64(k))
				return
			}
			unresolved = true
			if len(names) == 0 {
				*errs = append(*errs, fmt.Errorf("%s = %q: topology.kind %s has no node names; give a node id (named kinds: %s)",
					path, id.name(), kind, describeNamedKinds()))
			} else {
				*errs = append(*errs, fmt.Errorf("%s = %q: not a node of topology.kind %s (names: %s)", path, id.name(), kind, summarizeNames(names)))
			}
		}
	}
	walk(reflect.ValueOf(v), path)
	return unresolved
}

// ids converts node ids to ints.
func ids(v []NodeID) []int {
	if v == nil {
		return nil
	}
	out := make([]int, len(v))
	for i, x := range v {
		out[i] = int(x)
	}
	return out
}
