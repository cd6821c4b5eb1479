// Package runs owns results.json, the contract between the commands: its
// versioned schema, atomic Load and Save, and the per-case grouping and
// summaries every reader (summary, compare, plots, reports) shares.
//
// A record (Restore) holds its identity and verdict itself, and its
// figures in sub-records by meaning (phase.go, schema 4), each absent when
// not measured: a restore's time and cost in its RestorePhase, what only
// the model measures in its ModelRun, what only Kafka Streams measures in
// its KafkaStreamsRun, and a scenario's own figures (a gap, a standby
// step's applying) in the scenario's record. Readers ask for the meaning
// they want (RestoreSeconds, TimeToReady, Gap, Measured), never a field
// whose meaning depends on the engine or scenario. Files of schemas 1 to
// 3 are upgraded as they load (schema1.go, schema2.go, schema3.go).
//
// A scenario's record (WarmRecord, FailoverRecord, ...) is a field of
// Restore, defined in a file of its own (warm.go, failover.go, ...) with its
// step kinds and its checks against the record's step, registered from
// that file's init (registerRecord, records.go). StepKindsOf, IsCold,
// Restore.Scenario, the step checks and redaction walk the registrations;
// a test holds every Restore record field and every scenario config
// registers to one. The registration also makes the scenario's example
// records (example.go: Examples, built with an ExampleKit), the synthetic
// records the report's and the planner's tests read, or says why it has
// none, and, for a simple scenario, declares the one figure its records
// are read by (DeclaredFigure, figure.go), from which package report and
// package plots derive the views it does not register of its own.
package runs
