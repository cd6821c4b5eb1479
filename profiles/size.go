package profiles

import (
	"fmt"
	"math"
	"strconv"
	"strings"
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
