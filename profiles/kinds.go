package profiles

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/internal/listing"
	"github.com/restorebench/restorebench/loadgen"
	"gopkg.in/yaml.v3"
)

// Fills is how many fills the plan restores: one per size of a size
// sweep, one per kind of a store-kind sweep, one per kind and size of
// both, one per shape of a shape sweep, otherwise 1.
func (p *Plan) Fills() int {
	if len(p.Shapes) > 0 {
		return len(p.Shapes)
	}
	return max(len(p.Sizes), 1) * max(len(p.KindSpecs), 1)
}

// allKinds is the store_kinds value that sweeps every store kind
// restorebench builds.
const allKinds = "all"

// kindList is a profile's store_kinds: the kinds listed, or for "all"
// every kind registered (config.StoreKinds, in its order), so a profile
// that sweeps every kind (stores) needs no edit when a kind is added.
type kindList []config.StoreKind

// UnmarshalYAML reads a list of kinds, or the word "all".
func (l *kindList) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		if n.Value != allKinds {
			// decodeOnto names the field and its line.
			return fmt.Errorf("%q is neither a list of store kinds nor %q (every kind: %s)",
				n.Value, allKinds, listing.And(config.StoreKinds))
		}
		*l = slices.Clone(config.StoreKinds)
		return nil
	}
	var kinds []config.StoreKind
	if err := n.Decode(&kinds); err != nil {
		return err
	}
	*l = kinds
	return nil
}

// sweepKinds checks a store-kind sweep (top is the profile's top level,
// to locate an error) and gives each kind's fill spec (at a size sweep's
// first size, when fill has it: bench gives each kind every size): each
// kind at most once, known, and not beside a fill.store_kind or a
// fill.topic (each kind fills the changelog of its own application id).
func sweepKinds(doc *document, fill config.Fill, top *yaml.Node) ([]loadgen.Spec, error) {
	at := func(msg string, a ...any) error {
		return &config.FieldError{Path: "store_kinds", Line: lineOf(top, "store_kinds"), Msg: fmt.Sprintf(msg, a...)}
	}
	switch {
	case fill.StoreKind != "":
		return nil, at("a store-kind sweep sets the fill's kind: remove fill.store_kind")
	case fill.Topic != "":
		return nil, at("each kind fills the changelog of its own application id (<application_id>-<kind>): remove fill.topic")
	}
	var specs []loadgen.Spec
	seen := map[config.StoreKind]bool{}
	for i, k := range doc.StoreKinds {
		if seen[k] {
			return nil, at("%s is listed twice: each kind is measured once (use repeats for more measurements)", k)
		}
		seen[k] = true
		spec, err := fill.ForKind(k).Spec()
		if err != nil {
			var fe *config.FieldError
			if errors.As(err, &fe) && fe.Path == "store_kind" {
				return nil, &config.FieldError{Path: fmt.Sprintf("store_kinds[%d]", i), Line: lineOf(top, "store_kinds"), Msg: fe.Msg}
			}
			return nil, fmt.Errorf("store_kinds[%d] (%s): %w", i, k, located(err, &doc.Fill, "fill"))
		}
		specs = append(specs, spec)
	}
	return specs, nil
}

// CasesFor is the plan's cases as they restore a store-kind sweep's fill
// of spec: each case takes the fill's kind and, for a window store, its
// retention (as every case of a single fill does), and is checked again
// for that kind.
func (p *Plan) CasesFor(spec loadgen.Spec) ([]config.Case, error) {
	out := make([]config.Case, len(p.Cases))
	for i, c := range p.Cases {
		c.StoreKind = spec.StoreKind.Of()
		c.Retention = config.Duration(time.Duration(spec.RetentionMs) * time.Millisecond)
		if err := c.Validate(); err != nil {
			return nil, fmt.Errorf("case %s on a %s store: %w", c.Name, c.StoreKind, err)
		}
		out[i] = c
	}
	return out, nil
}

// checkKindSweep checks every case of a store-kind sweep on every kind
// (top is the profile's top level, to locate an error): a case that one
// kind cannot restore is refused before anything runs.
func checkKindSweep(p *Plan, top *yaml.Node) error {
	for i, spec := range p.KindSpecs {
		if _, err := p.CasesFor(spec); err != nil {
			return &config.FieldError{Path: fmt.Sprintf("store_kinds[%d]", i), Line: lineOf(top, "store_kinds"), Msg: err.Error()}
		}
	}
	return nil
}
