package engine

import (
	"bytes"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/internal/kvtest"

	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/linxGnu/grocksdb"

	"github.com/restorebench/restorebench/internal/testkafka"
	"github.com/restorebench/restorebench/loadgen"
)

// assertNoTempDirs fails when a task directory still holds the ingest
// strategy's spill or SST directory.
func assertNoTempDirs(t *testing.T, taskDir string) {
	t.Helper()
	for _, d := range []string{ingestSpillDir, ingestSSTDir} {
		if _, err := os.Stat(filepath.Join(taskDir, d)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s/%s still there (%v)", taskDir, d, err)
		}
	}
}

func TestIngestAndBulkRestoreVerify(t *testing.T) {
	cfg, _ := testkafka.Embedded(t)
	spec := spec100k()
	testkafka.Fill(t, cfg, "c", spec, nil)
	expected, totals, err := loadgen.Expect(spec)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		strategy config.Strategy
		threads  int
	}{{config.StrategyIngest, 1}, {config.StrategyIngest, 2}, {config.StrategyBulk, 1}} {
		name := fmt.Sprintf("%s/%d threads", c.strategy, c.threads)
		rc := testInstance(cfg, "c", t.TempDir())
		rc.Case.Strategy, rc.Case.Threads = c.strategy, c.threads
		// 1 MiB against ~4 MiB of records per partition: the sort spills.
		rc.Case.SortBuffer = 1 << 20
		res, err := rc.ColdRestore(context.Background(), testkafka.Offsets(t, cfg, "c"))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if res.Records != totals.Records {
			t.Errorf("%s: restored %d records, fill wrote %d", name, res.Records, totals.Records)
		}
		if ok, v := check(t, res.Stores, expected); !ok {
			t.Errorf("%s: did not verify: %s", name, v.Problem)
		}
		for p, s := range res.Stores {
			rs, ok := s.(*RocksStore)
			if !ok {
				t.Errorf("%s: partition %d store is %T, want *RocksStore", name, p, s)
			} else if l0 := rs.Stats().L0Files; c.strategy == config.StrategyIngest && l0 != 0 {
				t.Errorf("%s: partition %d has %d files in L0 after ingestion", name, p, l0)
			}
			assertNoTempDirs(t, taskDir(rc.AppDir(), TaskID{Partition: p}))
		}
		// Write amplification must see what each strategy wrote to disk.
		st := res.StoreStats()
		switch {
		case c.strategy == config.StrategyIngest && (st.IngestedBytes == 0 || st.SortSpillBytes == 0):
			t.Errorf("%s: ingested %d bytes, spilled %d: ingestion and the spill went uncounted", name, st.IngestedBytes, st.SortSpillBytes)
		case c.strategy == config.StrategyBulk && (st.FlushBytes == 0 || st.CompactionWriteBytes == 0):
			t.Errorf("%s: flushed %d, compacted %d bytes: the bulk load's writes went uncounted", name, st.FlushBytes, st.CompactionWriteBytes)
		}
		res.Close()
	}
}

// writeOps feeds ops to a loader in polls of 500 records.
func writeOps(t *testing.T, l interface{ Write([]Entry) error }, ops []kvtest.KV) {
	t.Helper()
	batch := make([]Entry, 0, 500)
	for i, op := range ops {
		batch = append(batch, Entry{Key: op.K, Value: op.V})
		if len(batch) == cap(batch) || i == len(ops)-1 {
			if err := l.Write(batch); err != nil {
				t.Fatal(err)
			}
			batch = batch[:0]
		}
	}
}

