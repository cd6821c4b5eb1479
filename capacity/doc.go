// Package capacity is the planner: it turns measured restores into capacity
// answers. From results files alone (several runs, possibly from other
// machines) it derives each configuration's restore rate per stream thread,
// least-squares fits of restore time against changelog and live-state size,
// the largest state per task and per instance that meets a recovery-time
// objective, the partitions and instances a deployment needs, the
// calibration between the model engine and real Kafka Streams, and
// recommendations tied to their evidence. It never runs anything.
//
// Every figure keeps the restores it rests on (see Obs.Ref and Refs), so a
// report can cite "R2 kstreams-default #3". Package report renders an
// Analysis as report.md and report.html; `restorebench plan` prints the
// same Answers, so the two never disagree.
//
// Beside cold restores the table and the answers read the other
// scenarios' records: warm restarts (warm.go: a line of restart time
// against the bytes of changes replayed), standby steps and failover kills
// (standby.go: the highest sustained write rate, catch-up after pauses, the
// processing gap of a promoted standby), scale-outs (scaleout.go: measured
// warmup-assignment time, and package warmup's prediction for larger
// tasks, labelled a prediction) and compaction cases (compaction.go: the
// restore amplification of each cleaner setting, which turns a live state
// into the changelog a restore reads, or the worst case the settings allow
// when none was measured on Kafka). A scenario's questions are an answerer
// that the file reading its records registers from its init
// (registerAnswerer, placed by its order), and its answers' ids are
// declared beside it (declareAnswerID, answer_ids.go: each id's unit,
// objective and meaning, from which docs/json.md's answer-id table is
// generated); what its records say (its
// evidence: WarmRate, StandbyEvidence, …) is registered from the same file
// (RegisterEvidence, evidence.go) and read through its accessor
// (Analysis.Warm, Analysis.Failover, …), not a field of Analysis. Its
// other contributions are registered from its file likewise: its RTO row
// (registerRTORow, rto.go), its advice (registerRecommendation,
// recommend.go) and what its inputs cannot tell (registerUnknown,
// analysis.go), each placed by its order; a scenario that has none of one
// says so and why (declareLacks, contributions.go), and a test fails when
// a scenario config registers has neither. So a new scenario is its
// records' file here. Report and plan show the same rows and answers, so
// they never disagree.
//
// The user's own changelog has answers of its own, registered likewise:
// its restores at full size (measured.go, plan --measure), a sample of its
// partitions each restored alone and the others priced between them
// (sample.go, sample_answers.go, plan --measure --sample), composed into an
// instance's time through a measured composition of tasks on one host
// (compose.go, the compose profile). Settings screened on the model and
// restored again on Kafka Streams are compared engine by engine in
// confirm.go (the confirm setting).
package capacity
