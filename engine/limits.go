package engine

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/measure"
)

// FetchOnly consumes the changelog exactly as the instance's cold restore
// would, and discards every record: the broker and network side alone.
func (in *Instance) FetchOnly(ctx context.Context, offsets cluster.TopicOffsets) (measure.Limit, error) {
	quiet := *in
	quiet.Progress = nil
	cpu0 := measure.CPUTime()
	res, err := quiet.restore(ctx, ColdTasks(offsets), loaderSpec{Mode: LoadDiscard})
	if err != nil {
		return measure.Limit{}, fmt.Errorf("fetch-only: %w", err)
	}
	cpu := measure.CPUTime() - cpu0
	res.Close()
	return measure.Limit{Duration: res.Duration, Records: res.Records, Bytes: res.Bytes, CPU: cpu}, nil
}

// Dump consumes the changelog once and writes its records to dir, one file
// per partition, for WriteOnly to replay from local disk.
func (in *Instance) Dump(ctx context.Context, offsets cluster.TopicOffsets, dir string) error {
	quiet := *in
	quiet.Progress = nil
	res, err := quiet.restore(ctx, ColdTasks(offsets), loaderSpec{Mode: LoadDump, DumpDir: dir})
	if err != nil {
		return fmt.Errorf("dump changelog: %w", err)
	}
	res.Close()
	return nil
}

// WriteOnly replays a Dump into fresh stores with the instance's strategy
// and options, the store side alone, including the strategy's finish work.
// Batches are shaped as a restore's: up to BatchRecords records and at most
// MaxPartitionFetchBytes of them per partition (a poll holds at most one
// fetch's worth of a partition). Threads partitions replay at once, as
// stream threads; for ingest, whose sorts run in the background of the one
// consumer, every partition at once. The stores are removed afterwards.
func (in *Instance) WriteOnly(ctx context.Context, dumpDir string, partitions []int32) (measure.Limit, error) {
	if err := in.Case.Validate(); err != nil {
		return measure.Limit{}, err
	}
	spec := loaderSpec{Case: in.Case, AppDir: in.AppDir(), Store: in.StoreName, Mode: LoadStores, Tasks: len(partitions)}
	var (
		mu    sync.Mutex
		total measure.Limit
	)
	start, cpu0 := time.Now(), measure.CPUTime()
	workers := in.Case.Threads
	if in.Case.Strategy == config.StrategyIngest {
		workers = max(workers, len(partitions))
	}
	var g errgroup.Group
	g.SetLimit(max(workers, 1))
	for _, p := range partitions {
		g.Go(func() error {
			n, b, err := replayPartition(ctx, dumpFile(dumpDir, p), spec, p)
			mu.Lock()
			total.Records += n
			total.Bytes += b
			mu.Unlock()
			if err != nil {
				return fmt.Errorf("write-only: partition %d: %w", p, err)
			}
			return nil
		})
	}
	err := g.Wait()
	total.Duration, total.CPU = time.Since(start), measure.CPUTime()-cpu0
	os.RemoveAll(in.AppDir())
	return total, err
}

func replayPartition(ctx context.Context, path string, spec loaderSpec, p int32) (records, bytes int64, err error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, 0, nil // an empty partition has no dump
	}
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	l, err := newLoader(spec, TaskID{Partition: p})
	c := spec.Case
	if err != nil {
		return 0, 0, err
	}
	r := bufio.NewReaderSize(f, 1<<20)
	batch := make([]Entry, 0, min(c.BatchRecords, 1<<16))
	var arena []byte
	var batchBytes int64
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := l.Write(batch)
		batch, arena, batchBytes = batch[:0], arena[:0], 0
		return err
	}
	for {
		if ctx.Err() != nil {
			l.Abort()
			return records, bytes, ctx.Err()
		}
		e, err := readDumpEntry(r, &arena)
		if err == io.EOF {
			break
		}
		if err != nil {
			l.Abort()
			return records, bytes, err
		}
		batch = append(batch, e)
		records++
		bytes += int64(len(e.Key) + len(e.Value))
		batchBytes += int64(len(e.Key) + len(e.Value))
		if len(batch) == c.BatchRecords || batchBytes >= int64(c.MaxPartitionFetchBytes) {
			if err := flush(); err != nil {
				l.Abort()
				return records, bytes, err
			}
		}
	}
	if err := flush(); err != nil {
		l.Abort()
		return records, bytes, err
	}
	s, err := l.Finish(ctx)
	if err != nil {
		return records, bytes, err
	}
	return records, bytes, s.Close()
}

func dumpFile(dir string, p int32) string {
	return filepath.Join(dir, "dump-"+strconv.Itoa(int(p))+".log")
}

// dumpLoader appends records to a file: [key len u32][value len i32, -1 for
// a tombstone][key][value].
type dumpLoader struct {
	f *os.File
	w *bufio.Writer
}

func newDumpLoader(path string) (*dumpLoader, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	return &dumpLoader{f: f, w: bufio.NewWriterSize(f, 1<<20)}, nil
}

func (d *dumpLoader) Write(entries []Entry) error {
	var hdr [8]byte
	for _, e := range entries {
		binary.LittleEndian.PutUint32(hdr[:4], uint32(len(e.Key)))
		vl := int32(len(e.Value))
		if e.Value == nil {
			vl = -1
		}
		binary.LittleEndian.PutUint32(hdr[4:], uint32(vl))
		d.w.Write(hdr[:])
		d.w.Write(e.Key)
		if _, err := d.w.Write(e.Value); err != nil {
			return err
		}
	}
	return nil
}

func (d *dumpLoader) Finish(context.Context) (Store, error) {
	if err := d.w.Flush(); err != nil {
		d.f.Close()
		return nil, err
	}
	return closedStore{}, d.f.Close()
}

func (d *dumpLoader) Abort() { d.f.Close(); os.Remove(d.f.Name()) }

func readDumpEntry(r *bufio.Reader, arena *[]byte) (Entry, error) {
	var hdr [8]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		if err == io.ErrUnexpectedEOF {
			return Entry{}, fmt.Errorf("dump truncated: %w", err)
		}
		return Entry{}, err
	}
	kl := int(binary.LittleEndian.Uint32(hdr[:4]))
	vl := int(int32(binary.LittleEndian.Uint32(hdr[4:])))
	n := kl + max(vl, 0)
	start := len(*arena)
	*arena = slices.Grow(*arena, n)[:start+n]
	buf := (*arena)[start:]
	if _, err := io.ReadFull(r, buf); err != nil {
		return Entry{}, fmt.Errorf("dump truncated: %w", err)
	}
	e := Entry{Key: buf[:kl:kl]}
	if vl >= 0 {
		e.Value = buf[kl:n:n]
	}
	return e, nil
}

// discardLoader drops every record (fetch-only).
type discardLoader struct{}

func (discardLoader) Write([]Entry) error                   { return nil }
func (discardLoader) Finish(context.Context) (Store, error) { return closedStore{}, nil }
func (discardLoader) Abort()                                {}

// closedStore stands in for the store of a limit measurement: it holds nothing.
type closedStore struct{}

func (closedStore) Write([]Entry) error                   { return errors.New("limit measurement holds no store") }
func (closedStore) Get([]byte) ([]byte, bool, error)      { return nil, false, nil }
func (closedStore) ForEach(func(k, v []byte) error) error { return nil }
func (closedStore) Stats() measure.StoreStats             { return measure.StoreStats{} }
func (closedStore) Flush() error                          { return nil }
func (closedStore) Settled() bool                         { return true }
func (closedStore) Close() error                          { return nil }
