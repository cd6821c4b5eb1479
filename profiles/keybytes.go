package profiles

import (
	"fmt"

	"gopkg.in/yaml.v3"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/loadgen"
)

// checkKeyBytes refuses a case that cannot run on a fill of keys other
// than the default 16 bytes wide (fill is the fill section, to locate the
// error): a kafka-streams case of a versioned store, which the driver
// digests key by key over 16-byte keys (config.VersionedKeyBytesRefusal).
// Every other case generalises: keys come from the fill's spec wherever
// they are made or parsed.
func checkKeyBytes(p *Plan, fill *yaml.Node) error {
	for _, spec := range p.allSpecs() {
		if spec.KeyWidth() == loadgen.DefaultKeyBytes {
			continue
		}
		cases, err := p.CasesFor(spec)
		if err != nil {
			continue // checkKindSweep says why
		}
		for _, c := range cases {
			if c.Engine == config.EngineKafkaStreams && c.StoreKind == config.StoreVersionedKeyValue {
				return &config.FieldError{Path: "fill.key_bytes", Line: lineOf(fill, "key_bytes"),
					Msg: fmt.Sprintf("case %s: %s", c.Name, config.VersionedKeyBytesRefusal(spec.KeyWidth()))}
			}
		}
	}
	return nil
}

// allSpecs are the plan's fills' specs as written before a size sweep
// sets their sizes: its one fill's, each store kind's or each shape's.
func (p *Plan) allSpecs() []loadgen.Spec {
	if len(p.KindSpecs) > 0 {
		return p.KindSpecs
	}
	if len(p.Shapes) > 0 {
		out := make([]loadgen.Spec, len(p.Shapes))
		for i, s := range p.Shapes {
			out[i] = s.Spec
		}
		return out
	}
	return []loadgen.Spec{p.Spec}
}
