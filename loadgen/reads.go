package loadgen

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// ReadVerdict is what a lookup's answer was, against the fill.
type ReadVerdict uint8

const (
	// ReadCorrect is the key's final value (or, for a key the fill leaves
	// deleted or never wrote, no value).
	ReadCorrect ReadVerdict = iota
	// ReadStale is a value the fill wrote to that key before its last
	// write, or no value for a key that has one: what a store that has
	// not restored the key's last write yet answers.
	ReadStale
	// ReadWrong is a value the fill never wrote to that key.
	ReadWrong
)

// ReadChecker checks lookups' answers against a key-value fill: each
// generated value begins with its record's index, so an answer names the
// record it claims to come from, which the generator regenerates. It is
// not safe for concurrent use.
type ReadChecker struct {
	spec Spec
	gen  *Generator
	last []int64 // per key: the index + 1 of its last committed write; 0 = never written
	// followed and deleted are CheckLive's: the appended records followed
	// until now, and the keys they delete.
	followed int64
	deleted  map[int64]bool
}

// NewReadChecker follows the fill's writes once for each key's last one.
// Memory: 8 bytes per key. Window fills and values shorter than the
// 8-byte index cannot be checked.
func NewReadChecker(spec Spec) (*ReadChecker, error) {
	if k := spec.StoreKind.Of(); k.def().tracker != nil {
		return nil, fmt.Errorf("lookups by key read key-value stores, not %s stores", k)
	}
	if spec.ValueMin < 8 {
		return nil, specErr("value_size", "lookups are checked through the record index each value starts with: values need at least 8 bytes, not %d", spec.ValueMin)
	}
	last, err := lastWrites(spec)
	if err != nil {
		return nil, err
	}
	g, err := NewGenerator(spec)
	if err != nil {
		return nil, err
	}
	return &ReadChecker{spec: spec, gen: g, last: last}, nil
}

// Keys is the key space lookups draw from.
func (c *ReadChecker) Keys() int64 { return c.spec.Keys }

// Partitions is how many partitions the fill spread its keys over.
func (c *ReadChecker) Partitions() int32 { return c.spec.Partitions }

// Key is key id's bytes and partition, as the fill wrote them.
func (c *ReadChecker) Key(id int64) ([]byte, int32) {
	k := c.spec.AppendKey(nil, id)
	return k, PartitionFor(k, c.spec.Partitions)
}

// Check judges the answer to a lookup of key id: value (a timestamped
// store's, behind its 8-byte timestamp) when found. behind is, for a stale
// value, how many records of the fill after it the key's last write comes
// (0 for a key not restored yet).
func (c *ReadChecker) Check(id int64, value []byte, found bool) (v ReadVerdict, behind int64) {
	final := c.last[id]
	var want []byte
	if final > 0 {
		want = c.gen.At(final - 1).Value
	}
	if !found {
		if want == nil {
			return ReadCorrect, 0
		}
		return ReadStale, 0 // not restored yet: no older value to count from
	}
	if c.spec.StoreKind.TimestampedValue() {
		if len(value) < 8 {
			return ReadWrong, 0
		}
		value = value[8:]
	}
	if len(value) < 8 {
		return ReadWrong, 0
	}
	idx := int64(binary.LittleEndian.Uint64(value))
	if idx < 0 || idx >= final {
		return ReadWrong, 0 // a later index than the key's last write, or none
	}
	r := c.gen.At(idx)
	if r.KeyID != id || !bytes.Equal(r.Value, value) {
		return ReadWrong, 0
	}
	if idx == final-1 {
		return ReadCorrect, 0
	}
	return ReadStale, final - 1 - idx
}
