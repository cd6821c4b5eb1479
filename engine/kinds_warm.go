package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/restorebench/restorebench/config"
)

// errNoKeptStore is a task whose store is not on disk.
var errNoKeptStore = errors.New("no store on disk")

// keptStore is a store a warm restart reopened: written into as it is and
// asked for the changelog offset it committed.
type keptStore interface {
	Store
	Checkpointer
}

// openKeptStore reopens task id's store as the case's store kind keeps it
// under appDir (layoutOps.reopen of its layout). errNoKeptStore when
// nothing is there; an error when the layout's warm restart is not
// modelled.
func openKeptStore(c config.Case, appDir string, id TaskID, store string) (keptStore, error) {
	ops, err := layoutOf(c.StoreKind)
	if err != nil {
		return nil, err
	}
	if ops.reopen == nil {
		return nil, fmt.Errorf("a warm restart of a %s store is not modelled", c.StoreKind)
	}
	return ops.reopen(c, appDir, id, store)
}

// reopenKeyValue reopens a key-value or timestamped store's one RocksDB
// (<task dir>/rocksdb/<store>).
func reopenKeyValue(c config.Case, appDir string, id TaskID, store string) (keptStore, error) {
	path := storePath(appDir, id, store)
	if _, err := os.Stat(path); err != nil {
		return nil, errNoKeptStore
	}
	return OpenRocks(path, c.RocksDB)
}

// reopenSegmented is the reopen of a segmented layout over schema (a
// window or session store's): its segments (<task dir>/<store>/<store>.
// <segment start>), its stream time unknown until its first record, as
// Kafka Streams reopens them.
func reopenSegmented(schema keySchema) func(c config.Case, appDir string, id TaskID, store string) (keptStore, error) {
	return func(c config.Case, appDir string, id TaskID, store string) (keptStore, error) {
		dir := filepath.Join(taskDir(appDir, id), store)
		if _, err := os.Stat(dir); err != nil {
			return nil, errNoKeptStore
		}
		w, err := rocksSegmentedStore(c, schema, dir, store)
		if err != nil {
			return nil, err
		}
		return w, w.reopenSegments(dir, store)
	}
}

// keptLoader restores into a kept store through its kind's conversion: a
// timestamped store's values behind their timestamps; the others as they
// are (a window or session store segments and expires by itself).
func keptLoader(c config.Case, st Store) Loader {
	if c.StoreKind.TimestampedValue() {
		return &timestampedLoader{Loader: storeLoader{st}}
	}
	return storeLoader{st}
}

// seekFallbacksByRetention moves the start of each task of a warm restart
// that restores from the log start (no store kept, or its offset out of
// range) past the records its window or session store's retention has
// expired, as a cold restore does (seekByRetention): Kafka Streams 4.4
// treats such a task as one without an offset, and seeks it so too (seen
// on the real client: a fallback restart read the records within the
// retention only).
func (in *Instance) seekFallbacksByRetention(ctx context.Context, tasks []Task) error {
	var idx []int
	var cold []Task
	for i, t := range tasks {
		if !t.Warm {
			idx, cold = append(idx, i), append(cold, t)
		}
	}
	if err := in.seekByRetention(ctx, cold); err != nil {
		return err
	}
	for j, i := range idx {
		tasks[i] = cold[j]
	}
	return nil
}
