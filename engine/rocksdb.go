package engine

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/linxGnu/grocksdb"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/measure"
)

// RocksStore is a persistent key-value store on RocksDB, one per task, as a
// Kafka Streams RocksDBStore.
type RocksStore struct {
	path  string
	opts  config.RocksDB
	db    *grocksdb.DB
	dbo   *grocksdb.Options
	bbto  *grocksdb.BlockBasedTableOptions
	cache *grocksdb.Cache
	wo    *grocksdb.WriteOptions
	wb    *grocksdb.WriteBatch
	// rep is Write's serialized batch, reused from poll to poll.
	rep []byte
	// cfs are the column families: [0] default (the store's entries), [1]
	// offsets (the changelog offsets the store has applied, as Kafka
	// Streams 4.3+ keeps them in the store itself, KIP-1035).
	cfs     []*grocksdb.ColumnFamilyHandle
	offsOpt *grocksdb.Options
	// carried are flush, compaction and ingestion bytes from before a
	// reopen (bulk loading reopens the store), so Stats covers the whole restore.
	carried measure.StoreStats
	// closing guards Get against Close: lookups from other goroutines
	// (interactive queries) may race a store's close on a failed restore.
	closing sync.RWMutex
}

// OpenRocks opens (creating if missing) a RocksDB store at path.
func OpenRocks(path string, o config.RocksDB) (*RocksStore, error) {
	return openRocksWith(path, o, nil)
}

// openRocksWith opens a store, letting tune adjust the options last.
func openRocksWith(path string, o config.RocksDB, tune func(*grocksdb.Options)) (*RocksStore, error) {
	if err := os.MkdirAll(path, 0o755); err != nil {
		return nil, fmt.Errorf("store %s: %w", path, err)
	}
	s := &RocksStore{path: path, opts: o}
	s.cache = grocksdb.NewLRUCache(uint64(o.BlockCacheSize))
	s.bbto = grocksdb.NewDefaultBlockBasedTableOptions()
	s.bbto.SetBlockCache(s.cache)
	s.bbto.SetBlockSize(int(o.BlockSize))
	if o.BloomBitsPerKey > 0 {
		s.bbto.SetFilterPolicy(grocksdb.NewBloomFilter(o.BloomBitsPerKey))
	}
	s.dbo = grocksdb.NewDefaultOptions()
	s.dbo.SetCreateIfMissing(true)
	s.dbo.SetErrorIfExists(false)
	s.dbo.SetInfoLogLevel(grocksdb.ErrorInfoLogLevel)
	// Statistics give exact flush and compaction bytes for write
	// amplification (Kafka Streams turns them on at metrics.recording.level=DEBUG).
	s.dbo.EnableStatistics()
	s.dbo.SetBlockBasedTableFactory(s.bbto)
	s.dbo.SetWriteBufferSize(uint64(o.WriteBufferSize))
	s.dbo.SetMaxWriteBufferNumber(o.MaxWriteBufferNumber)
	if o.Parallelism > 0 {
		s.dbo.IncreaseParallelism(o.Parallelism)
	}
	switch o.CompactionStyle {
	case "universal":
		s.dbo.SetCompactionStyle(grocksdb.UniversalCompactionStyle)
	case "level", "":
		s.dbo.SetCompactionStyle(grocksdb.LevelCompactionStyle)
	default:
		s.free()
		return nil, fmt.Errorf("compaction_style %q is not universal or level", o.CompactionStyle)
	}
	ct, err := compressionType(o.Compression)
	if err != nil {
		s.free()
		return nil, err
	}
	s.dbo.SetCompression(ct)
	if o.Level0FileNumCompactionTrigger > 0 {
		s.dbo.SetLevel0FileNumCompactionTrigger(o.Level0FileNumCompactionTrigger)
	}
	if o.Level0SlowdownWritesTrigger > 0 {
		s.dbo.SetLevel0SlowdownWritesTrigger(o.Level0SlowdownWritesTrigger)
	}
	if o.Level0StopWritesTrigger > 0 {
		s.dbo.SetLevel0StopWritesTrigger(o.Level0StopWritesTrigger)
	}
	if o.MaxBackgroundJobs > 0 {
		s.dbo.SetMaxBackgroundJobs(o.MaxBackgroundJobs)
	}
	if tune != nil {
		tune(s.dbo)
	}
	// The offsets column family is flushed atomically with the data (the
	// WAL is off), so after a crash the data and its offset agree.
	s.dbo.SetCreateIfMissingColumnFamilies(true)
	s.dbo.SetAtomicFlush(true)
	s.offsOpt = grocksdb.NewDefaultOptions()
	db, cfs, err := grocksdb.OpenDbColumnFamilies(s.dbo, path, []string{"default", offsetsCF}, []*grocksdb.Options{s.dbo, s.offsOpt})
	if err != nil {
		s.free()
		return nil, fmt.Errorf("open rocksdb %s: %w", path, err)
	}
	s.db, s.cfs = db, cfs
	s.wo = grocksdb.NewDefaultWriteOptions()
	s.wo.DisableWAL(o.DisableWAL)
	s.wb = grocksdb.NewWriteBatch()
	return s, nil
}

