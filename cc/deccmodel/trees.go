package deccmodel

import (
	"bytes"
	"fmt"
	"os"
	"sync"

	"github.com/ccsim/ccsim/ml/gbdt"
)

// TreeFeatures is the width of the trees' input: the flattened history of
// History local states, oldest first (decc.md §1.9).
const TreeFeatures = History * Features

// DecodeTrees decodes distilled trees from CatBoost JSON (docs/gbdt.md) and
// checks that they read TreeFeatures features.
func DecodeTrees(b []byte) (*gbdt.Model, error) {
	m, err := gbdt.ReadCatBoostJSON(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("DECC trees: %w", err)
	}
	if n := m.NumFeatures(); n != TreeFeatures {
		return nil, fmt.Errorf("DECC trees: %d features, want %d (%d MTPs × %d local-state values)", n, TreeFeatures, History, Features)
	}
	return m, nil
}

// LoadTreesFile reads distilled trees; errors name the path.
func LoadTreesFile(path string) (*gbdt.Model, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m, err := DecodeTrees(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

var shippedTrees struct {
	once sync.Once
	m    *gbdt.Model
	err  error
}

// ShippedTrees returns the embedded trees, decoded once (shared: Predict
// is safe for concurrent use).
func ShippedTrees() (*gbdt.Model, error) {
	s := &shippedTrees
	s.once.Do(func() { s.m, s.err = DecodeTrees(treesJSON) })
	return s.m, s.err
}
