package profiles

import (
	"errors"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/loadgen"
)

// Shape is one fill of a shape sweep: the profile's fill section with a
// shape's own fill settings over it (its keys, values, tombstones, size),
// restored by every case on its own application id and topic
// (<application_id>-<name>), its records named case@<name>.
type Shape struct {
	// Name labels the shape's fill, application id and records.
	Name string
	Spec loadgen.Spec
}

// shapeRefused are the fill settings a shape may not set, and why.
var shapeRefused = map[string]string{
	"topic":       "each shape fills the changelog of its own application id (<application_id>-<shape>)",
	"store_kind":  "every shape restores the fill section's store kind (set fill.store_kind, or sweep store_kinds in a profile of its own)",
	"compression": "every shape is written with the fill section's compression (set fill.compression)",
}

// sweepShapes checks a shape sweep (top is the profile's top level, to
// locate an error) and gives each shape's fill spec: each shape named
// (one path element, at most once), its settings fill settings laid over
// the fill section (a shape's size or records replacing the section's),
// valid, and not beside sizes, store_kinds or fill.topic. It returns the
// shapes and the first one's fill, which the plan's Spec describes.
func sweepShapes(doc *document, fill config.Fill, top *yaml.Node) ([]Shape, config.Fill, error) {
	at := func(msg string, a ...any) error {
		return &config.FieldError{Path: "shapes", Line: lineOf(top, "shapes"), Msg: fmt.Sprintf(msg, a...)}
	}
	switch {
	case len(doc.Shapes) == 0:
		return nil, fill, at("an empty list: list the shapes to sweep, or remove shapes")
	case len(doc.Sizes) > 0:
		return nil, fill, at("a shape sweep gives each shape its own size or records: remove sizes (list a shape per size)")
	case len(doc.StoreKinds) > 0:
		return nil, fill, at("not with store_kinds: sweep the kinds in a profile of their own")
	case fill.Topic != "":
		return nil, fill, at("each shape fills the changelog of its own application id (<application_id>-<shape>): remove fill.topic")
	case len(doc.Shapes) > MaxSizes:
		return nil, fill, at("%d shapes is over %d", len(doc.Shapes), MaxSizes)
	}
	var shapes []Shape
	var first config.Fill
	for i := range doc.Shapes {
		n := &doc.Shapes[i]
		path := fmt.Sprintf("shapes[%d]", i)
		if n.Kind != yaml.MappingNode {
			return nil, fill, &config.FieldError{Path: path, Line: n.Line, Msg: "want a mapping: name and the fill settings of the shape"}
		}
		nameNode := mappingValue(n, "name")
		if nameNode == nil {
			return nil, fill, &config.FieldError{Path: path + ".name", Line: n.Line, Msg: "missing"}
		}
		name := nameNode.Value
		if err := config.CheckName("name", name); err != nil {
			return nil, fill, located(err, n, path)
		}
		if err := shapeNameClash(shapes, name); err != nil {
			return nil, fill, &config.FieldError{Path: path + ".name", Line: nameNode.Line, Msg: err.Error()}
		}
		if err := config.CheckNames(doc.AppID+"-"+name, doc.Store, ""); err != nil {
			return nil, fill, &config.FieldError{Path: path + ".name", Line: nameNode.Line, Msg: fmt.Sprintf("names the shape's changelog: %v", err)}
		}
		settings := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: n.Line}
		for j := 0; j+1 < len(n.Content); j += 2 {
			k := n.Content[j]
			if k.Value == "name" {
				continue
			}
			if why, refused := shapeRefused[k.Value]; refused {
				return nil, fill, &config.FieldError{Path: path + "." + k.Value, Line: k.Line, Msg: why}
			}
			settings.Content = append(settings.Content, k, n.Content[j+1])
		}
		f := fill
		if mappingValue(settings, "size") != nil || mappingValue(settings, "records") != nil {
			f.Size, f.Records = nil, nil // the shape's own amount replaces the section's
		}
		if err := decodeOnto(settings, &f, path); err != nil {
			return nil, fill, err
		}
		spec, err := f.Spec()
		if err != nil {
			var fe *config.FieldError
			if errors.As(err, &fe) && mappingValue(settings, fe.Path) != nil {
				return nil, fill, located(err, settings, path)
			}
			return nil, fill, fmt.Errorf("%s (%s): %w", path, name, located(err, &doc.Fill, "fill"))
		}
		if i == 0 {
			first = f
		}
		shapes = append(shapes, Shape{Name: name, Spec: spec})
	}
	return shapes, first, nil
}

// shapeNameClash refuses name when an earlier shape has it, or one equal
// under strings.EqualFold: the shapes' files and directories, named after
// them, would collide on a case-insensitive filesystem.
func shapeNameClash(earlier []Shape, name string) error {
	for j, s := range earlier {
		switch {
		case s.Name == name:
			return fmt.Errorf("%q is shapes[%d]'s name too: each shape is measured once (use repeats for more measurements)", name, j)
		case strings.EqualFold(s.Name, name):
			return fmt.Errorf("%q and shapes[%d]'s %q differ only in case: their files would collide on a case-insensitive "+
				"filesystem; name them apart", name, j, s.Name)
		}
	}
	return nil
}

// checkShapeCases refuses, in a shape sweep, a case whose scenario is not
// cold (top is the profile's top level, to locate the error): the sweep is
// made for cold restores compared across shapes, and the other scenarios'
// bounds (a warm restart's changed records, a standby's rates) are set
// for one fill.
func checkShapeCases(p *Plan, top *yaml.Node) error {
	if len(p.Shapes) == 0 {
		return nil
	}
	for _, c := range p.Cases {
		if c.Scenario != config.ScenarioCold {
			return &config.FieldError{Path: "shapes", Line: lineOf(top, "shapes"),
				Msg: fmt.Sprintf("case %s runs scenario %s, but a shape sweep runs cold restores only so far: run it in a profile of its own", c.Name, c.Scenario)}
		}
	}
	return nil
}