func compressionType(name string) (grocksdb.CompressionType, error) {
	switch name {
	case "none", "":
		return grocksdb.NoCompression, nil
	case "snappy":
		return grocksdb.SnappyCompression, nil
	case "lz4":
		return grocksdb.LZ4Compression, nil
	case "zstd":
		return grocksdb.ZSTDCompression, nil
	}
	return 0, fmt.Errorf("compression %q is not one of none, snappy, lz4, zstd", name)
}

// Write applies entries as one WriteBatch: a nil value deletes the key.
// The batch is serialized in Go memory (appendBatchRep) and handed to
// RocksDB whole, three cgo calls a poll rather than one a record.
func (s *RocksStore) Write(entries []Entry) error {
	s.rep = appendBatchRep(s.rep[:0], entries)
	wb := grocksdb.WriteBatchFrom(s.rep)
	err := s.db.Write(s.wo, wb)
	wb.Destroy()
	if err != nil {
		return fmt.Errorf("store %s: write batch: %w", s.path, err)
	}
	return nil
}

// Get returns a copy of key's value and whether the key is live.
func (s *RocksStore) Get(key []byte) ([]byte, bool, error) {
	s.closing.RLock()
	defer s.closing.RUnlock()
	if s.db == nil {
		return nil, false, errStoreClosed
	}
	ro := grocksdb.NewDefaultReadOptions()
	defer ro.Destroy()
	sl, err := s.db.Get(ro, key)
	if err != nil {
		return nil, false, err
	}
	defer sl.Free()
	if !sl.Exists() {
		return nil, false, nil
	}
	return append([]byte{}, sl.Data()...), true, nil
}

// Flush writes the memtables to SST files and waits for it.
func (s *RocksStore) Flush() error {
	fo := grocksdb.NewDefaultFlushOptions()
	fo.SetWait(true)
	defer fo.Destroy()
	if err := s.db.Flush(fo); err != nil {
		return fmt.Errorf("store %s: flush: %w", s.path, err)
	}
	return nil
}

// Settled reports whether the store has no flush or compaction running, no
// memtable waiting to flush, no compaction debt, and L0 below the slowdown
// trigger. (rocksdb.compaction-pending is not used: under universal
// compaction it can stay 1 with nothing to pick.)
func (s *RocksStore) Settled() bool {
	slowdown := int64(s.opts.Level0SlowdownWritesTrigger)
	if slowdown <= 0 {
		slowdown = 20 // RocksDB's default level0_slowdown_writes_trigger
	}
	return s.intProp("rocksdb.num-running-flushes") == 0 &&
		s.intProp("rocksdb.mem-table-flush-pending") == 0 &&
		s.intProp("rocksdb.num-running-compactions") == 0 &&
		s.intProp("rocksdb.estimate-pending-compaction-bytes") == 0 &&
		s.intProp("rocksdb.num-files-at-level0") < slowdown
}

// ForEach calls fn for every live entry in key order. The slices are only
// valid during the call.
func (s *RocksStore) ForEach(fn func(key, value []byte) error) error {
	ro := grocksdb.NewDefaultReadOptions()
	ro.SetFillCache(false)
	defer ro.Destroy()
	it := s.db.NewIterator(ro)
	defer it.Close()
	for it.SeekToFirst(); it.Valid(); it.Next() {
		k, v := it.Key(), it.Value()
		err := fn(k.Data(), v.Data())
		k.Free()
		v.Free()
		if err != nil {
			return err
		}
	}
	return it.Err()
}