func storeEntries(t *testing.T, s Store) []kvtest.KV {
	t.Helper()
	var got []kvtest.KV
	if err := s.ForEach(func(k, v []byte) error {
		got = append(got, kvtest.KV{K: bytes.Clone(k), V: bytes.Clone(v)})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return got
}

// The loader alone: spills, several SST files, and the store holding
// exactly the replayed state, reopenable after close.
func TestIngestLoaderSpillsAndRollsSSTs(t *testing.T) {
	old := ingestSSTTargetBytes
	ingestSSTTargetBytes = 64 << 10
	defer func() { ingestSSTTargetBytes = old }()

	task := t.TempDir()
	store := filepath.Join(task, "rocksdb", "s")
	o := config.KStreamsRocksDB()
	l, err := newIngestLoader(store, task, o, 256<<10)
	if err != nil {
		t.Fatal(err)
	}
	ops := kvtest.RandomOps(rand.New(rand.NewPCG(9, 9)), 30_000, 3_000, 300, 0.1)
	writeOps(t, l, ops)
	l.(*ingestLoader).drain()
	if sp := l.(*ingestLoader).sorter.Stats().Spills; sp == 0 {
		t.Fatal("no spill with a 256 KiB sort buffer")
	}
	s, err := l.Finish(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	assertNoTempDirs(t, task)
	want := kvtest.Replay(ops)
	kvtest.CheckSorted(t, storeEntries(t, s), want)
	if ssts, _ := filepath.Glob(filepath.Join(store, "*.sst")); len(ssts) < 2 {
		t.Errorf("store holds %d sst files, expected several", len(ssts))
	}
	s.Close()
	s2, err := OpenRocks(store, o)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	kvtest.CheckSorted(t, storeEntries(t, s2), want)
}

func TestIngestLoaderEmptyPartition(t *testing.T) {
	for name, ops := range map[string][]kvtest.KV{
		"no records":      nil,
		"only tombstones": {{K: []byte("a")}, {K: []byte("b"), V: []byte("x")}, {K: []byte("b")}},
	} {
		task := t.TempDir()
		store := filepath.Join(task, "rocksdb", "s")
		l, err := newIngestLoader(store, task, config.KStreamsRocksDB(), 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		if len(ops) > 0 {
			writeOps(t, l, ops)
		}
		s, err := l.Finish(context.Background())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := storeEntries(t, s); len(got) != 0 {
			t.Errorf("%s: store holds %d entries", name, len(got))
		}
		if err := s.Write([]Entry{{Key: []byte("k"), Value: []byte("v")}}); err != nil {
			t.Errorf("%s: store not writable: %v", name, err)
		}
		s.Close()
		assertNoTempDirs(t, task)
	}
}

func TestIngestLoaderAbortRemovesTempFiles(t *testing.T) {
	task := t.TempDir()
	l, err := newIngestLoader(filepath.Join(task, "rocksdb", "s"), task, config.KStreamsRocksDB(), 64<<10)
	if err != nil {
		t.Fatal(err)
	}
	writeOps(t, l, kvtest.RandomOps(rand.New(rand.NewPCG(1, 1)), 5_000, 1_000, 200, 0.1))
	l.(*ingestLoader).drain()
	if _, err := os.Stat(filepath.Join(task, ingestSpillDir)); err != nil {
		t.Fatalf("no spill dir before abort: %v", err)
	}
	l.Abort()
	assertNoTempDirs(t, task)
}

func TestIngestLoaderCancelledFinishCleansUp(t *testing.T) {
	task := t.TempDir()
	l, err := newIngestLoader(filepath.Join(task, "rocksdb", "s"), task, config.KStreamsRocksDB(), 64<<10)
	if err != nil {
		t.Fatal(err)
	}
	// Enough distinct keys that the merge checks the context.
	ops := make([]kvtest.KV, 200_000)
	for i := range ops {
		ops[i] = kvtest.KV{K: fmt.Appendf(nil, "%08d", i), V: []byte("v")}
	}
	writeOps(t, l, ops)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := l.Finish(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("finish with a cancelled context: %v", err)
	}
	l.Abort()
	assertNoTempDirs(t, task)
}

// Ingested files land in the bottommost level, one sorted run, under both
// compaction styles, so nothing is compacted after the restore; the store
// keeps working (writes, flushes, compactions, reopening) afterwards.
func TestIngestLandsInBottommostLevel(t *testing.T) {
	old := ingestSSTTargetBytes
	ingestSSTTargetBytes = 32 << 10
	defer func() { ingestSSTTargetBytes = old }()
	for _, style := range []string{"universal", "level"} {
		task := t.TempDir()
		store := filepath.Join(task, "rocksdb", "s")
		o := config.KStreamsRocksDB()
		o.CompactionStyle = style
		l, err := newIngestLoader(store, task, o, 256<<10)
		if err != nil {
			t.Fatal(err)
		}
		ops := kvtest.RandomOps(rand.New(rand.NewPCG(5, 5)), 30_000, 3_000, 300, 0.1)
		writeOps(t, l, ops)
		s, err := l.Finish(context.Background())
		if err != nil {
			t.Fatalf("%s: %v", style, err)
		}
		rs := s.(*RocksStore)
		levels := make([]string, 7)
		for i := range levels {
			levels[i] = rs.db.GetProperty(fmt.Sprintf("rocksdb.num-files-at-level%d", i))
		}
		ssts, _ := filepath.Glob(filepath.Join(store, "*.sst"))
		if fmt.Sprint(levels[:6]) != "[0 0 0 0 0 0]" || levels[6] != fmt.Sprint(len(ssts)) || len(ssts) < 4 {
			t.Errorf("%s: files per level %v (%d sst files), want all in L6", style, levels, len(ssts))
		}
		// The store keeps working: more writes, a flush, a full compaction.
		more := kvtest.RandomOps(rand.New(rand.NewPCG(6, 6)), 5_000, 3_000, 300, 0.1)
		writeOps(t, s, more)
		rs.db.CompactRange(grocksdb.Range{})
		s.Close()
		s2, err := OpenRocks(store, o)
		if err != nil {
			t.Fatalf("%s: reopen: %v", style, err)
		}
		kvtest.CheckSorted(t, storeEntries(t, s2), kvtest.Replay(append(ops, more...)))
		s2.Close()
	}
}
