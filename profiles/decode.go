package profiles

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/restorebench/restorebench/config"
)

// decodeOnto decodes a YAML mapping onto dst, which already holds the
// defaults: keys present overwrite, keys absent keep their default, so an
// explicit value (even 0) is always the user's and is validated as such.
// Nested mappings (a scenario's settings) are decoded the same way onto
// their own defaults. Unknown keys and values of the wrong type are
// *config.FieldErrors naming path.key and the line.
func decodeOnto(n *yaml.Node, dst any, path string) error {
	if n == nil || n.Kind == 0 {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return &config.FieldError{Path: path, Line: n.Line, Msg: "want a mapping of field: value"}
	}
	rv := reflect.ValueOf(dst).Elem()
	known := yamlKeys(rv.Type())
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !known[k.Value] {
			return &config.FieldError{Path: join(path, k.Value), Line: k.Line, Msg: "unknown field" + suggest(k.Value, known)}
		}
		if sub, ok := nestedStruct(rv, k.Value); ok && v.Kind == yaml.MappingNode {
			if err := decodeOnto(v, sub, join(path, k.Value)); err != nil {
				return err
			}
			continue
		}
		// One key at a time, so a type error is pinned to its key even in
		// a flow mapping written on one line.
		pair := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: k.Line, Content: []*yaml.Node{k, v}}
		if err := pair.Decode(dst); err != nil {
			return typeErrorAt(k, v, path, err)
		}
	}
	return nil
}

var (
	unmarshalerType = reflect.TypeOf((*yaml.Unmarshaler)(nil)).Elem()
	yamlNodeType    = reflect.TypeOf(yaml.Node{})
)

// nestedStruct returns a pointer to the struct field of rv named key in
// YAML, when that field is a struct or a pointer to one (allocated with its
// zero value if nil) without its own YAML decoding.
func nestedStruct(rv reflect.Value, key string) (any, bool) {
	t := rv.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if opts == "inline" {
			if sub, ok := nestedStruct(rv.Field(i), key); ok {
				return sub, true
			}
			continue
		}
		if name != key {
			continue
		}
		fv := rv.Field(i)
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if ft.Kind() != reflect.Struct || ft == yamlNodeType || reflect.PointerTo(ft).Implements(unmarshalerType) {
			return nil, false
		}
		if fv.Kind() == reflect.Pointer {
			if fv.IsNil() {
				nv := reflect.New(ft)
				if d, ok := nv.Interface().(interface{ SetDefaults() }); ok {
					d.SetDefaults() // what the profile does not say keeps its default
				}
				fv.Set(nv)
			}
			return fv.Interface(), true
		}
		return fv.Addr().Interface(), true
	}
	return nil, false
}

// yamlKeys are the YAML names of a struct's fields, inline structs included.
func yamlKeys(t reflect.Type) map[string]bool {
	keys := map[string]bool{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		switch {
		case name == "-":
		case opts == "inline":
			for k := range yamlKeys(f.Type) {
				keys[k] = true
			}
		case name != "":
			keys[name] = true
		}
	}
	return keys
}

var (
	lineOfTypeErr = regexp.MustCompile(`^line (\d+): (.*)$`)
	cannotDecode  = regexp.MustCompile("^cannot unmarshal !!(\\w+) `(.*)` into (\\S+)$")
)

// typeErrorAt turns yaml.v3's "line N: cannot unmarshal ..." for the pair
// (k, v) into a FieldError naming k.
func typeErrorAt(k, v *yaml.Node, path string, err error) error {
	fe := &config.FieldError{Path: join(path, k.Value), Line: v.Line, Msg: strings.TrimPrefix(err.Error(), "yaml: ")}
	var te *yaml.TypeError
	if !errors.As(err, &te) || len(te.Errors) == 0 {
		return fe
	}
	fe.Msg = te.Errors[0]
	if m := lineOfTypeErr.FindStringSubmatch(te.Errors[0]); m != nil {
		fe.Line, _ = strconv.Atoi(m[1])
		fe.Msg = m[2]
	}
	if c := cannotDecode.FindStringSubmatch(fe.Msg); c != nil {
		fe.Msg = fmt.Sprintf("%q is not %s", c[2], goTypeWord(c[3]))
	}
	return fe
}

func goTypeWord(t string) string {
	switch {
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"):
		return "an integer"
	case strings.HasPrefix(t, "float"):
		return "a number"
	case t == "bool":
		return "true or false"
	case t == "string" || strings.HasPrefix(t, "config."):
		return "a single value"
	case strings.HasPrefix(t, "map"):
		return "a mapping"
	case strings.HasPrefix(t, "[]"):
		return "a list"
	}
	return "of type " + t
}

