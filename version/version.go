// Package version holds ccsim's version. It is part of every reproduction
// run's content hash (experiment package): bump it whenever simulated
// behaviour changes, so that results of an older model are never reused.
package version

// Version is ccsim's release version.
const Version = "0.10.0"
