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
	"sort"
	"strings"

	"github.com/ccsim/ccsim/fabric"
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

// Lookup returns the algorithm registered under name.
func Lookup(name string) (*Spec, error) {
	s, ok := registry[name]
	if !ok {
		return nil, fmt.Errorf("unknown algorithm %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	return s, nil
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

// ParamInfo describes one parameter for documentation (`ccsim list`).
type ParamInfo struct {
	Name, Unit, Doc string
	Default         any
}

// Describe lists the parameters of a parameter struct with their current
// values (the defaults when called on Defaults()).
func Describe(p Params) []ParamInfo {
	v := reflect.ValueOf(p).Elem()
	t := v.Type()
	var out []ParamInfo
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name := strings.Split(f.Tag.Get("yaml"), ",")[0]
		if name == "" || name == "-" {
			continue
		}
		out = append(out, ParamInfo{Name: name, Unit: f.Tag.Get("unit"), Doc: f.Tag.Get("doc"), Default: v.Field(i).Interface()})
	}
	return out
}

// rangeErr formats the project's standard out-of-range error.
func rangeErr(field string, v any, lo, hi string) error {
	return fmt.Errorf("%s = %v out of range [%s, %s]", field, v, lo, hi)
}
