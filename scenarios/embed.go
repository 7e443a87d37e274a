// Package scenarios embeds the checked-in scenario files of the paper
// reproductions (scenarios/papers/PAPER/), so that `ccsim reproduce` works
// from an installed binary as well as from the repository. The same files
// run alone with `ccsim run scenarios/papers/PAPER/FILE.yaml`.
package scenarios

import "embed"

// Papers holds papers/<paper id>/*.yaml and their input files.
//
//go:embed papers
var Papers embed.FS
