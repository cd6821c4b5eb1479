package profiles

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"
)

// caseFields are the YAML names a matrix or exclude may vary: every
// CaseSpec field but the name.
var caseFields = func() map[string]bool {
	m := map[string]bool{}
	t := reflect.TypeOf(CaseSpec{})
	for i := 0; i < t.NumField(); i++ {
		if tag := t.Field(i).Tag.Get("yaml"); tag != "" && tag != "name" {
			m[tag] = true
		}
	}
	return m
}()

// nameParts abbreviate matrix values in generated case names; a key not
// listed contributes key-value.
var nameParts = map[string]string{
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
}

type axis struct {
	key    string
	values []*yaml.Node
}

// expandMatrix builds one case per combination of the matrix's values, in
// the order written (the last key varies fastest), minus excluded ones.
func expandMatrix(base Case, m *yaml.Node, exclude []map[string]string) ([]Case, error) {
	if m.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("matrix: line %d: want a mapping of field: [values]", m.Line)
	}
	var axes []axis
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if !caseFields[k.Value] {
			return nil, fmt.Errorf("matrix: line %d: unknown field %q", k.Line, k.Value)
		}
		if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
			return nil, fmt.Errorf("matrix.%s: line %d: want a non-empty list of values", k.Value, v.Line)
		}
		axes = append(axes, axis{key: k.Value, values: v.Content})
	}
	if len(axes) == 0 {
		return nil, errors.New("matrix: empty")
	}
	for i, ex := range exclude {
		for k := range ex {
			if !caseFields[k] {
				return nil, fmt.Errorf("exclude[%d]: unknown field %q", i, k)
			}
		}
	}
	var out []Case
	idx := make([]int, len(axes))
	for {
		combo := map[string]string{}
		node := &yaml.Node{Kind: yaml.MappingNode}
		var name []string
		for a, ax := range axes {
			v := ax.values[idx[a]]
			combo[ax.key] = v.Value
			node.Content = append(node.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: ax.key}, v)
			name = append(name, namePart(ax.key, v.Value))
		}
		if !excluded(combo, exclude) {
			var cs CaseSpec
			if err := node.Decode(&cs); err != nil {
				return nil, fmt.Errorf("matrix %v: %w", combo, err)
			}
			field := "matrix[" + strings.Join(name, ",") + "]"
			c, err := merge(base, cs, field)
			if err != nil {
				return nil, err
			}
			c.Name = strings.Join(name, "-")
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
		return nil, errors.New("exclude: every matrix combination is excluded")
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
