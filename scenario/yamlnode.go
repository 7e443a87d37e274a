package scenario

import (
	"go.yaml.in/yaml/v3"
)

// Helpers over the parsed YAML tree: whether a field was given (absent and
// null take the default, any other value is validated as given) and the
// keys of a mapping with merge keys (<<) resolved.

// nodeBudget bounds the nodes one lookup may visit: merge keys and aliases
// can make a small document a large tree.
const nodeBudget = 1 << 14

// resolve follows aliases.
func resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 64; i++ {
		n = n.Alias
	}
	if n != nil && n.Kind == yaml.AliasNode {
		return nil
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n == nil || n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// mapValue returns the value of key in mapping n: an explicit key first,
// then the merged mappings in order (as the decoder resolves them).
func mapValue(n *yaml.Node, key string, budget *int) *yaml.Node {
	n = resolve(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		*budget--
		if *budget < 0 {
			return nil
		}
		if k := resolve(n.Content[i]); k != nil && k.Kind == yaml.ScalarNode && k.Value == key && k.ShortTag() != "!!merge" {
			return n.Content[i+1]
		}
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := resolve(n.Content[i]); k == nil || k.ShortTag() != "!!merge" {
			continue
		}
		for _, m := range mergeSources(n.Content[i+1]) {
			if v := mapValue(m, key, budget); v != nil {
				return v
			}
		}
	}
	return nil
}

// mergeSources is the value of a merge key: one mapping or a sequence of
// them.
func mergeSources(v *yaml.Node) []*yaml.Node {
	v = resolve(v)
	if v == nil {
		return nil
	}
	if v.Kind == yaml.SequenceNode {
		return v.Content
	}
	return []*yaml.Node{v}
}

// lookup walks path (string: mapping key, int: sequence index) from n and
// returns the node there, or nil.
func lookup(n *yaml.Node, path ...any) *yaml.Node {
	budget := nodeBudget
	n = resolve(n)
	if n != nil && n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = resolve(n.Content[0])
	}
	for _, p := range path {
		if n == nil {
			return nil
		}
		switch p := p.(type) {
		case string:
			n = resolve(mapValue(n, p, &budget))
		case int:
			if n.Kind != yaml.SequenceNode || p < 0 || p >= len(n.Content) {
				return nil
			}
			n = resolve(n.Content[p])
		}
	}
	return n
}

// given reports whether the field at path has a non-null value.
func given(root *yaml.Node, path ...any) bool {
	return !isNull(lookup(root, path...))
}

// mappingKeys returns the keys of mapping n, merged keys included (an
// explicit key hides a merged one of the same name); ok is false if n is
// not a mapping or the merges are too large to list.
func mappingKeys(n *yaml.Node) (keys []*yaml.Node, ok bool) {
	budget := nodeBudget
	seen := map[string]bool{}
	var walk func(n *yaml.Node, depth int) bool
	walk = func(n *yaml.Node, depth int) bool {
		n = resolve(n)
		if n == nil || n.Kind != yaml.MappingNode || depth > 32 {
			return false
		}
		var merges []*yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if budget--; budget < 0 {
				return false
			}
			k := resolve(n.Content[i])
			if k == nil {
				continue
			}
			if k.ShortTag() == "!!merge" {
				merges = append(merges, n.Content[i+1])
				continue
			}
			if !seen[k.Value] {
				seen[k.Value] = true
				keys = append(keys, k)
			}
		}
		for _, m := range merges {
			for _, src := range mergeSources(m) {
				if !walk(src, depth+1) {
					return false
				}
			}
		}
		return true
	}
	ok = walk(n, 0)
	return keys, ok
}
