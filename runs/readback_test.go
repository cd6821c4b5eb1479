package runs

import (
	"testing"

	"github.com/restorebench/restorebench/config"
)

// TestReadBackLeavesWindowStoresOut: cold restores that read fewer
// records than the fill wrote say the log was compacted, but a window
// store's, which skips the records its retention expired by design, do
// not.
func TestReadBackLeavesWindowStoresOut(t *testing.T) {
	f := &Fill{Topic: "t", Records: 1000, Bytes: 100_000}
	cold := func(kind config.StoreKind, records int64) Restore {
		r := Restore{Topic: "t", Records: records, Verified: true, Step: &Step{Case: "c", Kind: StepRestore}}
		r.Params.StoreKind = kind
		return r
	}
	res := &Results{Restores: []Restore{cold(config.StoreWindow, 500)}}
	if rb := res.ReadBackOf(f); rb.Compacted(f) || rb.Restores != 0 {
		t.Errorf("a window store's restore of half the records: %+v, compacted %v", rb, rb.Compacted(f))
	}
	res.Restores = append(res.Restores, cold(config.StoreKeyValue, 800))
	if rb := res.ReadBackOf(f); !rb.Compacted(f) || rb.Records != 800 {
		t.Errorf("a key-value restore of 800 of 1000 records: %+v, compacted %v", rb, rb.Compacted(f))
	}
}
