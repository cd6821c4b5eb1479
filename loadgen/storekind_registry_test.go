package loadgen

import (
	"slices"
	"strings"
	"testing"
)

// TestFillKindRegistry: every kind registers once, in its order, and a
// second registration of a name or an order panics naming both.
func TestFillKindRegistry(t *testing.T) {
	want := []StoreKind{KindKeyValue, KindTimestampedKeyValue, KindWindow, KindSession, KindVersionedKeyValue}
	known := func() []StoreKind { // StoreKinds' built-in kinds, in its order
		return slices.DeleteFunc(slices.Clone(StoreKinds), func(k StoreKind) bool { return !slices.Contains(want, k) })
	}
	if !slices.Equal(known(), want) {
		t.Fatalf("StoreKinds = %v, want %v in that order", StoreKinds, want)
	}
	before := slices.Clone(StoreKinds)
	for _, d := range []FillKindDef{{Kind: KindWindow, Order: 999}, {Kind: "clash", Order: 30}} {
		func() {
			defer func() {
				msg, _ := recover().(string)
				if !strings.Contains(msg, "registered beside") {
					t.Errorf("registering %s (order %d) again: panic %q, want one naming the clash", d.Kind, d.Order, msg)
				}
			}()
			registerFillKind(d)
		}()
	}
	if !slices.Equal(StoreKinds, before) {
		t.Fatalf("a refused registration changed StoreKinds: %v", StoreKinds)
	}
}
