package cc

import (
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/sim"
)

// NoneParams has no parameters: `none` sends at line rate with no window.
type NoneParams struct{}

// Validate accepts everything.
func (*NoneParams) Validate() error { return nil }

type none struct{}

func (none) Start(q *fabric.QP, now sim.Time)                      {}
func (none) OnAck(q *fabric.QP, a *fabric.AckInfo, now sim.Time)   {}
func (none) OnNotice(q *fabric.QP, n *fabric.Notice, now sim.Time) {}
func (none) OnTimer(q *fabric.QP, id int, now sim.Time)            {}
func (none) OnSend(q *fabric.QP, size int, now sim.Time)           {}

func init() {
	Register(&Spec{
		Name:     "none",
		Summary:  "no congestion control: line rate, no window (reference runs, PFC only)",
		Defaults: func() Params { return &NoneParams{} },
		New: func(Params) (func(*fabric.QP) fabric.Algorithm, fabric.Requirements) {
			return func(*fabric.QP) fabric.Algorithm { return none{} }, fabric.Requirements{}
		},
	})
}
