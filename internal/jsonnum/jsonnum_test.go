package jsonnum

import (
	"encoding/json"
	"math"
	"testing"
)

// TestNumberNotFinite: NaN and ±Inf encode as null, in a struct and
// through a pointer, and finite numbers as themselves.
func TestNumberNotFinite(t *testing.T) {
	type doc struct {
		A, B, C, D Number
		E, F       *Number
	}
	out, err := json.Marshal(doc{A: Number(math.NaN()), B: Number(math.Inf(1)), C: Number(math.Inf(-1)), D: 1.5,
		E: Ptr(math.NaN()), F: Ptr(2)})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"A":null,"B":null,"C":null,"D":1.5,"E":null,"F":2}`; string(out) != want {
		t.Errorf("got %s, want %s", out, want)
	}
}
