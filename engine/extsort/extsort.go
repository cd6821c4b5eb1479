package extsort

import (
	"bufio"
	"bytes"
	"container/heap"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"unsafe"
)

// Sorter is an external sort for one partition's changelog: records arrive
// in offset order and come out once each, in increasing key order, as the
// state the log describes (the last write per key wins; a key whose last
// write is a tombstone is gone).
//
// Records are buffered in memory up to limit bytes: their key and value bytes
// in arena chunks and one fixed-size sortRec each. When the buffer is full it
// is sorted by key then arrival sequence, reduced to the last entry per key,
// and spilled to a run file in dir. Merge k-way merges the runs with what is
// still in memory.
//
// Run file format (all integers unsigned varints, as encoding/binary):
//
//	"RBXSORT1"                               8-byte magic
//	repeated, in strictly increasing key order:
//	  klen | vlen+1 (0 = tombstone) | seq | key bytes | value bytes
//
// The record count is kept in memory (sortRun.records) and checked when the
// run is read back, so a truncated file is an error rather than lost keys.
//
// Memory: held counts every byte the buffer retains, the capacity of all arena
// chunks (used or kept for reuse) plus the capacity of the sortRec slice; it
// never exceeds limit except by one entry, when a single entry is larger than
// what is left (the entry is then buffered alone). Not counted: the spill
// writer's buffer (sortSpillWriteBuf, reused), the merge's read buffers
// (sortMergeReadBuf per open run, at most fanIn+1 open at a time) and each run
// sortCursor's largest record, and the garbage left behind when the sortRec slice
// grows during the first run.
type Sorter struct {
	dir   string
	limit int64
	fanIn int // most runs merged at once; more need intermediate passes

	seq  uint64
	recs []sortRec
	// used are the arena chunks of the current run, indexed by sortRec.chunk;
	// free are empty chunks kept for reuse.
	used, free [][]byte
	chunkSize  int
	held       int64

	runs    []sortRun
	nextRun int
	bw      *bufio.Writer
	closed  bool

	stats Stats
}

// Stats are a Sorter's figures, for tests and reports.
type Stats struct {
	Records   int64 // records added
	Spills    int   // runs spilled from memory
	Merges    int   // intermediate merge passes' output runs
	SpillByte int64 // bytes written to run files, intermediate merges included
	PeakHeld  int64 // most bytes the in-memory buffer held at once
	MaxEntry  int64 // largest single entry's cost (key+value+sortRec)
}

// sortRec is one buffered record: its key and value lie contiguously in
// used[chunk][off:]; prefix and prefix2 are the key's first 16 bytes as two
// big-endian words (zero-padded), so comparisons of keys up to 16 bytes, and
// of longer keys that differ early, never touch the arena. (Two words, not
// one: serialized keys often share their first 8 bytes, as "k000000012345"
// or a fixed-width type tag does.)
type sortRec struct {
	prefix  uint64
	prefix2 uint64
	seq     uint64
	chunk   uint32
	off     uint32
	klen    uint32
	vlen    int32 // -1: tombstone
}

const (
	sortRecSize       = int64(unsafe.Sizeof(sortRec{}))
	sortRunMagic      = "RBXSORT1"
	sortSpillWriteBuf = 256 << 10
	sortMergeReadBuf  = 64 << 10
	sortMergeFanIn    = 128
	sortMaxEntryBytes = 1<<31 - 1
)

// sortRun is one run file on disk.
type sortRun struct {
	path    string
	records int64
}

// New returns a sorter buffering up to limit bytes in memory and
// spilling to dir (created on the first spill, removed by Close).
func New(dir string, limit int64) *Sorter {
	if limit < 1 {
		limit = 1
	}
	// Chunks are small next to the limit so the last one wastes little, and
	// capped so a chunk is cheap to allocate.
	cs := min(max(limit/16, 256), 1<<20)
	return &Sorter{dir: dir, limit: limit, fanIn: sortMergeFanIn, chunkSize: int(cs)}
}

