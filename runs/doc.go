// Package runs owns results.json, the contract between the commands: its
// versioned schema, atomic Load and Save, and the per-case grouping and
// summaries every reader (summary, compare, plots, reports) shares.
package runs
