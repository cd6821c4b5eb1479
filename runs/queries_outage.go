package runs

import "github.com/restorebench/restorebench/measure"

// ReadOutage is what the lookups of one killed instance's keys (those of
// the store partitions it held active) met from the kill on, as their
// users felt the failover. Seconds are from the kill but KillSeconds.
type ReadOutage struct {
	// KillSeconds is when the kill came, in seconds from when the
	// lookups began (QueryFigures' times are from then).
	KillSeconds float64 `json:"kill_seconds"`
	// Partitions are the killed instance's active store partitions.
	Partitions []int32 `json:"partitions"`
	// Lookups of those keys were sent; Answered got a value (or none)
	// from some copy; Refused were refused or got no answer at all, of
	// which Failed got none (an unreachable instance, a timeout);
	// FromStandby answers came from a standby copy (stale reads).
	Lookups     int64 `json:"lookups"`
	Answered    int64 `json:"answered"`
	Refused     int64 `json:"refused"`
	Failed      int64 `json:"failed,omitempty"`
	FromStandby int64 `json:"from_standby,omitempty"`
	// LongestUnansweredSeconds is the longest span without an answer to a
	// lookup of those keys, from the kill (or an answer) to the next
	// answer, or to the load's end when none came: how long they could
	// not be read.
	LongestUnansweredSeconds float64 `json:"longest_unanswered_seconds"`
	// FirstAnsweredSeconds is when the first lookup of those keys sent
	// after the kill was answered; ServedAgainSeconds when the first answer
	// after the last refusal came, from which on every one was. Nil when
	// none was answered.
	FirstAnsweredSeconds *float64 `json:"first_answered_seconds,omitempty"`
	ServedAgainSeconds   *float64 `json:"served_again_seconds,omitempty"`
	// TakenOverSeconds is when the survivor held every task active and
	// was RUNNING again (the failover's takeover, by its events).
	TakenOverSeconds float64 `json:"taken_over_seconds"`
}

// RefusedShare is the share of the lookups refused or unanswered (0 when
// none was sent).
func (o *ReadOutage) RefusedShare() float64 {
	if o == nil || o.Lookups == 0 {
		return 0
	}
	return float64(o.Refused) / float64(o.Lookups)
}

// StandbyLag is how stale standby reads were while the active wrote the
// changelog (in a failover, before the kill: after it the changelog's end
// stands still until the takeover): for each answer from a standby copy,
// the changelog records between the offset its last batch reached and
// the partition's end offset (sampled every 100 ms, the latest sample at
// the answer's time), so a standby at the end is 0 behind.
type StandbyLag struct {
	// Answers is the standby answers with a known offset.
	Answers int64 `json:"answers"`
	// MeanRecords, P99Records and MaxRecords are the lag's mean, 99th
	// percentile and maximum, in changelog records.
	MeanRecords float64 `json:"mean_records"`
	P99Records  int64   `json:"p99_records"`
	MaxRecords  int64   `json:"max_records"`
	// WriteRate is the write load's records a second over every
	// partition, so a lag of n records is about n × partitions /
	// WriteRate seconds.
	WriteRate float64 `json:"write_rate"`
}

// MoveReads is what a query load met around one move of tasks between
// instances, as a failover's kill records it in its QueryFigures: a
// rolling restart's restart (the instance stopped, its tasks served
// elsewhere or not at all, then its own again). Outage's seconds are from
// the stop; TakenOverSeconds is the restart's ready.
type MoveReads struct {
	// Outage is what the lookups of the moved keys (those of the store
	// partitions the instance held active at its stop) met from the stop
	// until the next move's stop, or the load's end.
	Outage *ReadOutage `json:"outage,omitempty"`
	// Lookups of any key were sent from the stop until ready; Answered,
	// Refused (of which Failed got no answer at all) as QueryFigures'.
	Lookups  int64 `json:"lookups"`
	Answered int64 `json:"answered"`
	Refused  int64 `json:"refused"`
	Failed   int64 `json:"failed,omitempty"`
	// Before, During and After are the answered lookups' latencies from
	// the previous ready (or the lookups' start) until the stop, from the
	// stop until ready, and from ready until the next stop or the end.
	Before measure.Latency `json:"before"`
	During measure.Latency `json:"during"`
	After  measure.Latency `json:"after"`
	// ByInstance counts the answers from the stop until ready by the
	// instance that gave them.
	ByInstance map[string]int64 `json:"by_instance,omitempty"`
}

// RefusedShare is the share of the lookups from the stop until ready
// that were refused or unanswered (0 when none was sent).
func (m *MoveReads) RefusedShare() float64 {
	if m == nil || m.Lookups == 0 {
		return 0
	}
	return float64(m.Refused) / float64(m.Lookups)
}
