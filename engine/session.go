package engine

import (
	"path/filepath"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/loadgen"
)

// sessionSchema reads a session store's keys (record key, end, start:
// Kafka Streams' SessionKeySchema): segmented and expired by the session
// end (SessionKeySchema.segmentTimestamp), and digested under the whole
// changelog key, the store's own key for the session.
//
// Over it a WindowStore restores as Kafka Streams' RocksDBSessionStore
// does (its RocksDBSegmentedBytesStore is the window store's class): stream
// time per batch is the largest session end; a record goes to its end's
// segment when live, segments older than stream time − retention are
// dropped, and reads serve the sessions that end from stream time −
// retention + 1 on (AbstractRocksDBSegmentedBytesStore.fetch and all, with
// the session schema's end-time condition). Stores.inMemorySessionStore
// expires the same sessions (a put ending at or before stream time −
// retention is skipped; reads first remove the ends before stream time −
// retention + 1), so the model's in-memory segments serve what it does.
var sessionSchema = keySchema{
	time: func(k []byte) (int64, error) {
		_, _, end, err := loadgen.SplitSessionKey(k)
		return end, err
	},
	digestKey: func(k []byte) []byte { return k },
}

// The session layout: a window store's segments over the session schema,
// by session end, reopened segment by segment.
func init() {
	registerLayout(config.LayoutSession, layoutOps{reopen: reopenSegmented(sessionSchema),
		loader: func(s loaderSpec, id TaskID) (Loader, error) {
			w, err := newSessionStore(s, id)
			if err != nil {
				return nil, err
			}
			return storeLoader{w}, nil
		}})
}

// newSessionStore opens a task's empty session store: in memory for the
// memory strategy, otherwise RocksDB segments at <task dir>/<store>/
// <store>.<segment start> (Kafka Streams' layout). Its segment interval
// is the case's (Case.SegmentIntervalOf: Kafka Streams' max(retention / 2,
// 60 s) unless the model case sets one).
func newSessionStore(s loaderSpec, id TaskID) (*WindowStore, error) {
	if s.Case.Strategy == config.StrategyMemory {
		return memorySegmentedStore(s.Case, sessionSchema)
	}
	return rocksSegmentedStore(s.Case, sessionSchema, filepath.Join(taskDir(s.AppDir, id), s.Store), s.Store)
}
