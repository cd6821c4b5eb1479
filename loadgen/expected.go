package loadgen

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strconv"
)

// Digest is an order-independent fingerprint of a set of (key, value) pairs:
// the sum, modulo 2^64, of a 64-bit hash of each pair. Equal sets have equal
// digests whatever order they are read in; a changed, missing or extra pair
// changes it. It marshals as a hex string so JSON readers keep all 64 bits.
type Digest uint64

// Add folds one live (key, value) pair into the digest.
func (d *Digest) Add(key, value []byte) { *d += Digest(EntryHash(key, value)) }

// MarshalJSON writes the digest as a 16-digit hex string.
func (d Digest) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// UnmarshalJSON reads the hex string MarshalJSON writes.
func (d *Digest) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := strconv.ParseUint(s, 16, 64)
	if err != nil {
		return fmt.Errorf("digest %q: %w", s, err)
	}
	*d = Digest(v)
	return nil
}

func (d Digest) String() string { return fmt.Sprintf("%016x", uint64(d)) }

// EntryHash hashes one pair: FNV-1a over the key length, key and value,
// finished with a splitmix64 avalanche so sums of hashes do not cancel.
func EntryHash(key, value []byte) uint64 {
	h := fnv.New64a()
	var n [4]byte
	n[0], n[1], n[2], n[3] = byte(len(key)>>24), byte(len(key)>>16), byte(len(key)>>8), byte(len(key))
	h.Write(n[:])
	h.Write(key)
	h.Write(value)
	z := h.Sum64()
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// PartitionState is what one store must hold after a correct restore.
type PartitionState struct {
	Partition int32  `json:"partition"`
	Keys      int64  `json:"keys"`
	LiveBytes int64  `json:"live_bytes"` // key+value bytes of live entries
	Digest    Digest `json:"digest"`
}

// FillTotals counts what a Spec generates.
type FillTotals struct {
	Records    int64            `json:"records"`
	Tombstones int64            `json:"tombstones"`
	Bytes      int64            `json:"bytes"` // key+value bytes of all records
	PerPart    []PartitionCount `json:"per_partition"`
}

// newFillTotals are the totals of no record yet, over partitions partitions.
func newFillTotals(partitions int32) FillTotals {
	tot := FillTotals{PerPart: make([]PartitionCount, partitions)}
	for p := range tot.PerPart {
		tot.PerPart[p].Partition = int32(p)
	}
	return tot
}

// add counts record r.
func (t *FillTotals) add(r Record) {
	t.Records++
	t.Bytes += int64(len(r.Key) + len(r.Value))
	t.PerPart[r.Partition].Records++
	if r.Value == nil {
		t.Tombstones++
	}
}

// PartitionCount is one partition's generated record count.
type PartitionCount struct {
	Partition int32 `json:"partition"`
	Records   int64 `json:"records"`
}

// maxExpectKeys bounds the key space Expect will track (8 bytes per key).
const maxExpectKeys = 400_000_000

// Derived is what a spec determines about its fill, computed from the spec
// alone: the state a correct restore ends with, the record counts, the
// shape of the log and the landmarks a topic holding the fill must show.
type Derived struct {
	Expected  []PartitionState
	Totals    FillTotals
	Log       LogShape
	Landmarks Landmarks
	// HotRecords are the committed records whose key is among the
	// HotKeyWindow records of its partition before it (HotKeys): how
	// skewed the fill's keys are, as a restore meets them.
	HotRecords int64
}

// LogShape is what a fill leaves in the log beyond its records: for a
// plain fill only its end offsets (one offset per record); a transactional
// fill's records of aborted transactions and markers take offsets too.
type LogShape struct {
	// Ends are the partitions' log end offsets once the fill is written.
	Ends []int64 `json:"ends"`
	// Transactions and AbortedTransactions count a transactional fill's
	// transactions, all and aborted.
	Transactions        int64 `json:"transactions"`
	AbortedTransactions int64 `json:"aborted_transactions"`
	// AbortedRecords and AbortedBytes (key+value) are what the aborted
	// transactions wrote: in the log, never in the expected state.
	AbortedRecords int64 `json:"aborted_records"`
	AbortedBytes   int64 `json:"aborted_bytes"`
	// Markers counts the transaction markers (control records), one per
	// transaction and partition it wrote to.
	Markers int64 `json:"markers"`
}

// Offsets is the number of offsets the fill takes in all partitions.
func (l LogShape) Offsets() int64 {
	var n int64
	for _, e := range l.Ends {
		n += e
	}
	return n
}

// SlotKind says what a fill wrote at one offset of a partition.
type SlotKind uint8

const (
	// SlotRecord is a record of the fill's generator (plain or committed).
	SlotRecord SlotKind = iota
	// SlotAborted is a record of an aborted transaction (AbortedRecordAt).
	SlotAborted
	// SlotCommit and SlotAbort are a transaction's markers.
	SlotCommit
	SlotAbort
)

// Slot is what a fill wrote at one offset: Index is the record's generator
// index (SlotRecord, SlotAborted) or the transaction's (markers).
type Slot struct {
	Kind  SlotKind
	Index int64
}

// Landmarks are what a topic holding a fill has at known offsets. A fill
// writes each partition's records (and markers) in Stream order to a fresh
// topic, so the offset of every write is known: Head[p] are the slots of
// p's first offsets (0, 1, ...) and Tail[p] those of its last ones
// (end-len(Tail[p]) .. end-1). Compaction may remove some of them, never
// the newest record of a key.
type Landmarks struct {
	Head [][]Slot
	Tail [][]Slot
}

// LandmarkWindow is how many leading and trailing offsets per partition
// Landmarks keeps: enough that some survive compaction.
const LandmarkWindow = 64

// At returns what the fill wrote at offset o of partition p, whose log
// ends at end, when o is a landmark.
func (m Landmarks) At(p int32, o, end int64) (Slot, bool) {
	if head := m.Head[p]; o >= 0 && o < int64(len(head)) {
		return head[o], true
	}
	tail := m.Tail[p]
	if i := o - (end - int64(len(tail))); i >= 0 && i < int64(len(tail)) {
		return tail[i], true
	}
	return Slot{}, false
}

// Expect derives, from the spec alone, the final state of every partition's
// store: the last write per key wins and a tombstone removes the key.
func Expect(spec Spec) ([]PartitionState, FillTotals, error) {
	d, err := Derive(spec)
	return d.Expected, d.Totals, err
}

// Derive computes everything the spec determines about its fill (see
// Derived) in one pass over the generated records.
func Derive(spec Spec) (Derived, error) { return DeriveFrom(spec, nil) }

// DeriveFrom is Derive for a log whose partitions now start at the given
// offsets (records below them deleted, by retention or DeleteRecords): the
// expected state is that of the records left; totals and landmarks still
// describe everything the fill wrote.
func DeriveFrom(spec Spec, starts map[int32]int64) (Derived, error) {
	return DeriveApplied(spec, func(p int32, offset int64) bool { return offset >= starts[p] })
}

// DeriveApplied is Derive for a store that applied only some of the log's
// committed records: those at offsets applied(partition, offset) accepts,
// in order. (A store whose offsets fell below a deleted log prefix and that
// Kafka Streams kept, under at_least_once, holds its old records plus the
// log from its new start, but not the records deleted in between.) The
// records of aborted transactions are never applied: the expected state is
// what a read_committed restore ends with.
func DeriveApplied(spec Spec, applied func(p int32, offset int64) bool) (Derived, error) {
	st, err := NewStream(spec)
	if err != nil {
		return Derived{}, err
	}
	d := newDeriver(spec, applied)
	for {
		w, ok := st.Next()
		if !ok {
			break
		}
		d.write(w)
	}
	d.marks.rotateTails(d.log.Ends)
	states, err := d.states()
	return Derived{Expected: states, Totals: d.tot, Log: d.log, Landmarks: d.marks, HotRecords: d.hot.Hot}, err
}

// lastWrites follows a key-value fill's writes as DeriveApplied does, every
// committed record applied, and returns per key the index + 1 of its last
// write (0: never written).
func lastWrites(spec Spec) ([]int64, error) {
	st, err := NewStream(spec)
	if err != nil {
		return nil, err
	}
	d := newDeriver(spec, func(int32, int64) bool { return true })
	for {
		w, ok := st.Next()
		if !ok {
			return d.last, nil
		}
		d.write(w)
	}
}

// deriver follows a fill's writes (DeriveApplied): the last committed
// record applied per key, the totals, the log's shape and its landmarks.
type deriver struct {
	spec    Spec
	applied func(p int32, offset int64) bool
	last    []int64 // last record index + 1 per key; 0 = never written
	kind    tracker // the store kind's tracker, instead of last (FillKindDef.tracker)
	tot     FillTotals
	hot     HotKeys
	log     LogShape
	marks   Landmarks
	touched []int32 // partitions the open transaction wrote to
	inTxn   []bool  // by partition: in touched
}

func newDeriver(spec Spec, applied func(p int32, offset int64) bool) *deriver {
	d := &deriver{
		spec: spec, applied: applied, tot: newFillTotals(spec.Partitions),
		log:   LogShape{Ends: make([]int64, spec.Partitions)},
		marks: Landmarks{Head: make([][]Slot, spec.Partitions), Tail: make([][]Slot, spec.Partitions)},
		inTxn: make([]bool, spec.Partitions),
	}
	if t := spec.StoreKind.def().tracker; t != nil {
		d.kind = t(spec)
	} else {
		d.last = make([]int64, spec.Keys)
	}
	return d
}

// write follows one write: a record takes its partition's next offset; the
// end of a transaction puts a marker in each partition it wrote to.
func (d *deriver) write(w Write) {
	if w.End {
		d.endTxn(w)
		return
	}
	r := w.Record
	p := r.Partition
	slot := Slot{Kind: SlotRecord, Index: r.Index}
	if w.Aborted {
		slot.Kind = SlotAborted
		d.log.AbortedRecords++
		d.log.AbortedBytes += int64(len(r.Key) + len(r.Value))
	} else {
		if d.applied(p, d.log.Ends[p]) { // a record not applied sets nothing
			if d.kind != nil {
				d.kind.set(r)
			} else {
				d.last[r.KeyID] = r.Index + 1
			}
		}
		d.tot.add(r)
		d.hot.Add(p, r.Key)
	}
	d.mark(p, slot)
	if d.spec.Transactional && !d.inTxn[p] {
		d.inTxn[p] = true
		d.touched = append(d.touched, p)
	}
}

// endTxn writes transaction w.Txn's marker to every partition it wrote to.
func (d *deriver) endTxn(w Write) {
	kind := SlotCommit
	if w.Aborted {
		kind = SlotAbort
		d.log.AbortedTransactions++
	}
	d.log.Transactions++
	for _, p := range d.touched {
		d.mark(p, Slot{Kind: kind, Index: w.Txn})
		d.inTxn[p] = false
		d.log.Markers++
	}
	d.touched = d.touched[:0]
}

// mark records slot s at partition p's next offset and moves past it.
func (d *deriver) mark(p int32, s Slot) {
	o := d.log.Ends[p]
	if h := d.marks.Head[p]; len(h) < LandmarkWindow {
		d.marks.Head[p] = append(h, s)
	}
	// The tail is a ring of the last LandmarkWindow slots, put in order
	// by rotateTails.
	if t := d.marks.Tail[p]; len(t) < LandmarkWindow {
		d.marks.Tail[p] = append(t, s)
	} else {
		t[o%LandmarkWindow] = s
	}
	d.log.Ends[p]++
}

// rotateTails turns each tail ring, of a partition ending at ends[p], so
// its oldest slot comes first.
func (m Landmarks) rotateTails(ends []int64) {
	for p, t := range m.Tail {
		if n := ends[p]; n > LandmarkWindow {
			k := int(n % LandmarkWindow)
			m.Tail[p] = append(append([]Slot{}, t[k:]...), t[:k]...)
		}
	}
}

// states is every partition's expected state from the last record
// applied per key.
func (d *deriver) states() ([]PartitionState, error) {
	g, err := NewGenerator(d.spec)
	if err != nil {
		return nil, err
	}
	states := make([]PartitionState, d.spec.Partitions)
	for p := range states {
		states[p].Partition = int32(p)
	}
	if d.kind != nil {
		d.kind.states(g, states)
		return states, nil
	}
	return d.keyValueStates(states)
}
