// Package cc holds the sender-side congestion-control algorithms, one file
// each, and the registry that maps names to constructors with typed,
// validated parameter structs.
//
// A parameter struct is a plain Go struct whose fields carry a `yaml` tag
// (the name used in scenario files, as in the algorithm's paper), a `doc`
// tag and optionally a `unit` tag; its Validate method names the bad field
// and the allowed range.
package cc

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/sim"
)

// Params is an algorithm's parameter struct (a pointer).
type Params interface {
	Validate() error
}

// Spec describes one registered algorithm.
type Spec struct {
	Name    string
	Summary string
	// Defaults returns a fresh pointer to the parameter struct holding the
	// algorithm's defaults.
	Defaults func() Params
	// New returns a constructor of per-QP instances for the given parameters
	// and the requirements the algorithm puts on the fabric.
	New func(p Params) (func(q *fabric.QP) fabric.Algorithm, fabric.Requirements)
	// Switch, if set, gives the algorithm's switch-side part (PCN, Bolt,
	// DCON, ..., in cc/NAME_switch.go): a constructor called once per
	// switch with the switch's view (fabric.Network.SwitchView, after the
	// flows were added), which may return nil where the feature does not
	// act, and the period of the features' OnPeriod hook (0 = none).
	Switch func(p Params) (func(sw *fabric.SwitchView) fabric.SwitchFeature, sim.Time)
	// Harness marks a training harness rather than a congestion-control
	// algorithm (e.g. agent, whose rate a policy sets: docs/env.md): it
	// runs when named, but the default comparison (Compared) leaves it out.
	Harness bool
	// Variant marks a variant of another algorithm kept for its paper's
	// ablation (decc-nn and decc-binary beside decc, DECC as deployed): a
	// full algorithm, run when named, left out of the default comparison
	// so that the comparison shows each mechanism once (and the DNN's
	// ~100 µs decisions do not dominate its time).
	Variant bool
}

var registry = map[string]*Spec{}

// Register adds an algorithm; it panics on a duplicate name (a programming
// error caught at init).
func Register(s *Spec) {
	if _, dup := registry[s.Name]; dup {
		panic("cc: duplicate algorithm " + s.Name)
	}
	registry[s.Name] = s
}

// Window suffixes: any algorithm name followed by "+win" runs with an
// in-flight cap that follows the rate (window = max BDP × rate / line rate,
// the reference simulator's VAR_WIN, docs/algorithms/window.md §2), or with
// "+winfixed" a fixed cap of one BDP (line rate × max base RTT).
const (
	WinSuffix      = "+win"
	WinFixedSuffix = "+winfixed"
)

// Lookup returns the algorithm registered under name, or the window-capped
// variant of one (name+win, name+winfixed).
func Lookup(name string) (*Spec, error) {
	if s, ok := registry[name]; ok {
		return s, nil
	}
	for _, suf := range []string{WinFixedSuffix, WinSuffix} {
		if base, ok := strings.CutSuffix(name, suf); ok {
			if s, ok := registry[base]; ok {
				return withWindow(s, name, suf == WinSuffix), nil
			}
		}
	}
	return nil, fmt.Errorf("unknown algorithm %q (known: %s; any of them +win or +winfixed)", name, strings.Join(Names(), ", "))
}

// withWindow wraps an algorithm so that its QPs start with a window of one
// BDP (variable: scaled by rate / line rate at every send decision).
func withWindow(s *Spec, name string, variable bool) *Spec {
	w := *s
	w.Name = name
	w.Summary = s.Summary + " — with window"
	w.New = func(p Params) (func(*fabric.QP) fabric.Algorithm, fabric.Requirements) {
		ctor, req := s.New(p)
		return func(q *fabric.QP) fabric.Algorithm {
			return &windowed{Algorithm: ctor(q), variable: variable}
		}, req
	}
	return &w
}

// windowed sets the QP's window after the inner algorithm started.
type windowed struct {
	fabric.Algorithm
	variable bool
}

func (w *windowed) Start(q *fabric.QP, now sim.Time) {
	w.Algorithm.Start(q, now)
	if w.variable {
		applyWindow(q, "variable")
	} else {
		applyWindow(q, "fixed")
	}
}

// Names lists the registered algorithms in alphabetical order.
func Names() []string {
	var ns []string
	for n := range registry {
		ns = append(ns, n)
	}
	sort.Strings(ns)
	return ns
}

// Compared is the sorted list of the algorithms the built-in default
// scenario compares: every registered one except training harnesses.
func Compared() []string {
	var ns []string
	for _, n := range Names() {
		if !registry[n].Harness && !registry[n].Variant {
			ns = append(ns, n)
		}
	}
	return ns
}

// ParamInfo describes one parameter for documentation (`ccsim list`).
type ParamInfo struct {
	Name, Unit, Doc string
	Default         any
}

// Describe lists the parameters of a parameter struct with their current
// values (the defaults when called on Defaults()).
func Describe(p Params) []ParamInfo {
	return describe(reflect.ValueOf(p).Elem())
}

func describe(v reflect.Value) []ParamInfo {
	t := v.Type()
	var out []ParamInfo
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := strings.Split(f.Tag.Get("yaml"), ",")
		name := tag[0]
		if name == "" && slices.Contains(tag[1:], "inline") && f.Type.Kind() == reflect.Struct {
			out = append(out, describe(v.Field(i))...) // e.g. DCON's DCQCN parameters
			continue
		}
		if name == "" || name == "-" {
			continue
		}
		out = append(out, ParamInfo{Name: name, Unit: f.Tag.Get("unit"), Doc: f.Tag.Get("doc"), Default: v.Field(i).Interface()})
	}
	return out
}

// OnTimeout forwards the sender's retransmission timeout to the inner
// algorithm, if it reacts to one.
func (w *windowed) OnTimeout(q *fabric.QP, now sim.Time) {
	if t, ok := w.Algorithm.(fabric.TimeoutAlgorithm); ok {
		t.OnTimeout(q, now)
	}
}

// OnDataReceived forwards to the inner algorithm's receiver side, if any.
func (w *windowed) OnDataReceived(q *fabric.QP, ecn bool, payload int, mark uint8, now sim.Time) (bool, int64) {
	if r, ok := w.Algorithm.(fabric.ReceiverAlgorithm); ok {
		return r.OnDataReceived(q, ecn, payload, mark, now)
	}
	return false, 0
}

// BaseName strips a window suffix from an algorithm name.
func BaseName(name string) string {
	for _, suf := range []string{WinFixedSuffix, WinSuffix} {
		if b, ok := strings.CutSuffix(name, suf); ok {
			return b
		}
	}
	return name
}
