// Package jsonnum holds the number type restorebench's JSON documents
// write their figures with: encoding/json refuses NaN and ±Inf, which a
// figure derived from too few measurements can be, so they are written as
// null (unknown) instead of failing the whole document.
package jsonnum

import (
	"encoding/json"
	"math"
)

// Number is a float64 that encodes as a JSON number, or as null when it is
// NaN or ±Inf.
type Number float64

// MarshalJSON writes n, null when it is not finite.
func (n Number) MarshalJSON() ([]byte, error) {
	f := float64(n)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(f)
}

// Ptr is n as an optional number: nil (null) when it is not finite.
func Ptr(f float64) *Number {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	n := Number(f)
	return &n
}
