// Package metrics serves what a run or an agent is doing as Prometheus
// metrics (`run --metrics-addr`, `agent --metrics-addr`), on a registry of
// its own.
//
// It adds no source of figures: a Run follows the run's progress
// reporter (internal/progress.Observer: the fill's and every restore's
// figures, the very ones the terminal's bars and lines show) and is told
// the case each job starts, as the "restore: case" line says; agents'
// figures are read at each scrape from the coordinator or the agent
// itself (AgentSource, SelfSource). Names follow Prometheus' conventions:
// the restorebench_ prefix, _total for counters, seconds and bytes.
//
// deploy/grafana/restorebench.json is a dashboard of these metrics.
package metrics
