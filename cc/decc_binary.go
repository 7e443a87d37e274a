package cc

import (
	"fmt"

	"github.com/ccsim/ccsim/cc/deccmodel"
)

// DECCBinaryDefaults are `decc-binary`'s parameters: DECCDefaults with the
// compressed network (decc.md §1.8: pruned to p* = 0.65, 4-bit weights) as
// the policy; an empty model is the embedded one (deccmodel.ShippedBinary).
// decision_ns is 0 as decc-nn's; Table 3's 17 µs is the named reading the
// experiments run (docs/algorithms/decc.md §5).
func DECCBinaryDefaults() *DECCParams {
	p := DECCDefaults()
	p.kind = deccBinary
	return p
}

// loadStudent loads decc-binary's network or decc's trees: the file named
// by Model, or the embedded student when it is empty.
func (p *DECCParams) loadStudent() error {
	if p.kind == deccTrees {
		return p.loadTrees()
	}
	var err error
	if p.Model == "" {
		_, p.policy, err = deccmodel.ShippedBinary()
	} else {
		_, p.policy, err = deccmodel.LoadBinaryFile(p.Model)
	}
	if err != nil {
		p.policy = nil
		return fmt.Errorf("model: %v", err)
	}
	p.modelFrom, p.loaded = p.Model, true
	return nil
}

func init() {
	Register(&Spec{
		Name: "decc-binary",
		Summary: "DECC (paper 000) with its compressed network: the teacher pruned to 65 % and quantised to 4 bits, fine-tuned by distillation " +
			"(docs/compress.md), greedy over its 11 logits, decc-nn's MTP loop; the shipped network (ccsim train decc)",
		Defaults: func() Params { return DECCBinaryDefaults() },
		Variant:  true,
		New:      deccNew,
	})
}
