// Package listing writes a list of words into a sentence, the one way
// restorebench's messages and reports do: "a", "a and b", "a, b and c".
package listing

import "strings"

// And joins items with commas and a final "and": "" for none, the item
// for one, "a, b and c" for more.
func And(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
