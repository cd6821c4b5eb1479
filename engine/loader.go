package engine

import (
	"context"
	"fmt"

	"github.com/restorebench/restorebench/config"
)

// Loader turns one task's changelog records, in offset order, into a store.
type Loader interface {
	// Write takes one poll's records for the task. The slices are only
	// valid during the call.
	Write(entries []Entry) error
	// Finish completes the load after the last record (bulk: the manual
	// compaction; ingest: the sort, the SST files and their ingestion) and
	// returns the store, open for reads.
	Finish(ctx context.Context) (Store, error)
	// Abort releases everything after a failure.
	Abort()
}

// LoadMode says what a restore does with the records it consumes: fill the
// case's stores, or one of the measurements of the machine's limits.
type LoadMode int

const (
	// LoadStores writes into the case's stores with its strategy.
	LoadStores LoadMode = iota
	// LoadDiscard drops every record: fetch-only, the broker side alone.
	LoadDiscard
	// LoadDump appends every record to a file per partition, for write-only
	// replays from local disk.
	LoadDump
)

// loaderSpec is what a loader needs to know, besides its task.
type loaderSpec struct {
	Case    config.Case
	AppDir  string // <state.dir>/<application.id>
	Store   string // the store's name
	Mode    LoadMode
	DumpDir string // LoadDump's directory
	// Tasks is how many tasks share the ingest sort budget.
	Tasks int
	// Existing are stores already open (a warm restore's), by partition:
	// their tasks restore into them with the put strategy, through their
	// kind's conversion (keptLoader).
	Existing map[int32]Store
}

// newLoader opens the loader for task id.
func newLoader(s loaderSpec, id TaskID) (Loader, error) {
	switch s.Mode {
	case LoadDiscard:
		return discardLoader{}, nil
	case LoadDump:
		return newDumpLoader(dumpFile(s.DumpDir, id.Partition))
	}
	if st, ok := s.Existing[id.Partition]; ok {
		return keptLoader(s.Case, st), nil
	}
	return newKindLoader(s, id)
}

// The key-value layout: one RocksDB (or in-memory) store per task, by
// strategy, reopened as its one RocksDB.
func init() {
	registerLayout(config.LayoutKeyValue, layoutOps{loader: newStrategyLoader, reopen: reopenKeyValue})
}

// newStrategyLoader opens a key-value store's loader by the case's
// strategy.
func newStrategyLoader(s loaderSpec, id TaskID) (Loader, error) {
	path := storePath(s.AppDir, id, s.Store)
	switch s.Case.Strategy {
	case config.StrategyMemory:
		return storeLoader{NewMemoryStore()}, nil
	case config.StrategyPut:
		st, err := OpenRocks(path, s.Case.RocksDB)
		if err != nil {
			return nil, err
		}
		return storeLoader{st}, nil
	case config.StrategyBulk:
		return newBulkLoader(path, s.Case.RocksDB)
	case config.StrategyIngest:
		return newIngestLoader(path, taskDir(s.AppDir, id), s.Case.RocksDB, s.sortBufferPerTask())
	}
	return nil, fmt.Errorf("strategy %q is not one of put, bulk, ingest, memory", s.Case.Strategy)
}

// sortBufferPerTask shares the ingest sort budget among the tasks (at least
// 1 MiB each).
func (s loaderSpec) sortBufferPerTask() int64 {
	return max(int64(s.Case.SortBuffer)/int64(max(s.Tasks, 1)), 1<<20)
}

// storeLoader writes straight into a store: nothing is left to do at Finish.
type storeLoader struct{ s Store }

func (l storeLoader) Write(entries []Entry) error           { return l.s.Write(entries) }
func (l storeLoader) Finish(context.Context) (Store, error) { return l.s, nil }
func (l storeLoader) Abort()                                { l.s.Close() }

// readable is the store a loader writes in place, readable while it
// loads; false for loads that build their store at Finish.
func readable(l Loader) (Store, bool) {
	switch l := l.(type) {
	case storeLoader:
		return l.s, true
	case *timestampedLoader:
		return readable(l.Loader)
	}
	return nil, false
}
