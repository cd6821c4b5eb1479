package config

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

var sizeUnits = []struct {
	suffix string
	mult   float64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
	{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
	{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"T", 1 << 40},
	{"B", 1},
}

// ParseSize parses a byte size: a plain number of bytes, or a number with a
// unit: KB, MB, GB, TB (powers of 1000) or KiB, MiB, GiB, TiB and K, M, G, T
// (powers of 1024). Fractions are allowed ("1.5GiB"); negatives are not.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, fmt.Errorf("size %q is empty", s)
	}
	mult := 1.0
	for _, u := range sizeUnits { // longest suffixes first, case-insensitive
		if len(t) > len(u.suffix) && strings.EqualFold(t[len(t)-len(u.suffix):], u.suffix) {
			mult = u.mult
			t = strings.TrimSpace(t[:len(t)-len(u.suffix)])
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("size %q is not a number with an optional unit (B, KB, MB, GB, KiB, MiB, GiB)", s)
	}
	if v < 0 {
		return 0, fmt.Errorf("size %q is negative", s)
	}
	b := v * mult
	if b > math.MaxInt64/2 {
		return 0, fmt.Errorf("size %q is too large", s)
	}
	if b != math.Trunc(b) {
		return 0, fmt.Errorf("size %q is not a whole number of bytes", s)
	}
	return int64(b), nil
}

// ParseValueSize parses a value size: "200" (fixed) or "100-1000" (uniform
// range), each part a size as ParseSize reads it.
func ParseValueSize(s string) (minSize, maxSize int, err error) {
	lo, hi, isRange := strings.Cut(s, "-")
	if strings.HasPrefix(strings.TrimSpace(s), "-") {
		return 0, 0, fmt.Errorf("value size %q is negative", s)
	}
	a, err := ParseSize(lo)
	if err != nil {
		return 0, 0, fmt.Errorf("value size: %w", err)
	}
	if !isRange {
		return int(a), int(a), nil
	}
	b, err := ParseSize(hi)
	if err != nil {
		return 0, 0, fmt.Errorf("value size: %w", err)
	}
	if b < a {
		return 0, 0, fmt.Errorf("value size %q: maximum is below minimum", s)
	}
	return int(a), int(b), nil
}

// Size is a byte count that profiles and flags write with units ("64MiB",
// "1.5GB") and results.json records as a plain number of bytes.
type Size int64

// String writes the size the shortest exact way: "64MiB", "1GB", "1000".
func (s Size) String() string {
	n := int64(s)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"TB", 1e12}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}} {
		if n != 0 && n%u.mult == 0 {
			return strconv.FormatInt(n/u.mult, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}

// Set parses a flag value (pflag.Value).
func (s *Size) Set(v string) error {
	n, err := ParseSize(v)
	if err != nil {
		return err
	}
	*s = Size(n)
	return nil
}

// Type names the flag's value kind in help (pflag.Value).
func (s *Size) Type() string { return "size" }

// UnmarshalYAML reads a number of bytes or a string with a unit. A bad value
// is a type error carrying its line, so the profile reader can name the field.
func (s *Size) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return typeError(n, "want a size such as 64MiB or 1048576")
	}
	v, err := ParseSize(n.Value)
	if err != nil {
		return typeError(n, err.Error())
	}
	*s = Size(v)
	return nil
}

// ValueRange is a value size: fixed ("200") or a uniform range ("100-1000").
type ValueRange struct{ Min, Max int }

// String writes the range as ParseValueSize reads it.
func (r ValueRange) String() string {
	if r.Min == r.Max {
		return strconv.Itoa(r.Min)
	}
	return strconv.Itoa(r.Min) + "-" + strconv.Itoa(r.Max)
}

// Set parses a flag value (pflag.Value).
func (r *ValueRange) Set(v string) error {
	lo, hi, err := ParseValueSize(v)
	if err != nil {
		return err
	}
	r.Min, r.Max = lo, hi
	return nil
}

// Type names the flag's value kind in help (pflag.Value).
func (r *ValueRange) Type() string { return "size[-size]" }

// UnmarshalYAML reads "200", 200 or "100-1000".
func (r *ValueRange) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return typeError(n, "want a value size such as 200 or 100-1000")
	}
	if err := r.Set(n.Value); err != nil {
		return typeError(n, err.Error())
	}
	return nil
}

// typeError is a yaml.TypeError for node n: yaml.v3 collects these with
// their lines instead of stopping at the first.
func typeError(n *yaml.Node, msg string) error {
	return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: %s", n.Line, msg)}}
}
