// Package experiment holds reproductions of published experiments and the
// comparison of ccsim against the reference simulator's outputs.
package experiment

import (
	"fmt"
	"math"
	"os"

	"github.com/ccsim/ccsim/metrics"
	"github.com/ccsim/ccsim/scenario"
)

// RefComparison compares ccsim's per-flow FCTs with a reference fct.txt.
type RefComparison struct {
	Flows         int
	RefMeanFCTUs  float64
	SimMeanFCTUs  float64
	RefMaxFCTUs   float64
	SimMaxFCTUs   float64
	MeanErr       float64 // (sim − ref) / ref
	MaxErr        float64
	RefMeanSlowdn float64
	SimMeanSlowdn float64
	Unfinished    int
}

// String formats the comparison as one line.
func (c RefComparison) String() string {
	return fmt.Sprintf("flows %d: mean FCT %.1f us vs ref %.1f us (%+.2f%%), finish %.1f us vs ref %.1f us (%+.2f%%)",
		c.Flows, c.SimMeanFCTUs, c.RefMeanFCTUs, 100*c.MeanErr, c.SimMaxFCTUs, c.RefMaxFCTUs, 100*c.MaxErr)
}

// CompareWithRef reads the reference fct file and compares it with a run.
func CompareWithRef(r *scenario.Result, refPath string) (RefComparison, error) {
	f, err := os.Open(refPath)
	if err != nil {
		return RefComparison{}, err
	}
	defer f.Close()
	ref, err := metrics.ReadRefFCT(f)
	if err != nil {
		return RefComparison{}, fmt.Errorf("%s: %w", refPath, err)
	}
	var c RefComparison
	c.Flows = len(ref)
	for _, l := range ref {
		v := float64(l.FCTNs) / 1e3
		c.RefMeanFCTUs += v
		c.RefMaxFCTUs = math.Max(c.RefMaxFCTUs, v)
		c.RefMeanSlowdn += l.Slowdown()
	}
	c.RefMeanFCTUs /= float64(len(ref))
	c.RefMeanSlowdn /= float64(len(ref))
	n := 0
	for _, rec := range r.Flows {
		if !rec.Done {
			c.Unfinished++
			continue
		}
		v := rec.FCT().Microseconds()
		c.SimMeanFCTUs += v
		c.SimMaxFCTUs = math.Max(c.SimMaxFCTUs, v)
		c.SimMeanSlowdn += rec.Slowdown()
		n++
	}
	if n > 0 {
		c.SimMeanFCTUs /= float64(n)
		c.SimMeanSlowdn /= float64(n)
	}
	c.MeanErr = (c.SimMeanFCTUs - c.RefMeanFCTUs) / c.RefMeanFCTUs
	c.MaxErr = (c.SimMaxFCTUs - c.RefMaxFCTUs) / c.RefMaxFCTUs
	return c, nil
}
