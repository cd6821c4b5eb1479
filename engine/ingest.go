package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/linxGnu/grocksdb"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/engine/extsort"
	"github.com/restorebench/restorebench/measure"
)

// ingestSSTTargetBytes is where the ingest strategy rolls to a new SST file.
// It is a constant, independent of write_buffer_size (the ingested files
// never pass through a memtable): 64 MiB, RocksDB's default
// target_file_size_base, so files are as large as compaction would make them
// at L1 while one file's finish (index and filter blocks) stays short. A
// variable only so tests can make it small.
var ingestSSTTargetBytes uint64 = 64 << 20

// Directories the ingest strategy works in, under the task directory (the
// same filesystem as the store, so ingestion moves files by hard link).
const (
	ingestSpillDir = "ingest-spill"
	ingestSSTDir   = "ingest-sst"
)

// ingestLoader restores by external sort and SST ingestion: Write buffers the
// records in an external sort (spilling sorted runs to taskDir/ingest-spill);
// Finish merges them into the partition's final state, writes it as SST files
// (taskDir/ingest-sst) with the store's own options, opens the store and
// ingests the files into it, moving them.
//
// The sort runs on a goroutine of its own per partition, fed one poll's
// records at a time (copied), so sorting and spilling overlap with fetching
// and with the other partitions' sorts. Polls waiting for the sort hold at
// most half the sort buffer again (at least 4 MiB, or one poll).
type ingestLoader struct {
	storePath string
	sstDir    string
	opts      config.RocksDB
	sorter    *extsort.Sorter
	done      bool

	in      chan []Entry   // polls for the sort goroutine; closed by Finish or Abort
	sortErr chan error     // the sort goroutine's result, sent once when in closes
	failed  atomic.Bool    // the sort goroutine has hit an error
	pending sync.WaitGroup // polls handed over and not yet sorted

	mu       sync.Mutex
	room     *sync.Cond // signalled when queued bytes drop
	queued   int64      // bytes of polls handed over and not yet sorted
	maxQueue int64
}

// newIngestLoader is the ingest strategy for one partition: sortBuffer bounds
// the external sort's in-memory buffer.
func newIngestLoader(storePath, taskDir string, o config.RocksDB, sortBuffer int64) (Loader, error) {
	if sortBuffer <= 0 {
		return nil, fmt.Errorf("ingest: sort buffer of %d bytes", sortBuffer)
	}
	if _, err := compressionType(o.Compression); err != nil {
		return nil, err
	}
	l := &ingestLoader{
		storePath: storePath,
		sstDir:    filepath.Join(taskDir, ingestSSTDir),
		opts:      o,
		sorter:    extsort.New(filepath.Join(taskDir, ingestSpillDir), sortBuffer),
		in:        make(chan []Entry, 1024),
		sortErr:   make(chan error, 1),
		maxQueue:  max(sortBuffer/2, 4<<20),
	}
	l.room = sync.NewCond(&l.mu)
	go l.sortLoop(l.in)
	return l, nil
}

// sortLoop adds every poll to the sorter; after an error it drains the
// remaining polls so Write never blocks, and reports the error when in closes.
func (l *ingestLoader) sortLoop(in <-chan []Entry) {
	var err error
	for batch := range in {
		if err == nil {
			for _, e := range batch {
				if err = l.sorter.Add(e.Key, e.Value); err != nil {
					l.failed.Store(true)
					break
				}
			}
		}
		l.mu.Lock()
		l.queued -= entriesSize(batch)
		l.room.Broadcast()
		l.mu.Unlock()
		l.pending.Done()
	}
	l.sortErr <- err
}

// Write hands a copy of the poll's records to the sort goroutine.
func (l *ingestLoader) Write(entries []Entry) error {
	if l.done {
		return errors.New("ingest: write after finish")
	}
	if l.failed.Load() {
		return l.stop()
	}
	size := entriesSize(entries)
	l.mu.Lock()
	for l.queued > 0 && l.queued+size > l.maxQueue && !l.failed.Load() {
		l.room.Wait()
	}
	l.queued += size
	l.mu.Unlock()
	arena := make([]byte, 0, size)
	batch := make([]Entry, len(entries))
	for i, e := range entries {
		arena = append(arena, e.Key...)
		batch[i].Key = arena[len(arena)-len(e.Key):]
		if e.Value != nil {
			arena = append(arena, e.Value...)
			batch[i].Value = arena[len(arena)-len(e.Value) : len(arena) : len(arena)]
		}
	}
	l.pending.Add(1)
	l.in <- batch
	return nil
}

func entriesSize(entries []Entry) int64 {
	var n int64
	for _, e := range entries {
		n += int64(len(e.Key) + len(e.Value))
	}
	return n
}

// drain waits until every poll handed over before the call is in the sorter.
func (l *ingestLoader) drain() { l.pending.Wait() }

// stop closes the sort goroutine's input and returns its result; it is
// called once, by Finish, Abort, or a Write that saw the sort fail.
func (l *ingestLoader) stop() error {
	if l.in == nil {
		return errors.New("ingest: sort already stopped")
	}
	close(l.in)
	l.in = nil
	return <-l.sortErr
}

