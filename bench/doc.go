// Package bench runs a plan: it connects to a broker (embedded or real),
// makes sure the changelog holds the fill the plan asks for, runs each case ×
// repeat with its scenario, and saves results.json after every one. The CLI
// is thin wiring around it.
package bench
