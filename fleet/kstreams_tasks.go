package fleet

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/restorebench/restorebench/ksdriver"
)

// What an instance's tasks events say: which tasks it holds, and the
// partition a task id names.

// TaskSet are an instance's tasks as its latest tasks event lists them.
type TaskSet struct {
	Active, Standby []string
	// atNs is the event's time (instance clock); 0 when there was none.
	atNs int64
}

// LatestTasks returns the tasks of the last tasks event in events, over
// all stream threads, sorted.
func LatestTasks(events []ksdriver.Event) TaskSet {
	t, ok := ksdriver.Last[*ksdriver.Tasks](events)
	if !ok {
		return TaskSet{}
	}
	var out TaskSet
	for _, th := range t.Threads {
		out.Active = append(out.Active, th.Active...)
		out.Standby = append(out.Standby, th.Standby...)
	}
	sort.Strings(out.Active)
	sort.Strings(out.Standby)
	out.atNs = t.MonoNs
	return out
}

// TaskPartition is the partition of a task id of the ledger's single
// sub-topology ("0_3" is partition 3).
func TaskPartition(task string) (int32, error) {
	_, p, ok := strings.Cut(task, "_")
	n, err := strconv.ParseInt(p, 10, 32)
	if !ok || err != nil || n < 0 {
		return 0, fmt.Errorf("task id %q is not SUBTOPOLOGY_PARTITION", task)
	}
	return int32(n), nil
}