// Add buffers one record; a nil value is a tombstone. key and value are
// copied, so they may be reused after the call.
func (s *Sorter) Add(key, value []byte) error {
	if s.closed {
		return errors.New("extsort: add after close")
	}
	need := len(key) + len(value)
	if len(key) > sortMaxEntryBytes || len(value) > sortMaxEntryBytes || need > sortMaxEntryBytes {
		return fmt.Errorf("extsort: record of %d bytes is too large", need)
	}
	if c := int64(need) + sortRecSize; c > s.stats.MaxEntry {
		s.stats.MaxEntry = c
	}
	if err := s.reserve(need); err != nil {
		return err
	}
	ci := len(s.used) - 1
	ch := s.used[ci]
	off := len(ch)
	ch = append(ch, key...)
	ch = append(ch, value...)
	s.used[ci] = ch
	vlen := int32(len(value))
	if value == nil {
		vlen = -1
	}
	s.recs = append(s.recs, sortRec{
		prefix:  sortKeyPrefix(key),
		prefix2: sortKeyPrefix2(key),
		seq:     s.seq,
		chunk:   uint32(ci),
		off:     uint32(off),
		klen:    uint32(len(key)),
		vlen:    vlen,
	})
	s.seq++
	s.stats.Records++
	return nil
}

// reserve makes room for one more sortRec and need arena bytes in the last
// used chunk, spilling the buffer when the limit would be passed.
func (s *Sorter) reserve(need int) error {
	for {
		if s.tryReserve(need, false) {
			return nil
		}
		if len(s.recs) == 0 {
			// Nothing to spill: fit this one entry regardless (the buffer
			// then exceeds the limit by at most this entry).
			s.releaseFree()
			s.tryReserve(need, true)
			return nil
		}
		if err := s.spill(); err != nil {
			return err
		}
	}
}

// tryReserve reports whether room was found within the limit (or beyond it,
// when force is set).
func (s *Sorter) tryReserve(need int, force bool) bool {
	room := func(n int64) bool { return force || s.held+n <= s.limit }
	if len(s.recs) == cap(s.recs) {
		grow := int64(cap(s.recs))
		if grow == 0 {
			grow = min(max(s.limit/(64*sortRecSize), 1), 4096)
		}
		if !force {
			grow = min(grow, (s.limit-s.held)/sortRecSize)
		}
		if grow < 1 {
			if !force {
				return false
			}
			grow = 1
		}
		if !room(grow * sortRecSize) {
			return false
		}
		n := make([]sortRec, len(s.recs), cap(s.recs)+int(grow))
		copy(n, s.recs)
		s.held += (int64(cap(n)) - int64(cap(s.recs))) * sortRecSize
		s.recs = n
		s.notePeak()
	}
	if k := len(s.used); k > 0 && cap(s.used[k-1])-len(s.used[k-1]) >= need {
		return true
	}
	// A free chunk that fits?
	for i := len(s.free) - 1; i >= 0; i-- {
		if cap(s.free[i]) >= need {
			s.used = append(s.used, s.free[i][:0])
			s.free = slices.Delete(s.free, i, i+1)
			return true
		}
	}
	size := int64(max(s.chunkSize, need))
	if !force && s.held+size > s.limit {
		size = s.limit - s.held // a smaller last chunk, if the entry fits it
	}
	if size < int64(need) {
		if !force {
			return false
		}
		size = int64(need)
	}
	s.used = append(s.used, make([]byte, 0, size))
	s.held += size
	s.notePeak()
	return true
}

func (s *Sorter) notePeak() {
	if s.held > s.stats.PeakHeld {
		s.stats.PeakHeld = s.held
	}
}

// releaseFree drops the kept empty chunks.
func (s *Sorter) releaseFree() {
	for _, c := range s.free {
		s.held -= int64(cap(c))
	}
	clear(s.free)
	s.free = s.free[:0]
}

// resetBuffer empties the buffer after a spill, keeping its chunks (those of
// the usual size) and the sortRec slice for the next run.
func (s *Sorter) resetBuffer() {
	for _, c := range s.used {
		if cap(c) <= s.chunkSize {
			s.free = append(s.free, c[:0])
		} else {
			s.held -= int64(cap(c))
		}
	}
	clear(s.used)
	s.used = s.used[:0]
	s.recs = s.recs[:0]
}

// Held is the bytes the in-memory buffer holds now.
func (s *Sorter) Held() int64 { return s.held }

// Stats returns the sorter's figures at the call.
func (s *Sorter) Stats() Stats { return s.stats }

// compareSortKeys orders two buffered records' keys: by the two prefix
// words, then, when both keys fit in them, by length (the shorter is then a
// prefix of the longer), else by the full keys.
func compareSortKeys(s *Sorter, a, b *sortRec) int {
	if a.prefix != b.prefix {
		if a.prefix < b.prefix {
			return -1
		}
		return 1
	}
	if a.prefix2 != b.prefix2 {
		if a.prefix2 < b.prefix2 {
			return -1
		}
		return 1
	}
	if a.klen <= 16 && b.klen <= 16 {
		switch {
		case a.klen < b.klen:
			return -1
		case a.klen > b.klen:
			return 1
		}
		return 0
	}
	return bytes.Compare(s.key(a), s.key(b))
}