// Finish sorts and merges the records, writes the SST files, opens the store
// and ingests them. The spill and SST directories are removed whatever the
// outcome. A partition with no live key yields an empty store.
//
// The files are ingested with the store opened in level compaction style,
// then the store is reopened with its own options. RocksDB 7.8 places files
// ingested into an empty universal-compaction DB in L0, each its own sorted
// run, so more than level0_file_num_compaction_trigger files would set off a
// compaction rewriting everything just ingested; in level style they go to
// the bottommost level, non-overlapping, which universal compaction then
// reads as one sorted run.
func (l *ingestLoader) Finish(ctx context.Context) (st Store, err error) {
	if l.done {
		return nil, errors.New("ingest: finish called twice")
	}
	l.done = true
	var s *RocksStore
	if l.in != nil {
		if err := l.stop(); err != nil {
			l.cleanup()
			return nil, err
		}
	}
	defer func() {
		if cerr := l.cleanup(); err == nil && cerr != nil {
			err = cerr
		}
		if err != nil && s != nil {
			s.Close()
			st = nil
		}
	}()
	s, err = openRocksWith(l.storePath, l.opts, ingestTune(l.opts))
	if err != nil {
		return nil, err
	}
	paths, err := l.writeSSTs(ctx, s.dbo)
	if err != nil {
		return nil, err
	}
	var sstBytes int64
	for _, p := range paths {
		if st, serr := os.Stat(p); serr == nil {
			sstBytes += st.Size()
		}
	}
	carried := measure.StoreStats{IngestedBytes: sstBytes, SortSpillBytes: l.sorter.Stats().SpillByte}
	if len(paths) > 0 {
		iopts := grocksdb.NewDefaultIngestExternalFileOptions()
		iopts.SetMoveFiles(true)
		err = s.db.IngestExternalFile(paths, iopts)
		iopts.Destroy()
		if err != nil {
			return nil, fmt.Errorf("ingest %d sst files into %s: %w", len(paths), l.storePath, err)
		}
	}
	if ingestTune(l.opts) == nil {
		s.carried = carried
		return s, nil
	}
	s.Close()
	s, err = OpenRocks(l.storePath, l.opts)
	if err != nil {
		return nil, err
	}
	s.carried = carried
	return s, nil
}

// ingestTune is how the store's options change while files are ingested:
// level compaction style when the store is universal (see Finish), else
// nothing.
func ingestTune(o config.RocksDB) func(*grocksdb.Options) {
	if o.CompactionStyle != "universal" {
		return nil
	}
	return func(opts *grocksdb.Options) { opts.SetCompactionStyle(grocksdb.LevelCompactionStyle) }
}

// writeSSTs writes the merged state as SST files built with dbo (the store's
// options: table format, block size, filter, compression), rolling at
// ingestSSTTargetBytes, and returns their paths in key order.
func (l *ingestLoader) writeSSTs(ctx context.Context, dbo *grocksdb.Options) (paths []string, err error) {
	if err := os.MkdirAll(l.sstDir, 0o755); err != nil {
		return nil, fmt.Errorf("ingest: sst dir: %w", err)
	}
	eo := grocksdb.NewDefaultEnvOptions()
	defer eo.Destroy()
	var w *grocksdb.SSTFileWriter
	finish := func() error {
		ferr := w.Finish()
		w.Destroy()
		w = nil
		if ferr != nil {
			return fmt.Errorf("ingest: finish %s: %w", paths[len(paths)-1], ferr)
		}
		return nil
	}
	defer func() {
		if w != nil {
			w.Destroy()
		}
	}()
	err = l.sorter.Merge(ctx, func(k, v []byte) error {
		if w == nil {
			path := filepath.Join(l.sstDir, fmt.Sprintf("%06d.sst", len(paths)))
			w = grocksdb.NewSSTFileWriter(eo, dbo)
			if err := w.Open(path); err != nil {
				return fmt.Errorf("ingest: create %s: %w", path, err)
			}
			paths = append(paths, path)
		}
		if err := w.Put(k, v); err != nil {
			return fmt.Errorf("ingest: add to %s: %w", paths[len(paths)-1], err)
		}
		if w.FileSize() >= ingestSSTTargetBytes {
			return finish()
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if w != nil {
		if err := finish(); err != nil {
			return nil, err
		}
	}
	return paths, nil
}

// cleanup removes the spill runs and the SST directory (whatever ingestion
// did not move).
func (l *ingestLoader) cleanup() error {
	err := l.sorter.Close()
	if rerr := os.RemoveAll(l.sstDir); err == nil && rerr != nil {
		err = fmt.Errorf("ingest: remove sst dir: %w", rerr)
	}
	return err
}

// Abort drops the buffered records and the temporary files.
func (l *ingestLoader) Abort() {
	l.done = true
	if l.in != nil {
		l.stop()
	}
	l.cleanup()
}
