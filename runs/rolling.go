package runs

import "github.com/restorebench/restorebench/config"

// StepRolling is the rolling-restart scenario's one step: a rolling
// restart.
const StepRolling StepKind = "rolling"

func init() {
	registerRecord(recordDef{
		scenario:  config.ScenarioRolling,
		kinds:     []StepKind{StepRolling},
		holds:     func(r *Restore) bool { return r.Rolling != nil },
		noExample: "rolling restarts answer no capacity question yet, and the report's tests show none",
		headline:  &Headline{Label: "downtime s", seconds: func(r *Restore) float64 { return r.Rolling.DowntimeSeconds }},
	})
}

// Restart is one instance's restart in a rolling restart; times are
// seconds from the first stop.
type Restart struct {
	Instance string `json:"instance"`
	// Stop is when it was asked to stop, Start when it was launched again,
	// Ready when it was RUNNING again with every task of the application
	// active and running somewhere.
	Stop  float64 `json:"stop"`
	Start float64 `json:"start"`
	Ready float64 `json:"ready"`
	// CloseSeconds is how long Kafka Streams' close took.
	CloseSeconds float64 `json:"close_seconds"`
	// DowntimeSeconds is the longest any task processed nothing between
	// Stop and Ready (its gaps summed); TaskDowntimeSeconds the sum over
	// the tasks; TasksDown how many had a gap.
	DowntimeSeconds     float64 `json:"downtime_seconds"`
	TaskDowntimeSeconds float64 `json:"task_downtime_seconds"`
	TasksDown           int     `json:"tasks_down"`
	// Rebalances counts group rebalances between Stop and Ready.
	Rebalances int `json:"rebalances"`
	// RestoredRecords were restored by actives between Stop and Ready.
	RestoredRecords int64 `json:"restored_records"`
	// Reads is what the case's query load met around this restart (the
	// restarted instance's keys' outage, latencies, answers by instance);
	// nil without one.
	Reads *MoveReads `json:"reads,omitempty"`
}

// RollingRecord is what a rolling restart adds to its record: Instances
// instances restarted one at a time under a write load.
//
// The record is measured by its headline, DowntimeSeconds
// (Restore.Headline): it carries no restore figures. Records is the
// records restored during the restarts, and Verified says every store
// matched at the end.
type RollingRecord struct {
	Protocol         string  `json:"protocol"`
	Instances        int     `json:"instances"`
	Persistent       bool    `json:"persistent"`
	StaticMembership bool    `json:"static_membership"`
	Standbys         int     `json:"standbys"`
	DownSeconds      float64 `json:"down_seconds"`
	// SessionTimeoutSeconds is the consumer's session.timeout.ms: a static
	// member back within it rejoins without a rebalance.
	SessionTimeoutSeconds float64    `json:"session_timeout_seconds"`
	SetupSeconds          float64    `json:"setup_seconds"`
	Load                  *WriteLoad `json:"load,omitempty"`
	Restarts              []Restart  `json:"restarts"`
	// DowntimeSeconds sums the restarts' DowntimeSeconds;
	// TaskDowntimeSeconds their TaskDowntimeSeconds; Rebalances theirs.
	DowntimeSeconds     float64         `json:"downtime_seconds"`
	TaskDowntimeSeconds float64         `json:"task_downtime_seconds"`
	Rebalances          int             `json:"rebalances"`
	GapThresholdSeconds float64         `json:"gap_threshold_seconds"`
	RebalanceTimes      []float64       `json:"rebalance_times"`
	Processes           []ScaleInstance `json:"processes"`
	TaskTimelines       []TaskTimeline  `json:"task_timelines"`
	Notes               []string        `json:"notes,omitempty"`
}
