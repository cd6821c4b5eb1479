package engine

import (
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/restorebench/restorebench/cluster"
)

// TaskID is Kafka Streams' task id: a sub-topology and a partition. The
// model runs one sub-topology, 0, so a task is its changelog partition.
type TaskID struct {
	Subtopology int
	Partition   int32
}

// String is Kafka Streams' form, "0_3", also the task directory's name.
func (t TaskID) String() string {
	return strconv.Itoa(t.Subtopology) + "_" + strconv.Itoa(int(t.Partition))
}

// Task is one task's restore: its store is brought from the changelog
// partition's From offset (the log start for a cold restore, the
// checkpointed offset for a warm one) up to To, the end offset captured when
// the restore began.
type Task struct {
	ID        TaskID
	Changelog string
	From, To  int64
	// Warm is true when the task's store was found on disk with a
	// committed offset and the restore continues from it.
	Warm bool
	// Fallback says why a warm restore of the task started from the log
	// start instead ("" when it did not).
	Fallback string
	// Restored counts the records the restore applied to the task's store
	// (control records and records past To excluded); set by the restore.
	Restored int64
	// Probed is true when the task's start was sought by retention
	// (seekByRetention), which in Kafka Streams leaves its restore
	// consumer a fetch at the partition's end outstanding
	// (awaitProbeFetch).
	Probed bool
}

// OffsetKey is how the store records its changelog offset: Kafka Streams'
// "topic-partition".
func (t Task) OffsetKey() string { return t.Changelog + "-" + strconv.Itoa(int(t.ID.Partition)) }

// Records is the offsets the restore reads (control records included).
func (t Task) Records() int64 { return max(t.To-t.From, 0) }

// ColdTasks are the tasks of a cold restore: every partition of the
// changelog, from its log start to its end offset.
func ColdTasks(o cluster.TopicOffsets) []Task {
	var tasks []Task
	for _, p := range o.Partitions() {
		tasks = append(tasks, Task{ID: TaskID{Partition: p}, Changelog: o.Topic, From: o.Start[p], To: o.End[p]})
	}
	return tasks
}

// taskDir is the task directory under the application's state directory,
// as Kafka Streams names it: <state.dir>/<application.id>/<task>.
func taskDir(appDir string, id TaskID) string { return filepath.Join(appDir, id.String()) }

// storePath is where a task's RocksDB store lives:
// <task dir>/rocksdb/<store>.
func storePath(appDir string, id TaskID, store string) string {
	return filepath.Join(taskDir(appDir, id), "rocksdb", store)
}

func describeTasks(tasks []Task) string {
	ids := make([]string, len(tasks))
	for i, t := range tasks {
		ids[i] = t.ID.String()
	}
	return fmt.Sprint(ids)
}
