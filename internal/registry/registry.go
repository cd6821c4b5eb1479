// Package registry holds the ordered registries the views are built from:
// entries registered from the init of the file that defines each, placed
// by an order number of their own, whatever order the inits run in.
package registry

import (
	"fmt"
	"slices"
)

// Ordered is a registry of entries of type T kept by their Order, lower
// first. No two entries share an order, nor a key at one position of Keys
// (a chart's name or its file). Add panics on a clash, so two files cannot
// claim one entry or one place; registration is done in init, so the panic
// comes when the program starts.
//
// A copy of an Ordered is a snapshot: Add never writes into the array a
// copy shares (tests save and restore a registry so).
type Ordered[T any] struct {
	// What names an entry in panics, with its package ("plots: chart").
	What string
	// Order returns an entry's place.
	Order func(T) int
	// Name names an entry in panics.
	Name func(T) string
	// Keys returns an entry's keys, each in a namespace of its own by
	// position: no two entries share their i-th key. Nil: entries are kept
	// apart by their order alone.
	Keys func(T) []string

	entries []T
}

// Add places e by its order and returns its index. It panics when e shares
// its order or a key with an entry already registered.
func (r *Ordered[T]) Add(e T) int {
	order, keys := r.Order(e), r.keysOf(e)
	for _, o := range r.entries {
		ok := r.keysOf(o)
		if r.Order(o) == order {
			panic(fmt.Sprintf("%s %s (order %d) registered beside %s of the same order",
				r.What, r.Name(e), order, r.Name(o)))
		}
		for i := range min(len(keys), len(ok)) {
			if keys[i] == ok[i] {
				panic(fmt.Sprintf("%s %s (order %d) registered beside %s (order %d): both are %q",
					r.What, r.Name(e), order, r.Name(o), r.Order(o), keys[i]))
			}
		}
	}
	i, _ := slices.BinarySearchFunc(r.entries, order, func(o T, order int) int { return r.Order(o) - order })
	r.entries = slices.Insert(slices.Clip(r.entries), i, e)
	return i
}

// All returns the entries in order. The slice is the registry's: read it,
// do not change it.
func (r *Ordered[T]) All() []T { return r.entries }

// Len is the number of entries.
func (r *Ordered[T]) Len() int { return len(r.entries) }

func (r *Ordered[T]) keysOf(e T) []string {
	if r.Keys == nil {
		return nil
	}
	return r.Keys(e)
}