// sortKeyPrefix2 is bytes 8 to 16 of the key, zero-padded.
func sortKeyPrefix2(k []byte) uint64 {
	if len(k) <= 8 {
		return 0
	}
	return sortKeyPrefix(k[8:])
}

func sortKeyPrefix(k []byte) uint64 {
	if len(k) >= 8 {
		return binary.BigEndian.Uint64(k)
	}
	var b [8]byte
	copy(b[:], k)
	return binary.BigEndian.Uint64(b[:])
}

func (s *Sorter) key(r *sortRec) []byte {
	return s.used[r.chunk][r.off : r.off+r.klen]
}

// value returns r's value, nil for a tombstone and non-nil when empty.
func (s *Sorter) value(r *sortRec) []byte {
	if r.vlen < 0 {
		return nil
	}
	start := r.off + r.klen
	return s.used[r.chunk][start : start+uint32(r.vlen) : start+uint32(r.vlen)]
}

// sortBuffer orders the buffer by key, then by sequence.
func (s *Sorter) sortBuffer() {
	slices.SortFunc(s.recs, func(a, b sortRec) int {
		if c := compareSortKeys(s, &a, &b); c != 0 {
			return c
		}
		if a.seq < b.seq {
			return -1
		}
		if a.seq > b.seq {
			return 1
		}
		return 0
	})
}

// spill sorts the buffer and writes the last entry of every key to a new
// run file. The first run has nothing older to shadow, so its tombstones are
// dropped.
func (s *Sorter) spill() error {
	s.sortBuffer()
	mem := &sortMemCursor{s: s}
	dropTombs := len(s.runs) == 0
	w, err := s.createRun()
	if err != nil {
		return err
	}
	for mem.next() {
		if mem.tomb && dropTombs {
			continue
		}
		if err := w.write(mem.k, mem.v, mem.tomb, mem.sq); err != nil {
			w.abort()
			return err
		}
	}
	run, err := w.close()
	if err != nil {
		return err
	}
	s.runs = append(s.runs, run)
	s.stats.Spills++
	s.resetBuffer()
	return nil
}

// sortRunWriter writes one run file.
type sortRunWriter struct {
	s    *Sorter
	f    *os.File
	path string
	n    int64
	tmp  [3 * binary.MaxVarintLen64]byte
}

func (s *Sorter) createRun() (*sortRunWriter, error) {
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return nil, fmt.Errorf("extsort: spill dir: %w", err)
	}
	path := filepath.Join(s.dir, fmt.Sprintf("run-%06d.spill", s.nextRun))
	s.nextRun++
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("extsort: %w", err)
	}
	if s.bw == nil {
		s.bw = bufio.NewWriterSize(f, sortSpillWriteBuf)
	} else {
		s.bw.Reset(f)
	}
	s.bw.WriteString(sortRunMagic)
	s.stats.SpillByte += int64(len(sortRunMagic))
	return &sortRunWriter{s: s, f: f, path: path}, nil
}

func (w *sortRunWriter) write(k, v []byte, tomb bool, seq uint64) error {
	b := binary.AppendUvarint(w.tmp[:0], uint64(len(k)))
	vl := uint64(0)
	if !tomb {
		vl = uint64(len(v)) + 1
	}
	b = binary.AppendUvarint(b, vl)
	b = binary.AppendUvarint(b, seq)
	bw := w.s.bw
	bw.Write(b)
	bw.Write(k)
	_, err := bw.Write(v)
	if err != nil {
		return fmt.Errorf("extsort: write %s: %w", w.path, err)
	}
	w.n++
	w.s.stats.SpillByte += int64(len(b) + len(k) + len(v))
	return nil
}

func (w *sortRunWriter) close() (sortRun, error) {
	err := w.s.bw.Flush()
	w.s.bw.Reset(nil)
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(w.path)
		return sortRun{}, fmt.Errorf("extsort: write %s: %w", w.path, err)
	}
	return sortRun{path: w.path, records: w.n}, nil
}

func (w *sortRunWriter) abort() {
	w.s.bw.Reset(nil)
	w.f.Close()
	os.Remove(w.path)
}

