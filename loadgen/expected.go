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

// PartitionCount is one partition's generated record count.
type PartitionCount struct {
	Partition int32 `json:"partition"`
	Records   int64 `json:"records"`
}

// maxExpectKeys bounds the key space Expect will track (8 bytes per key).
const maxExpectKeys = 400_000_000

// Expect derives, from the spec alone, the final state of every partition's
// store: the last write per key wins and a tombstone removes the key.
func Expect(spec Spec) ([]PartitionState, FillTotals, error) {
	g, err := NewGenerator(spec)
	if err != nil {
		return nil, FillTotals{}, err
	}
	if spec.Keys > maxExpectKeys {
		return nil, FillTotals{}, fmt.Errorf("keys: %d is more than the %d keys expected state can be derived for", spec.Keys, maxExpectKeys)
	}
	last := make([]int64, spec.Keys) // last record index + 1 per key; 0 = never written
	tot := FillTotals{PerPart: make([]PartitionCount, spec.Partitions)}
	for p := range tot.PerPart {
		tot.PerPart[p].Partition = int32(p)
	}
	for {
		r, ok := g.Next()
		if !ok {
			break
		}
		last[r.KeyID] = r.Index + 1
		tot.Records++
		tot.Bytes += int64(len(r.Key) + len(r.Value))
		tot.PerPart[r.Partition].Records++
		if r.Value == nil {
			tot.Tombstones++
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
	return states, tot, nil
}
