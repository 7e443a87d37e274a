// Package papers registers every paper reproduction with the experiment
// package; import it (for its side effect) to make them available.
package papers

import (
	_ "github.com/ccsim/ccsim/experiment/papers/dcon"   // paper 003
	_ "github.com/ccsim/ccsim/experiment/papers/dcqcnp" // paper 004
	_ "github.com/ccsim/ccsim/experiment/papers/decc"   // paper 000
	_ "github.com/ccsim/ccsim/experiment/papers/pidnn"  // paper 001
	_ "github.com/ccsim/ccsim/experiment/papers/wrcc"   // paper 002
)
