package profiles

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/restorebench/restorebench/config"
)

// caseFields are the YAML names a matrix or exclude may vary: every case
// setting but the name.
var caseFields = func() map[string]bool {
	m := yamlKeys(reflectCase)
	delete(m, "name")
	return m
}()

// nameParts abbreviate matrix values in generated case names; a key not
// listed contributes key-value.
var nameParts = map[string]string{
	"engine":                             "",
	"scenario":                           "",
	"strategy":                           "",
	"store":                              "",
	"compaction_style":                   "",
	"rocksdb":                            "",
	"batch_records":                      "b",
	"threads":                            "t",
	"fetch_max_bytes":                    "fetch",
	"max_partition_fetch_bytes":          "pfetch",
	"sort_buffer":                        "sort",
	"write_buffer_size":                  "wb",
	"max_write_buffer_number":            "mwb",
	"compression":                        "c-",
	"level0_file_num_compaction_trigger": "l0c",
	"level0_slowdown_writes_trigger":     "l0s",
	"level0_stop_writes_trigger":         "l0stop",
	"max_background_jobs":                "bg",
	"disable_wal":                        "nowal-",
	"block_cache_size":                   "cache",
	"block_size":                         "block",
	"bloom_bits_per_key":                 "bloom",
	"kafka_streams_version":              "ks",
}

type axis struct {
	key    *yaml.Node
	values []*yaml.Node
}

// expandMatrix builds one case per combination of the matrix's values, in
// the order written (the last key varies fastest), minus excluded ones. Each
// combination is decoded from the values' own nodes, so an error names the
// line of the value at fault.
func expandMatrix(base config.Case, m *yaml.Node, exclude []map[string]string) ([]config.Case, error) {
	if m.Kind != yaml.MappingNode {
		return nil, &config.FieldError{Path: "matrix", Line: m.Line, Msg: "want a mapping of field: [values]"}
	}
	var axes []axis
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if !caseFields[k.Value] {
			return nil, &config.FieldError{Path: "matrix." + k.Value, Line: k.Line, Msg: "unknown field" + suggest(k.Value, caseFields)}
		}
		if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
			return nil, &config.FieldError{Path: "matrix." + k.Value, Line: v.Line, Msg: "want a non-empty list of values"}
		}
		axes = append(axes, axis{key: k, values: v.Content})
	}
	if len(axes) == 0 {
		return nil, &config.FieldError{Path: "matrix", Line: m.Line, Msg: "empty"}
	}
	// Count the combinations before making any: a matrix of a few long
	// lists multiplies into more cases than any run can make.
	combos := 1
	for _, ax := range axes {
		combos *= len(ax.values)
		if combos > MaxCases {
			return nil, &config.FieldError{Path: "matrix", Line: m.Line, Msg: fmt.Sprintf("more than %d combinations (cases one run may make)", MaxCases)}
		}
	}
	for i, ex := range exclude {
		for k := range ex {
			if !caseFields[k] {
				return nil, &config.FieldError{Path: fmt.Sprintf("exclude[%d].%s", i, k), Msg: "unknown field" + suggest(k, caseFields)}
			}
		}
	}
	var out []config.Case
	idx := make([]int, len(axes))
	for {
		combo := map[string]string{}
		node := &yaml.Node{Kind: yaml.MappingNode, Line: m.Line}
		var name []string
		for a, ax := range axes {
			v := ax.values[idx[a]]
			combo[ax.key.Value] = v.Value
			node.Content = append(node.Content, ax.key, v)
			name = append(name, namePart(ax.key.Value, v.Value))
		}
		if !excluded(combo, exclude) {
			c := base.Clone()
			c.Name = strings.Join(name, "-")
			path := "matrix[" + c.Name + "]"
			if err := decodeCase(node, &c, path); err != nil {
				return nil, err
			}
			c.Name = strings.Join(name, "-")
			if err := c.Finalize(); err != nil {
				return nil, located(err, node, path)
			}
			out = append(out, c)
		}
		// Advance the odometer, last axis fastest.
		a := len(axes) - 1
		for ; a >= 0; a-- {
			idx[a]++
			if idx[a] < len(axes[a].values) {
				break
			}
			idx[a] = 0
		}
		if a < 0 {
			break
		}
	}
	if len(out) == 0 {
		return nil, &config.FieldError{Path: "exclude", Msg: "every matrix combination is excluded"}
	}
	return out, nil
}

func namePart(key, value string) string {
	prefix, ok := nameParts[key]
	if !ok {
		prefix = key + "-"
	}
	v := strings.NewReplacer(" ", "", "/", "_").Replace(value)
	return prefix + v
}

func excluded(combo map[string]string, exclude []map[string]string) bool {
	for _, ex := range exclude {
		match := true
		for k, v := range ex {
			if combo[k] != v {
				match = false
				break
			}
		}
		if match && len(ex) > 0 {
			return true
		}
	}
	return false
}