// Merge ends the input and calls fn with every live key and its last value,
// in strictly increasing key order. The slices are only valid during the
// call. With more runs than the fan-in, groups of runs are first merged into
// longer runs. Merge may be called once; Close still has to follow.
func (s *Sorter) Merge(ctx context.Context, fn func(key, value []byte) error) error {
	if s.closed {
		return errors.New("extsort: merge after close")
	}
	for len(s.runs)+1 > max(s.fanIn, 2) {
		if err := s.mergePass(ctx); err != nil {
			return err
		}
	}
	s.sortBuffer()
	curs := make([]sortCursor, 0, len(s.runs)+1)
	defer func() {
		for _, c := range curs {
			c.close()
		}
	}()
	for _, r := range s.runs {
		c, err := openSortRunCursor(r)
		if err != nil {
			return err
		}
		curs = append(curs, c)
	}
	curs = append(curs, &sortMemCursor{s: s})
	return mergeSortCursors(ctx, curs, true, func(k, v []byte, tomb bool, seq uint64) error {
		return fn(k, v)
	})
}

// mergePass merges consecutive groups of fanIn runs into one run each,
// keeping sequences and tombstones (dropping tombstones only in the group
// holding the oldest run).
func (s *Sorter) mergePass(ctx context.Context) error {
	fan := max(s.fanIn, 2)
	var out []sortRun
	for i := 0; i < len(s.runs); i += fan {
		group := s.runs[i:min(i+fan, len(s.runs))]
		if len(group) == 1 {
			out = append(out, group[0])
			continue
		}
		r, err := s.mergeGroup(ctx, group, i == 0)
		if err != nil {
			return err
		}
		out = append(out, r)
		for _, g := range group {
			os.Remove(g.path)
		}
	}
	s.runs = out
	return nil
}

func (s *Sorter) mergeGroup(ctx context.Context, group []sortRun, dropTombs bool) (sortRun, error) {
	curs := make([]sortCursor, 0, len(group))
	defer func() {
		for _, c := range curs {
			c.close()
		}
	}()
	for _, r := range group {
		c, err := openSortRunCursor(r)
		if err != nil {
			return sortRun{}, err
		}
		curs = append(curs, c)
	}
	w, err := s.createRun()
	if err != nil {
		return sortRun{}, err
	}
	err = mergeSortCursors(ctx, curs, dropTombs, w.write)
	if err != nil {
		w.abort()
		return sortRun{}, err
	}
	r, err := w.close()
	if err == nil {
		s.stats.Merges++
	}
	return r, err
}

// Close removes the run files and the spill dir and drops the buffer. It is
// safe to call more than once.
func (s *Sorter) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	s.runs = nil
	s.recs, s.used, s.free, s.held = nil, nil, nil, 0
	s.bw = nil
	if err := os.RemoveAll(s.dir); err != nil {
		return fmt.Errorf("extsort: remove spill dir: %w", err)
	}
	return nil
}

// sortCursor walks one sorted source, presenting each key once, with its newest
// entry for that source.
type sortCursor interface {
	next() bool // advance; false at the end or on error
	err() error
	cur() (k, v []byte, tomb bool, seq uint64)
	close()
}

// sortMemCursor walks the sorted in-memory buffer, yielding the last entry of
// each run of equal keys.
type sortMemCursor struct {
	s    *Sorter
	i    int
	k, v []byte
	tomb bool
	sq   uint64
}

func (c *sortMemCursor) next() bool {
	recs := c.s.recs
	if c.i >= len(recs) {
		return false
	}
	j := c.i
	k := c.s.key(&recs[j])
	for j+1 < len(recs) && compareSortKeys(c.s, &recs[j+1], &recs[j]) == 0 {
		j++
	}
	r := &recs[j]
	c.k, c.v, c.tomb, c.sq = k, c.s.value(r), r.vlen < 0, r.seq
	c.i = j + 1
	return true
}

func (c *sortMemCursor) err() error                          { return nil }
func (c *sortMemCursor) cur() ([]byte, []byte, bool, uint64) { return c.k, c.v, c.tomb, c.sq }
func (c *sortMemCursor) close()                              {}

// sortRunCursor reads a run file back.
type sortRunCursor struct {
	run  sortRun
	f    *os.File
	r    *bufio.Reader
	size int64 // the file's size: no record can be longer
	left int64
	buf  []byte
	prev []byte // the previous key: keys must strictly increase
	k, v []byte
	tomb bool
	sq   uint64
	e    error
}

