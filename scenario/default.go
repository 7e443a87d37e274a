package scenario

import (
	_ "embed"
	"strings"

	"github.com/ccsim/ccsim/cc"
)

//go:embed default.yaml
var defaultYAML []byte

// DefaultYAML is the built-in default scenario's source, without a cc
// list (Default selects the algorithms).
func DefaultYAML() []byte { return defaultYAML }

// DefaultTemplate is what `ccsim default` prints: the default scenario's
// source with the cc list Default selects written out (every compared
// algorithm, cc.Compared), so that running the printed file runs what
// `ccsim` runs (issue 19 §3.7: without it the file ran dcqcn alone).
func DefaultTemplate() []byte {
	line := "cc: [" + strings.Join(cc.Compared(), ", ") + "]   # every compared algorithm (ccsim list)\n"
	src := string(defaultYAML)
	i := strings.Index(src, "\nstop_ms:")
	if i < 0 {
		return []byte(line + src)
	}
	return []byte(src[:i+1] + line + src[i+1:])
}

// Default returns the built-in default scenario (the 20-to-1 incast of
// paper 001) with every registered algorithm selected, training harnesses
// (cc.Compared) aside.
func Default() (*Scenario, error) {
	s, err := Parse(defaultYAML)
	if err != nil {
		return nil, err
	}
	return s.WithCC(cc.Compared())
}

// WithCC replaces the scenario's algorithm list (e.g. from --cc) and
// validates the parameters of the new names.
func (s *Scenario) WithCC(names []string) (*Scenario, error) {
	c := *s
	c.CC = names
	if errs := c.validate(); len(errs) > 0 {
		return nil, errs
	}
	return &c, nil
}
