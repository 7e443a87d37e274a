package scenario

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"

	"go.yaml.in/yaml/v3"

	"github.com/ccsim/ccsim/cc"
)

// Field validation: validate checks the sections in document order, one
// function per section (validate_*.go), and records which sections are
// sound. The order of the checks is the order of the errors reported.

// validate checks every field, resolves the node names and records the
// sound sections (s.sound); it returns every error found but those about
// fields the decoder could not fill (follow-on errors of a decoding error
// already reported, docs: scenario/decodeerr.go).
func (s *Scenario) validate() Errors {
	var errs Errors
	s.validateHeader(&errs)
	s.validateCC(&errs)
	named := s.validateTopology(&errs)
	s.validateFabric(named, &errs)
	s.validateWorkload(&errs)
	s.validateOutputs(&errs)
	if len(s.undecoded) > 0 {
		errs = slices.DeleteFunc(errs, func(err error) bool { return followOn(err, s.undecoded) })
	}
	return errs
}

// CheckName checks a name used as one path component (a scenario name
// under results/, an algorithm's directory): 1 to 200 letters, digits and
// . _ - +, not starting with a dot (no "..", no separators, no control
// characters). field names it in the error.
func CheckName(field, name string) error {
	bad := len(name) == 0 || len(name) > 200 || name[0] == '.'
	for _, r := range name {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("._-+", r)) {
			bad = true
		}
	}
	if bad {
		return fmt.Errorf("%s = %q: it names a directory; use 1 to 200 letters, digits and . _ - + (not starting with a dot)", field, name)
	}
	return nil
}

// nodeRange checks a node id field (a name that did not resolve is
// reported by resolveNames).
func nodeRange(errs *Errors, field string, v NodeID) {
	if !v.Unresolved() {
		rangef(errs, field, float64(v), 0, 1e7)
	}
}

// rangef reports field = v outside [lo, hi] (NaN included).
func rangef(errs *Errors, field string, v, lo, hi float64) {
	if !(v >= lo && v <= hi) {
		*errs = append(*errs, fmt.Errorf("%s = %v out of range [%v, %v]", field, v, lo, hi))
	}
}

// validateHeader checks name and stop_ms.
func (s *Scenario) validateHeader(errs *Errors) {
	if s.Name != "" {
		if err := CheckName("name", s.Name); err != nil {
			*errs = append(*errs, err)
		}
	}
	rangef(errs, "stop_ms", s.StopMs, 1e-6, 1e6)
}

// validateCC checks the cc list and decodes and checks the parameters of
// each algorithm (params), keeping the valid ones (ccParams); params of
// an unknown algorithm are errors, and those of an algorithm not in the
// list are checked as well.
func (s *Scenario) validateCC(errs *Errors) {
	if len(s.CC) == 0 {
		*errs = append(*errs, fmt.Errorf("cc: at least one algorithm is required (names: ccsim list)"))
	}
	s.ccParams = map[string]cc.Params{}
	seen := map[string]bool{}
	for i, name := range s.CC {
		spec, err := cc.Lookup(name)
		if err != nil {
			*errs = append(*errs, fmt.Errorf("cc[%d]: %v", i, err))
			continue
		}
		if seen[name] {
			*errs = append(*errs, fmt.Errorf("cc[%d]: %q listed twice", i, name))
		}
		seen[name] = true
		if p := s.validateParams(name, spec, errs); p != nil {
			s.ccParams[name] = p
		}
	}
	// params of registered algorithms the cc list does not run (yet: --cc
	// may select them) are checked too, so a typo is found now (issue 19
	// §3.5); a base name that an entry of the list reads (dcqcn for
	// dcqcn+win) was checked above.
	used := map[string]bool{}
	for _, name := range s.CC {
		if _, ok := s.Params[name]; ok {
			used[name] = true
		} else {
			used[cc.BaseName(name)] = true
		}
	}
	for _, name := range slices.Sorted(maps.Keys(s.Params)) {
		spec, err := cc.Lookup(name)
		if err != nil {
			*errs = append(*errs, fmt.Errorf("params.%s: %v", name, err))
			continue
		}
		if !used[name] {
			s.validateParams(name, spec, errs)
		}
	}
}

// validateParams decodes and checks the parameters of algorithm name
// (params.<name>, else params.<base name>: dcqcn+win takes params.dcqcn)
// over its defaults; it returns them, or nil when they are invalid.
func (s *Scenario) validateParams(name string, spec *cc.Spec, errs *Errors) cc.Params {
	p := spec.Defaults()
	raw, ok := s.Params[name]
	if !ok {
		raw, ok = s.Params[cc.BaseName(name)]
	}
	bad := false
	if ok {
		for _, err := range decodeParams(&raw, p) {
			*errs = append(*errs, fmt.Errorf("params.%s: %v", name, err))
			bad = true
		}
	}
	// validated even after a decoding error: the fields that decoded
	// are checked too
	if err := p.Validate(); err != nil {
		*errs = append(*errs, fmt.Errorf("params.%s.%v", name, err))
		bad = true
	}
	if bad {
		return nil
	}
	return p
}

// decodeParams decodes an algorithm's parameters from their node of the
// document strictly: a name that is not a parameter is an error, and every
// error names its line in the file.
func decodeParams(n *yaml.Node, into cc.Params) Errors {
	var errs Errors
	if keys, ok := mappingKeys(n); ok {
		known := map[string]bool{}
		var names []string
		for _, pi := range cc.Describe(into) {
			known[pi.Name] = true
			names = append(names, pi.Name)
		}
		for _, k := range keys {
			if !known[k.Value] {
				errs = append(errs, fmt.Errorf("line %d: field %s not found in type %s (parameters: %s)",
					k.Line, k.Value, strings.TrimPrefix(fmt.Sprintf("%T", into), "*"), strings.Join(names, ", ")))
			}
		}
	}
	if err := n.Decode(into); err != nil {
		var te *yaml.TypeError
		if !errors.As(err, &te) {
			return append(errs, err)
		}
		for _, m := range te.Errors {
			errs = append(errs, errors.New(m))
		}
	}
	// in the order of the file
	slices.SortStableFunc(errs, func(a, b error) int { return lineOf(a) - lineOf(b) })
	return errs
}

// lineOf is N of an error "line N: ...", else 0.
func lineOf(err error) int {
	var n int
	if _, e := fmt.Sscanf(err.Error(), "line %d:", &n); e != nil {
		return 0
	}
	return n
}