func openSortRunCursor(run sortRun) (*sortRunCursor, error) {
	f, err := os.Open(run.path)
	if err != nil {
		return nil, fmt.Errorf("extsort: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("extsort: %w", err)
	}
	c := &sortRunCursor{run: run, f: f, r: bufio.NewReaderSize(f, sortMergeReadBuf), size: st.Size(), left: run.records, buf: make([]byte, 0, 64)}
	var magic [len(sortRunMagic)]byte
	if _, err := io.ReadFull(c.r, magic[:]); err != nil || string(magic[:]) != sortRunMagic {
		f.Close()
		return nil, fmt.Errorf("extsort: %s is not a run file", run.path)
	}
	return c, nil
}

func (c *sortRunCursor) next() bool {
	if c.e != nil || c.left == 0 {
		return false
	}
	fail := func(err error) bool {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		c.e = fmt.Errorf("extsort: read %s (%d records short): %w", c.run.path, c.left, err)
		return false
	}
	klen, err := binary.ReadUvarint(c.r)
	if err != nil {
		return fail(err)
	}
	vl, err := binary.ReadUvarint(c.r)
	if err != nil {
		return fail(err)
	}
	seq, err := binary.ReadUvarint(c.r)
	if err != nil {
		return fail(err)
	}
	if klen > sortMaxEntryBytes || vl > sortMaxEntryBytes+1 || int64(klen)+int64(vl) > c.size {
		return fail(errors.New("corrupt record length"))
	}
	vlen := uint64(0)
	if vl > 0 {
		vlen = vl - 1
	}
	n := int(klen + vlen)
	if cap(c.buf) < n {
		c.buf = make([]byte, n, max(n, 2*cap(c.buf)))
	}
	c.buf = c.buf[:n]
	if _, err := io.ReadFull(c.r, c.buf); err != nil {
		return fail(err)
	}
	if c.run.records-c.left > 0 && bytes.Compare(c.buf[:klen], c.prev) <= 0 {
		return fail(errors.New("corrupt: keys out of order"))
	}
	c.prev = append(c.prev[:0], c.buf[:klen]...)
	c.k = c.buf[:klen:klen]
	c.tomb = vl == 0
	if c.tomb {
		c.v = nil
	} else {
		c.v = c.buf[klen:n:n]
	}
	c.sq = seq
	c.left--
	return true
}

func (c *sortRunCursor) err() error                          { return c.e }
func (c *sortRunCursor) cur() ([]byte, []byte, bool, uint64) { return c.k, c.v, c.tomb, c.sq }
func (c *sortRunCursor) close() {
	if c.f != nil {
		c.f.Close()
		c.f = nil
	}
}

// sortCursorHeap orders cursors by current key, then newest sequence first.
type sortCursorHeap []sortCursor

func (h sortCursorHeap) Len() int { return len(h) }
func (h sortCursorHeap) Less(i, j int) bool {
	ki, _, _, si := h[i].cur()
	kj, _, _, sj := h[j].cur()
	if c := bytes.Compare(ki, kj); c != 0 {
		return c < 0
	}
	return si > sj
}
func (h sortCursorHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *sortCursorHeap) Push(x any)   { *h = append(*h, x.(sortCursor)) }
func (h *sortCursorHeap) Pop() any {
	old := *h
	c := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return c
}

// mergeSortCursors k-way merges sorted sources, each holding a key at most once,
// emitting each key once with its highest-sequence entry; tombstones are
// dropped when dropTombs is set, else emitted.
func mergeSortCursors(ctx context.Context, curs []sortCursor, dropTombs bool, emit func(k, v []byte, tomb bool, seq uint64) error) error {
	h := make(sortCursorHeap, 0, len(curs))
	for _, c := range curs {
		if c.next() {
			h = append(h, c)
		} else if err := c.err(); err != nil {
			return err
		}
	}
	heap.Init(&h)
	var n int
	for h.Len() > 0 {
		if n++; n&0xffff == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		top := heap.Pop(&h).(sortCursor)
		k, v, tomb, seq := top.cur()
		// Older entries of the same key in other sources are superseded.
		for h.Len() > 0 {
			c := h[0]
			ck, _, _, _ := c.cur()
			if !bytes.Equal(ck, k) {
				break
			}
			if c.next() {
				heap.Fix(&h, 0)
			} else {
				if err := c.err(); err != nil {
					return err
				}
				heap.Pop(&h)
			}
		}
		if !tomb || !dropTombs {
			if err := emit(k, v, tomb, seq); err != nil {
				return err
			}
		}
		// top's slices stay valid until it advances, after emit.
		if top.next() {
			heap.Push(&h, top)
		} else if err := top.err(); err != nil {
			return err
		}
	}
	return nil
}