// Stats reads RocksDB's own figures for the store.
func (s *RocksStore) Stats() measure.StoreStats {
	prop := s.intProp
	stats := s.dbo.GetStatisticsString()
	return measure.StoreStats{
		LiveSSTBytes:           prop("rocksdb.live-sst-files-size"),
		TotalSSTBytes:          prop("rocksdb.total-sst-files-size"),
		L0Files:                prop("rocksdb.num-files-at-level0"),
		PendingCompactionBytes: prop("rocksdb.estimate-pending-compaction-bytes"),
		MemtableBytes:          prop("rocksdb.cur-size-all-mem-tables"),
		EstimatedKeys:          prop("rocksdb.estimate-num-keys"),
		StallSeconds:           cumulativeStall(s.db.GetProperty("rocksdb.stats")),
		FlushBytes:             s.carried.FlushBytes + ticker(stats, "rocksdb.flush.write.bytes"),
		CompactionWriteBytes:   s.carried.CompactionWriteBytes + ticker(stats, "rocksdb.compact.write.bytes"),
		IngestedBytes:          s.carried.IngestedBytes,
		SortSpillBytes:         s.carried.SortSpillBytes,
	}
}

// ticker reads one "NAME COUNT : N" line of RocksDB's statistics dump.
func ticker(stats, name string) int64 {
	i := strings.Index(stats, name+" COUNT : ")
	if i < 0 {
		return 0
	}
	rest := stats[i+len(name)+len(" COUNT : "):]
	if j := strings.IndexByte(rest, '\n'); j >= 0 {
		rest = rest[:j]
	}
	v, _ := strconv.ParseInt(strings.TrimSpace(rest), 10, 64)
	return v
}

// intProp reads an integer property.
func (s *RocksStore) intProp(name string) int64 {
	v, _ := strconv.ParseInt(strings.TrimSpace(s.db.GetProperty(name)), 10, 64)
	return v
}

var stallLine = regexp.MustCompile(`Cumulative stall: (\d+):(\d+):([\d.]+) H:M:S`)

// cumulativeStall parses the DB-wide "Cumulative stall" time from
// rocksdb.stats: the time writes were delayed or stopped.
func cumulativeStall(stats string) float64 {
	m := stallLine.FindStringSubmatch(stats)
	if m == nil {
		return 0
	}
	h, _ := strconv.ParseFloat(m[1], 64)
	mi, _ := strconv.ParseFloat(m[2], 64)
	sec, _ := strconv.ParseFloat(m[3], 64)
	return (time.Duration(h*float64(time.Hour)) + time.Duration(mi*float64(time.Minute))).Seconds() + sec
}

// Path is the store's directory.
func (s *RocksStore) Path() string { return s.path }

// Close flushes nothing (as Kafka Streams with the WAL off, the changelog is
// the durable copy) and releases the store.
func (s *RocksStore) Close() error {
	s.closing.Lock()
	defer s.closing.Unlock()
	for _, cf := range s.cfs {
		cf.Destroy()
	}
	s.cfs = nil
	if s.db != nil {
		s.db.Close() // flushes the memtables (avoid_flush_during_shutdown is off)
		s.db = nil
	}
	s.free()
	return nil
}

// errStoreClosed is a lookup of a store already closed.
var errStoreClosed = errors.New("store is closed")

// offsetsCF is the column family of the changelog offsets a store applied.
const offsetsCF = "offsets"

// CommitOffset records that the store has applied its changelog up to and
// including offset, under key (Kafka Streams' "topic-partition").
func (s *RocksStore) CommitOffset(key string, offset int64) error {
	var v [8]byte
	binary.BigEndian.PutUint64(v[:], uint64(offset))
	wb := grocksdb.NewWriteBatch()
	defer wb.Destroy()
	wb.PutCF(s.cfs[1], []byte(key), v[:])
	if err := s.db.Write(s.wo, wb); err != nil {
		return fmt.Errorf("store %s: commit offset: %w", s.path, err)
	}
	return nil
}

// CommittedOffset returns the offset recorded under key, and false when the
// store has none.
func (s *RocksStore) CommittedOffset(key string) (int64, bool, error) {
	ro := grocksdb.NewDefaultReadOptions()
	defer ro.Destroy()
	sl, err := s.db.GetCF(ro, s.cfs[1], []byte(key))
	if err != nil {
		return 0, false, err
	}
	defer sl.Free()
	if !sl.Exists() || len(sl.Data()) != 8 {
		return 0, false, nil
	}
	return int64(binary.BigEndian.Uint64(sl.Data())), true, nil
}

func (s *RocksStore) free() {
	if s.wb != nil {
		s.wb.Destroy()
		s.wb = nil
	}
	if s.wo != nil {
		s.wo.Destroy()
		s.wo = nil
	}
	if s.dbo != nil {
		s.dbo.Destroy()
		s.dbo = nil
	}
	if s.offsOpt != nil {
		s.offsOpt.Destroy()
		s.offsOpt = nil
	}
	if s.bbto != nil {
		s.bbto.Destroy()
		s.bbto = nil
	}
	if s.cache != nil {
		s.cache.Destroy()
		s.cache = nil
	}
}
