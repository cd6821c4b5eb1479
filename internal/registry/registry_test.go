package registry

import (
	"slices"
	"strings"
	"testing"
)

type entry struct {
	order      int
	name, file string
}

func newRegistry() Ordered[entry] {
	return Ordered[entry]{
		What:  "test: entry",
		Order: func(e entry) int { return e.order },
		Name:  func(e entry) string { return e.name },
		Keys:  func(e entry) []string { return []string{e.name, e.file} },
	}
}

func names(r *Ordered[entry]) []string {
	var out []string
	for _, e := range r.All() {
		out = append(out, e.name)
	}
	return out
}

// TestOrderedKeepsOrder: entries come out by order, whatever order they
// were added in, and Add returns each one's index.
func TestOrderedKeepsOrder(t *testing.T) {
	r := newRegistry()
	for _, e := range []entry{{30, "c", "c"}, {10, "a", "a"}, {20, "b", "b"}} {
		if i := r.Add(e); r.All()[i] != e {
			t.Fatalf("Add(%v) = %d, holding %v", e, i, r.All()[i])
		}
	}
	if got := names(&r); !slices.Equal(got, []string{"a", "b", "c"}) || r.Len() != 3 {
		t.Fatalf("entries %v", got)
	}
}

// TestOrderedRefusesAClash: an entry sharing an order or a key at one
// position panics, naming both; keys at different positions do not clash.
func TestOrderedRefusesAClash(t *testing.T) {
	r := newRegistry()
	r.Add(entry{10, "a", "fa"})
	r.Add(entry{20, "fa", "a"}) // a name equal to another's file is no clash
	for _, tc := range []struct {
		e    entry
		want string
	}{
		{entry{10, "x", "fx"}, "test: entry x (order 10) registered beside a of the same order"},
		{entry{30, "a", "fy"}, `test: entry a (order 30) registered beside a (order 10): both are "a"`},
		{entry{40, "z", "fa"}, `test: entry z (order 40) registered beside a (order 10): both are "fa"`},
	} {
		func() {
			defer func() {
				if msg, _ := recover().(string); !strings.Contains(msg, tc.want) {
					t.Errorf("Add(%v) panicked with %q, want %q", tc.e, msg, tc.want)
				}
			}()
			r.Add(tc.e)
		}()
	}
	if got := names(&r); !slices.Equal(got, []string{"a", "fa"}) {
		t.Fatalf("after the clashes: %v", got)
	}
}

// TestOrderedCopyIsASnapshot: a copy taken before Add keeps its entries,
// even where the slice had room to grow in place.
func TestOrderedCopyIsASnapshot(t *testing.T) {
	r := newRegistry()
	r.entries = make([]entry, 0, 8)
	r.Add(entry{20, "b", "b"})
	r.Add(entry{30, "c", "c"})
	saved := r
	r.Add(entry{10, "a", "a"})
	if got := names(&saved); !slices.Equal(got, []string{"b", "c"}) {
		t.Fatalf("the copy changed: %v", got)
	}
	r = saved
	if r.Len() != 2 {
		t.Fatalf("restored %v", names(&r))
	}
}

// TestOrderedWithoutKeys: without Keys, only orders clash.
func TestOrderedWithoutKeys(t *testing.T) {
	r := newRegistry()
	r.Keys = nil
	r.Add(entry{1, "a", "a"})
	r.Add(entry{2, "a", "a"})
	if r.Len() != 2 {
		t.Fatal(names(&r))
	}
}