// lineOf is the line of key's value in mapping n, or n's own line.
func lineOf(n *yaml.Node, key string) int {
	if n == nil {
		return 0
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1].Line
		}
	}
	return n.Line
}

// located prefixes err's path with parent and, when it has no line yet,
// gives it the line of the deepest node of its path written in mapping n
// (see lineAt): "streams.num.stream.threads" is the line of that key's
// value, not of the streams mapping.
func located(err error, n *yaml.Node, parent string) error {
	var fe *config.FieldError
	if !errors.As(err, &fe) {
		return err
	}
	out := *fe
	if out.Line == 0 {
		out.Line = lineAt(n, out.Path)
	}
	out.Path = join(parent, out.Path)
	return &out
}

// lineAt is the line of the node at path ("warm.changed[2]",
// "streams.num.stream.threads": keys may hold dots, so the longest key that
// matches wins) under n, or of the deepest node on the way that the profile
// wrote; n's own line when it wrote none of it.
func lineAt(n *yaml.Node, path string) int {
	if n == nil {
		return 0
	}
	line := n.Line
	for path != "" && n != nil {
		var next *yaml.Node
		rest := ""
		switch n.Kind {
		case yaml.MappingNode:
			best := -1
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i].Value
				if k == path || strings.HasPrefix(path, k+".") || strings.HasPrefix(path, k+"[") {
					if best < 0 || len(k) > len(n.Content[best].Value) {
						best = i
					}
				}
			}
			if best >= 0 {
				k := n.Content[best].Value
				next, rest = n.Content[best+1], strings.TrimPrefix(strings.TrimPrefix(path, k), ".")
			}
		case yaml.SequenceNode:
			if idx, after, ok := strings.Cut(strings.TrimPrefix(path, "["), "]"); ok && strings.HasPrefix(path, "[") {
				if i, err := strconv.Atoi(idx); err == nil && i >= 0 && i < len(n.Content) {
					next, rest = n.Content[i], strings.TrimPrefix(after, ".")
				}
			}
		}
		if next == nil {
			break
		}
		n, path, line = next, rest, next.Line
	}
	return line
}

// mappingValue returns the value node of key in mapping n, or nil.
func mappingValue(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

func join(parent, key string) string {
	switch {
	case parent == "":
		return key
	case key == "":
		return parent
	}
	return parent + "." + key
}

// suggest names a known field spelled almost like name.
func suggest(name string, known map[string]bool) string {
	best, bestD := "", 3
	for k := range known {
		if d := editDistance(name, k); d < bestD {
			best, bestD = k, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %s?)", best)
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

var reflectCase = reflect.TypeOf(config.Case{})

// decodeDocument parses a profile's YAML into its document node, holding it
// to what the field-by-field decoding relies on: one document (a second
// one after "---" would be ignored), each key once in a mapping (a later
// one would silently win), and no aliases (a matrix axis or a field given
// as *name would be decoded as something else than written).
func decodeDocument(b []byte) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var root yaml.Node
	if err := dec.Decode(&root); err != nil {
		if errors.Is(err, io.EOF) {
			return &root, nil
		}
		return nil, errors.New(strings.TrimPrefix(err.Error(), "yaml: "))
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case err == nil:
		return nil, fmt.Errorf("line %d: a second YAML document (after ---): a profile is one document", max(next.Line, 1))
	case !errors.Is(err, io.EOF):
		return nil, fmt.Errorf("after the first YAML document: %s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if err := checkNodes(&root); err != nil {
		return nil, err
	}
	return &root, nil
}

// checkNodes refuses repeated mapping keys and aliases anywhere under n.
func checkNodes(n *yaml.Node) error {
	switch n.Kind {
	case yaml.AliasNode:
		return fmt.Errorf("line %d: *%s: YAML aliases are not supported in a profile; write the value out", n.Line, n.Value)
	case yaml.MappingNode:
		seen := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind == yaml.ScalarNode {
				if k.Value == "<<" && k.Tag == "!!merge" {
					return fmt.Errorf("line %d: <<: YAML merge keys are not supported in a profile; write the fields out", k.Line)
				}
				if at, dup := seen[k.Value]; dup {
					return fmt.Errorf("line %d: key %q repeats line %d: a key may appear once in a mapping", k.Line, k.Value, at)
				}
				seen[k.Value] = k.Line
			}
		}
	}
	for _, c := range n.Content {
		if err := checkNodes(c); err != nil {
			return err
		}
	}
	return nil
}
