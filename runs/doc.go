// Package runs owns results.json, the contract between the commands: its
// versioned schema, atomic Load and Save, and the per-case grouping and
// summaries every reader (summary, compare, plots, reports) shares.
//
// A scenario's record (WarmRecord, FailoverRecord, ...) is a field of
// Restore, defined in a file of its own (warm.go, failover.go, ...) with its
// step kinds and its checks against the record's step, registered from
// that file's init (registerRecord, records.go). StepKindsOf, IsCold,
// Restore.Scenario, the step checks and redaction walk the registrations;
// a test holds every Restore record field and every scenario config
// registers to one.
package runs
