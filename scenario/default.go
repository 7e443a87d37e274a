package scenario

import (
	_ "embed"

	"github.com/ccsim/ccsim/cc"
)

//go:embed default.yaml
var defaultYAML []byte

// DefaultYAML is the built-in default scenario's source.
func DefaultYAML() []byte { return defaultYAML }

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
