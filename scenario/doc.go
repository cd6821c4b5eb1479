// Package scenario drives instances of an engine through what a case
// measures (a cold restore today; warm restarts, standby catch-up, failover,
// scale-out and rolling restarts next) and records each run's phases and
// figures as a results.json restore record.
package scenario
