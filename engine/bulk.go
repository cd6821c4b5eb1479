package engine

import (
	"context"
	"math"

	"github.com/linxGnu/grocksdb"

	"github.com/restorebench/restorebench/config"
)

// bulkLoader is Kafka Streams' old bulk-load restore (KIP-167): the store
// opens with RocksDB's PrepareForBulkLoad settings (auto compactions off, L0
// triggers out of reach, no pending-compaction write limits), takes the
// records as WriteBatches, and at Finish runs one manual full compaction and
// reopens with the case's normal options, as RocksDBStore did on
// toggleDbForBulkLoading.
type bulkLoader struct {
	path string
	opts config.RocksDB
	s    *RocksStore
}

func newBulkLoader(path string, o config.RocksDB) (*bulkLoader, error) {
	s, err := openRocksWith(path, o, prepareForBulkLoad)
	if err != nil {
		return nil, err
	}
	return &bulkLoader{path: path, opts: o, s: s}, nil
}

// prepareForBulkLoad applies what RocksDB's Options::PrepareForBulkLoad sets
// (grocksdb v1.7.15 does not expose it).
func prepareForBulkLoad(o *grocksdb.Options) {
	o.SetDisableAutoCompactions(true)
	o.SetLevel0FileNumCompactionTrigger(1 << 30)
	o.SetLevel0SlowdownWritesTrigger(1 << 30)
	o.SetLevel0StopWritesTrigger(1 << 30)
	o.SetSoftPendingCompactionBytesLimit(0)
	o.SetHardPendingCompactionBytesLimit(0)
	o.SetMaxCompactionBytes(math.MaxInt64 / 2)
	o.SetTargetFileSizeBase(256 << 20)
	o.SetMinWriteBufferNumberToMerge(1)
	o.SetMaxWriteBufferNumber(max(4, 2))
}

func (l *bulkLoader) Write(entries []Entry) error { return l.s.Write(entries) }

// Finish flushes the memtables, compacts the whole key range, and reopens
// the store with its normal options.
func (l *bulkLoader) Finish(ctx context.Context) (Store, error) {
	if err := l.s.Flush(); err != nil {
		l.s.Close()
		return nil, err
	}
	l.s.db.CompactRange(grocksdb.Range{})
	carried := l.s.Stats()
	l.s.Close()
	l.s = nil
	s, err := OpenRocks(l.path, l.opts)
	if err != nil {
		return nil, err
	}
	s.carried = carried
	return s, nil
}

func (l *bulkLoader) Abort() {
	if l.s != nil {
		l.s.Close()
	}
}
