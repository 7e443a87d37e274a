package scenario

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"go.yaml.in/yaml/v3"

	"github.com/ccsim/ccsim/cc"
)

// Load reads and validates a scenario file. Relative paths inside it are
// resolved against the file's directory.
func Load(path string) (*Scenario, error) {
	data, err := readScenarioFile(path)
	if err != nil {
		return nil, err
	}
	s, err := Parse(data)
	if s != nil {
		s.dir = filepath.Dir(path)
	}
	if errors.Is(err, errParserPanic) {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err != nil {
		return s, err
	}
	if err := s.checkFiles(); err != nil {
		return s, err
	}
	return s, nil
}

// errParserPanic marks the error Parse returns when the YAML decoder
// panicked on the input.
var errParserPanic = errors.New("the YAML decoder failed on this input")

// parseHook, if set, runs inside Parse's panic guard (tests).
var parseHook func()

// Parse decodes a scenario strictly (an unknown field is an error naming
// it), applies defaults and validates every field, reporting all errors.
// It never panics: a panic of the YAML decoder becomes an error.
func Parse(data []byte) (s *Scenario, err error) {
	defer func() {
		if p := recover(); p != nil {
			s, err = nil, fmt.Errorf("scenario: %w (%v)", errParserPanic, p)
		}
	}()
	s, errs, err := safeDecode(data)
	if err != nil {
		return nil, err
	}
	errs = append(errs, s.validate()...)
	if len(errs) > 0 {
		return s, errs
	}
	return s, nil
}

// safeDecode is decode with a panic of the YAML decoder turned into an
// error.
func safeDecode(data []byte) (s *Scenario, errs Errors, err error) {
	defer func() {
		if p := recover(); p != nil {
			s, errs, err = nil, nil, fmt.Errorf("scenario: %w (%v)", errParserPanic, p)
		}
	}()
	if parseHook != nil {
		parseHook()
	}
	return decode(data)
}

// decode decodes a scenario strictly and applies the defaults. It returns
// the field errors found (unknown fields, type mismatches, explicit values
// without a representation), or err if the input is not a YAML document.
func decode(data []byte) (*Scenario, Errors, error) {
	// The document tree tells which fields are given (absent and null take
	// the defaults); the strict decode fills the struct.
	var root yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&root); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil, fmt.Errorf("scenario: empty document")
		}
		return nil, nil, fmt.Errorf("scenario: %w", err)
	}
	var s Scenario
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var errs Errors
	if err := dec.Decode(&s); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil, fmt.Errorf("scenario: empty document")
		}
		// Unknown fields and type mismatches leave the rest of the document
		// decoded: report them together with the validation errors.
		var te *yaml.TypeError
		if !errors.As(err, &te) {
			return nil, nil, fmt.Errorf("scenario: %w", err)
		}
		errs, s.undecoded = explain(&root, te.Errors)
	}
	errs = append(errs, s.applyDefaults(&root)...)
	return &s, errs, nil
}

// path resolves p against the scenario's directory.
func (s *Scenario) path(p string) string {
	if filepath.IsAbs(p) || s.dir == "" {
		return p
	}
	return filepath.Join(s.dir, p)
}

// checkFiles reports the files the scenario names that do not exist.
func (s *Scenario) checkFiles() error {
	var errs Errors
	if s.Topology.Kind == "ns3" {
		if _, err := os.Stat(s.path(s.Topology.File)); err != nil {
			errs = append(errs, fmt.Errorf("topology.file: %v", err))
			s.sound.Topology = false
		}
	}
	if s.Workload.File != "" {
		if _, err := os.Stat(s.path(s.Workload.File)); err != nil {
			errs = append(errs, fmt.Errorf("workload.file: %v", err))
			s.sound.Workload = false
		}
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// ParamsOf returns the validated parameters of algorithm name (nil if name
// is not in the cc list or its parameters are invalid).
func (s *Scenario) ParamsOf(name string) cc.Params { return s.ccParams[name] }

// Resolve returns a path from the scenario resolved against its directory.
func (s *Scenario) Resolve(p string) string { return s.path(p) }

// DecodeFile reads the scenario file at path strictly and applies the
// defaults, without validating: it returns the scenario with the errors of
// decoding (unknown fields, type mismatches), or err when the file cannot
// be read or is not a YAML document (a panic of the YAML decoder included).
// Relative paths inside the file resolve against its directory. Validate
// then checks it; assemble.Check does both and builds.
func DecodeFile(path string) (*Scenario, Errors, error) {
	data, err := readScenarioFile(path)
	if err != nil {
		return nil, nil, err
	}
	s, errs, err := safeDecode(data)
	if err != nil {
		if errors.Is(err, errParserPanic) {
			err = fmt.Errorf("%s: %w", path, err)
		}
		return nil, nil, err
	}
	s.dir = filepath.Dir(path)
	return s, errs, nil
}

// Validate checks every field, as Parse does, and that the files the
// scenario names exist, as Load does, and returns every error found (nil
// if none). It resolves the node names and records which sections are
// sound (Sound), so it runs again after the scenario was changed (e.g. its
// cc list).
func (s *Scenario) Validate() Errors {
	errs := s.validate()
	if err := s.checkFiles(); err != nil {
		errs = AppendError(errs, err)
	}
	return errs
}

// Sound reports which sections passed the last validation.
func (s *Scenario) Sound() Soundness { return s.sound }

// MaxFileBytes bounds a scenario file: far above any real one (flows in
// bulk belong in workload.file), it keeps `validate /dev/zero` or a
// mistaken multi-gigabyte file from exhausting memory (issue 19 §3.9).
const MaxFileBytes = 16 << 20

// readScenarioFile reads at most MaxFileBytes of path, refusing a larger
// file (a device without end included).
func readScenarioFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("%s: larger than %d MiB: not a scenario file (put many flows in workload.file)", path, MaxFileBytes>>20)
	}
	return data, nil
}
