// Package statedir owns the state directories restorebench creates: it
// marks them as its own, locks them while a process uses them, wipes only
// what it marked, and finds those a killed process left behind. Nothing it
// did not create is ever deleted.
package statedir
