package engine

import (
	"encoding/binary"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/linxGnu/grocksdb"

	"github.com/restorebench/restorebench/config"
)

// BenchmarkMemtableKeyComparisons counts the key comparisons RocksDB makes
// per put into a memtable (perf_context's user_key_comparison_count), on
// 8-byte keys uniform over 300,000 and 8-byte values in WriteBatches of
// 1000, into a store with Kafka Streams' defaults: the model's restore of
// small records is this insert. Debian's librocksdb is built with
// assertions on, and its skiplist insert checks each new key against its
// neighbours at every level: about 120 comparisons a put here, where
// rocksdbjni's release builds (9.7.3 and 10.1.3, what Kafka Streams
// restores with) make 31-35 for the same puts. Reported as "cmp/put".
func BenchmarkMemtableKeyComparisons(b *testing.B) {
	// perf_context is per OS thread: set, write and read on one.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	s, err := OpenRocks(b.TempDir(), config.DefaultCase().RocksDB)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	grocksdb.SetPerfLevel(grocksdb.KEnableCount)
	defer grocksdb.SetPerfLevel(grocksdb.KDisable)
	pc := grocksdb.NewPerfContext()
	defer pc.Destroy()
	pc.Reset()
	rng := rand.New(rand.NewPCG(1, 2))
	batch := make([]Entry, 1000)
	for i := range batch {
		batch[i] = Entry{Key: make([]byte, 8), Value: make([]byte, 8)}
	}
	for b.Loop() {
		for i := range batch {
			binary.BigEndian.PutUint64(batch[i].Key, rng.Uint64N(300_000))
		}
		if err := s.Write(batch); err != nil {
			b.Fatal(err)
		}
	}
	const userKeyComparisonCount = 0 // rocksdb_user_key_comparison_count
	b.ReportMetric(float64(pc.Metric(userKeyComparisonCount))/float64(1000*b.N), "cmp/put")
	b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(1000*b.N), "ns/put")
}
