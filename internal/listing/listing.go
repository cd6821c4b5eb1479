// Package listing writes a list of words into a sentence, the one way
// restorebench's messages and reports do: "a", "a and b", "a, b and c".
package listing

import "strings"

// And joins items (strings, or names of a string type: store kinds,
// scenarios) with commas and a final "and": "" for none, the item for
// one, "a, b and c" for more.
func And[T ~string](items []T) string {
	s := make([]string, len(items))
	for i, x := range items {
		s[i] = string(x)
	}
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}
