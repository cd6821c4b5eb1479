package engine

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/linxGnu/grocksdb"
)

// TestBatchRepMatchesWriteBatch: the batch Write hands RocksDB is byte for
// byte the one WriteBatch.Put and WriteBatch.Delete build record by
// record: puts, tombstones, empty values, empty keys, and keys and values
// long enough for multi-byte length prefixes, in order, with repeats.
func TestBatchRepMatchesWriteBatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 32))
	sizes := []int{0, 1, 8, 16, 127, 128, 300, 16384, 70000}
	var entries []Entry
	for i := range 2000 {
		key := make([]byte, sizes[rng.IntN(len(sizes))])
		for j := range key {
			key[j] = byte(rng.Uint32())
		}
		if i%50 == 49 {
			key = entries[rng.IntN(len(entries))].Key // the same key again
		}
		e := Entry{Key: key}
		switch rng.IntN(4) {
		case 0: // a tombstone
		case 1:
			e.Value = []byte{} // a live key with an empty value
		default:
			e.Value = make([]byte, sizes[rng.IntN(len(sizes))])
			for j := range e.Value {
				e.Value[j] = byte(rng.Uint32())
			}
		}
		entries = append(entries, e)
	}
	for _, n := range []int{0, 1, 2, 1000, len(entries)} {
		wb := grocksdb.NewWriteBatch()
		for _, e := range entries[:n] {
			if e.Value == nil {
				wb.Delete(e.Key)
			} else {
				wb.Put(e.Key, e.Value)
			}
		}
		want := append([]byte(nil), wb.Data()...)
		count := wb.Count()
		wb.Destroy()
		got := appendBatchRep([]byte("reused"), entries[:n])
		if !bytes.Equal(got[:6], []byte("reused")) || !bytes.Equal(got[6:], want) {
			t.Fatalf("%d entries: the serialized batch differs from WriteBatch's (%d bytes against %d)", n, len(got)-6, len(want))
		}
		from := grocksdb.WriteBatchFrom(got[6:])
		if from.Count() != count || count != n {
			t.Errorf("%d entries: WriteBatchFrom counts %d, WriteBatch %d", n, from.Count(), count)
		}
		from.Destroy()
	}
}
