// Package listing writes a list of words into a sentence, the one way
// restorebench's messages and reports do: "a", "a and b", "a, b and c"
// (or "a, b or c").
package listing

import "strings"

// And joins items (strings, or names of a string type: store kinds,
// scenarios) with commas and a final "and": "" for none, the item for
// one, "a, b and c" for more.
func And[T ~string](items []T) string { return join(items, " and ") }

// Or joins items as And does, with a final "or": "a, b or c".
func Or[T ~string](items []T) string { return join(items, " or ") }

// join joins items with commas and last before the last one.
func join[T ~string](items []T, last string) string {
	s := make([]string, len(items))
	for i, x := range items {
		s[i] = string(x)
	}
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + last + s[len(s)-1]
}
