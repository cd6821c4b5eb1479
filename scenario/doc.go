// Package scenario drives instances of an engine through what a case
// measures (cold restore, warm restart, standby catch-up, compaction,
// failover, scale-out and rolling restarts, each on the engines that run it;
// see For) and records each run's phases and figures as results.json
// restore records.
package scenario
