package scenario

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/restorebench/restorebench/ksdriver"
)

// What an instance's tasks events say: which tasks it holds, and the
// partition a task id names.

// foTasks are an instance's tasks as its latest tasks event lists them.
type foTasks struct {
	active, standby []string
	// atNs is the event's time (instance clock); 0 when there was none.
	atNs int64
}

// latestTasks returns the tasks of the last tasks event in events, over
// all stream threads, sorted.
func latestTasks(events []ksdriver.Event) foTasks {
	for i := len(events) - 1; i >= 0; i-- {
		if t, ok := events[i].(*ksdriver.Tasks); ok {
			var out foTasks
			for _, th := range t.Threads {
				out.active = append(out.active, th.Active...)
				out.standby = append(out.standby, th.Standby...)
			}
			sort.Strings(out.active)
			sort.Strings(out.standby)
			out.atNs = t.MonoNs
			return out
		}
	}
	return foTasks{}
}

// taskPartition is the partition of a task id of the ledger's single
// sub-topology ("0_3" is partition 3).
func taskPartition(task string) (int32, error) {
	_, p, ok := strings.Cut(task, "_")
	n, err := strconv.ParseInt(p, 10, 32)
	if !ok || err != nil || n < 0 {
		return 0, fmt.Errorf("task id %q is not SUBTOPOLOGY_PARTITION", task)
	}
	return int32(n), nil
}
