package scenario

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Decoding errors, explained: the YAML decoder's messages name a line but
// not the field, and a field it could not fill keeps its zero value, which
// validation would then report again as out of range ("link_gbps: 100G"
// also gave "topology.link_gbps = 0 out of range"; a duplicate key leaves
// its whole mapping empty, so every field of it was reported). explain
// names the field of each message and the type wanted, and returns the
// paths the decoder left unfilled, whose validation errors are follow-on
// errors and are not reported (issue 19 §3.4).

var (
	reUnmarshal = regexp.MustCompile("^line ([0-9]+): cannot unmarshal (!![a-z]+)(?: `(.*)`)? into (.+)$")
	reDuplicate = regexp.MustCompile(`^line ([0-9]+): mapping key "(.*)" already defined at line ([0-9]+)$`)
)

// nodeAt is a node of the document with the path of its field.
type nodeAt struct {
	path string     // "topology.link_gbps", "workload.flows[2].src"; "" for the document
	n    *yaml.Node // the value
	key  *yaml.Node // its key (nil for sequence items and the document)
	in   string     // the path of the mapping or sequence holding it
}

// fieldNodes lists the document's value nodes with their paths, in
// document order (aliases are not followed; at most nodeBudget nodes).
func fieldNodes(root *yaml.Node) []nodeAt {
	var out []nodeAt
	var walk func(n, key *yaml.Node, path, in string)
	walk = func(n, key *yaml.Node, path, in string) {
		if n == nil || len(out) >= nodeBudget {
			return
		}
		out = append(out, nodeAt{path: path, n: n, key: key, in: in})
		switch n.Kind {
		case yaml.DocumentNode:
			for _, c := range n.Content {
				walk(c, nil, path, in)
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i]
				p := k.Value
				if path != "" {
					p = path + "." + k.Value
				}
				walk(n.Content[i+1], k, p, path)
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				walk(c, nil, fmt.Sprintf("%s[%d]", path, i), path)
			}
		}
	}
	walk(root, nil, "", "")
	return out
}

// explain rewrites the decoder's messages to name their fields and returns
// the field paths the decoder left unfilled ("" = the whole document).
func explain(root *yaml.Node, msgs []string) (errs Errors, undecoded []string) {
	nodes := fieldNodes(root)
	for _, m := range msgs {
		if g := reDuplicate.FindStringSubmatch(m); g != nil {
			line, _ := strconv.Atoi(g[1])
			in, ok := duplicateMapping(nodes, line, g[2])
			if ok {
				undecoded = append(undecoded, in)
				where := "the document's top level"
				if in != "" {
					where = in
				}
				m = fmt.Sprintf("%s (YAML allows a key once per mapping; the fields of %s are not read until it is fixed)", m, where)
			}
			errs = append(errs, errors.New(m))
			continue
		}
		if g := reUnmarshal.FindStringSubmatch(m); g != nil {
			line, _ := strconv.Atoi(g[1])
			if p, ok := mismatchPath(nodes, line, g[2], g[3]); ok {
				undecoded = append(undecoded, p)
				switch {
				case g[3] != "":
					m = fmt.Sprintf("line %s: %s = %s: want %s", g[1], p, g[3], wanted(g[4]))
				case g[2] == "!!seq":
					m = fmt.Sprintf("line %s: %s is a list: want %s", g[1], p, wanted(g[4]))
				case g[2] == "!!map":
					m = fmt.Sprintf("line %s: %s is a mapping: want %s", g[1], p, wanted(g[4]))
				default:
					m = fmt.Sprintf("line %s: %s is %s: want %s", g[1], p, g[2], wanted(g[4]))
				}
			}
		}
		errs = append(errs, errors.New(m))
	}
	return errs, undecoded
}

// duplicateMapping returns the path of the mapping in which key appears
// again at line.
func duplicateMapping(nodes []nodeAt, line int, key string) (string, bool) {
	for _, x := range nodes {
		if x.key != nil && x.key.Line == line && x.key.Value == key {
			return x.in, true
		}
	}
	return "", false
}

// mismatchPath returns the path of the value at line whose tag (and
// scalar value, when the message shows one) the message names; with
// several candidates on one line (a flow mapping) the innermost, last in
// document order (in `flows: [{src: [1]}]` the list that fails to be an
// int is src's, not flows').
func mismatchPath(nodes []nodeAt, line int, tag, value string) (string, bool) {
	for i := len(nodes) - 1; i >= 0; i-- {
		x := nodes[i]
		n := x.n
		if n.Line != line || n.ShortTag() != tag || n.Kind == yaml.DocumentNode {
			continue
		}
		if value != "" && (n.Kind != yaml.ScalarNode || n.Value != value) {
			continue
		}
		if x.path == "" {
			continue
		}
		return x.path, true
	}
	return "", false
}

// wanted describes a Go type of the decoder's message in a scenario
// writer's words.
func wanted(goType string) string {
	switch {
	case goType == "float64" || goType == "float32":
		return "a number"
	case goType == "uint64" || goType == "uint32" || goType == "uint":
		return "a whole number in [0, 18446744073709551615]"
	case goType == "int64" || goType == "int" || goType == "int32":
		return "a whole number"
	case goType == "bool":
		return "true or false"
	case goType == "string":
		return "a string"
	case strings.HasPrefix(goType, "[]"):
		return "a list"
	case strings.HasPrefix(goType, "map["):
		return "a mapping"
	}
	return "a mapping (" + goType + ")"
}

// followOn reports whether a validation error is about a field the decoder
// left unfilled (or inside one).
func followOn(err error, undecoded []string) bool {
	msg := err.Error()
	for _, p := range undecoded {
		if p == "" {
			return true
		}
		if rest, ok := strings.CutPrefix(msg, p); ok && (rest == "" || strings.ContainsRune(" .[:=", rune(rest[0]))) {
			return true
		}
	}
	return false
}
