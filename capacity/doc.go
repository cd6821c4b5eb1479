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
// Adding a scenario (warm restart, standby failover, scale-out): write a
// scenarioRow (rto.go) that computes its line of the recovery-time table from
// the Analysis (its restores are among a.Setups with their Params.Scenario)
// and put it in scenarioRows in place of the notMeasured row; questions the
// planner should answer about it (e.g. a standby's sustained write rate) go in
// an answerer in answers.go. Nothing else changes: report and plan show the
// new row and answers.
package capacity
