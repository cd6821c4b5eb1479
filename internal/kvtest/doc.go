// Package kvtest holds test helpers shared by the packages that turn
// changelog records into state: random operation streams with tombstones and
// empty values, their replayed final state, and an ordered comparison.
package kvtest
