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
// alone: the state a correct restore ends with, the record counts, and the
// landmarks a topic holding the fill must show.
type Derived struct {
	Expected  []PartitionState
	Totals    FillTotals
	Landmarks Landmarks
}

// Landmarks are records a topic holding a fill has at known offsets. A fill
// writes each partition's records in generator order to a fresh topic, so
// the record at offset k of partition p is the k-th generated record of p:
// Head[p] are the generator indexes of p's first records (offsets 0, 1, ...)
// and Tail[p] those of its last ones (offsets count-len(Tail[p]) .. count-1).
// Compaction may remove some of them, never the newest record of a key.
type Landmarks struct {
	Head [][]int64
	Tail [][]int64
}

// LandmarkWindow is how many leading and trailing records per partition
// Landmarks keeps: enough that some survive compaction.
const LandmarkWindow = 64

// IndexAt returns the generator index of the record at offset o of
// partition p holding count records, when o is a landmark.
func (m Landmarks) IndexAt(p int32, o, count int64) (int64, bool) {
	if head := m.Head[p]; o >= 0 && o < int64(len(head)) {
		return head[o], true
	}
	tail := m.Tail[p]
	if i := o - (count - int64(len(tail))); i >= 0 && i < int64(len(tail)) {
		return tail[i], true
	}
	return 0, false
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
// records: those at offsets applied(partition, offset) accepts, in order.
// (A store whose offsets fell below a deleted log prefix and that Kafka
// Streams kept, under at_least_once, holds its old records plus the log
// from its new start, but not the records deleted in between.)
func DeriveApplied(spec Spec, applied func(p int32, offset int64) bool) (Derived, error) {
	g, err := NewGenerator(spec)
	if err != nil {
		return Derived{}, err
	}
	last := make([]int64, spec.Keys) // last record index + 1 per key; 0 = never written
	tot := newFillTotals(spec.Partitions)
	marks := Landmarks{Head: make([][]int64, spec.Partitions), Tail: make([][]int64, spec.Partitions)}
	for {
		r, ok := g.Next()
		if !ok {
			break
		}
		if applied(r.Partition, tot.PerPart[r.Partition].Records) {
			last[r.KeyID] = r.Index + 1 // a record not applied sets nothing
		}
		tot.add(r)
		if h := marks.Head[r.Partition]; len(h) < LandmarkWindow {
			marks.Head[r.Partition] = append(h, r.Index)
		}
		// The tail is a ring of the last LandmarkWindow indexes, put in
		// order below.
		if t := marks.Tail[r.Partition]; len(t) < LandmarkWindow {
			marks.Tail[r.Partition] = append(t, r.Index)
		} else {
			t[(tot.PerPart[r.Partition].Records-1)%LandmarkWindow] = r.Index
		}
	}
	for p, t := range marks.Tail {
		if n := tot.PerPart[p].Records; n > LandmarkWindow {
			// Rotate the ring so the oldest index comes first.
			k := int(n % LandmarkWindow)
			marks.Tail[p] = append(append([]int64{}, t[k:]...), t[:k]...)
		}
	}
	states := make([]PartitionState, spec.Partitions)
	for p := range states {
		states[p].Partition = int32(p)
	}
	for _, idx := range last {
		if idx == 0 {
			continue
		}
		r := g.At(idx - 1)
		if r.Value == nil {
			continue
		}
		st := &states[r.Partition]
		st.Keys++
		st.LiveBytes += int64(len(r.Key) + len(r.Value))
		st.Digest.Add(r.Key, r.Value)
	}
	return Derived{Expected: states, Totals: tot, Landmarks: marks}, nil
}
