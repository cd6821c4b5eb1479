package ksdriver

import (
	"strconv"
	"strings"
)

// View is one instance's state as the events folded in tell it: the client
// state, the tasks of its last `tasks` event, and which store partitions
// are restoring or being updated as standbys now. Fold events in with Add,
// in the instance's order. metadataForLocalThreads() (the `tasks` events)
// is refreshed only when a stream thread becomes RUNNING, so Active and
// Standby lag behind a rebalance; Restoring and Updating, from the
// listeners, do not. The zero value is ready to use.
type View struct {
	// State is the KafkaStreams client state ("" before the first change).
	State string
	// Active and Standby are the task ids of the last tasks event, over
	// all stream threads.
	Active, Standby map[string]bool
	// Restoring are the store partitions between restore_start and
	// restore_end (or restore_suspended); Updating those between
	// standby_start and standby_suspended.
	Restoring, Updating map[StorePartition]bool
	// Stopped is true once the instance sent `stopped`.
	Stopped bool
	// LastNs is the monotonic time of the last event added.
	LastNs int64
}

// Add folds one event in and reports whether it changed the view.
func (v *View) Add(e Event) bool {
	if v.Restoring == nil {
		v.Restoring, v.Updating = map[StorePartition]bool{}, map[StorePartition]bool{}
	}
	v.LastNs = max(v.LastNs, e.Head().MonoNs)
	switch e := e.(type) {
	case *StateChange:
		v.State = e.To
	case *Tasks:
		v.Active, v.Standby = map[string]bool{}, map[string]bool{}
		for _, th := range e.Threads {
			for _, t := range th.Active {
				v.Active[t] = true
			}
			for _, t := range th.Standby {
				v.Standby[t] = true
			}
		}
	case *RestoreStart:
		v.Restoring[e.StorePartition] = true
	case *RestoreEnd:
		delete(v.Restoring, e.StorePartition)
	case *RestoreSuspended:
		delete(v.Restoring, e.StorePartition)
	case *StandbyStart:
		v.Updating[e.StorePartition] = true
	case *StandbySuspended:
		delete(v.Updating, e.StorePartition)
	case *Stopped:
		v.Stopped = true
	default:
		return false
	}
	return true
}

// TaskPartition returns the partition of a task id "<subtopology>_<partition>"
// (Kafka Streams' TaskId.toString), or false for another form.
func TaskPartition(task string) (int32, bool) {
	_, p, ok := strings.Cut(task, "_")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(p, 10, 32)
	return int32(n), err == nil
}

// TaskName is the task id of partition p of sub-topology 0, the only one
// of the driver's topologies: "0_<p>".
func TaskName(p int32) string { return "0_" + strconv.Itoa(int(p)) }
