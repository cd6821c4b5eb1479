package loadgen

import (
	"bytes"
	"encoding/binary"
)

// CheckLive judges the answer to a lookup of key id while a write load
// appends the generator's records after the fill (indexes from the fill's
// record count on, as bench.Changer.AppendVia writes them) and up to
// upTo (exclusive) may have been written by the time of the answer. What
// was written by then is not known to the record, so an answer that holds
// a later write of the key than the fill's last is judged correct (the
// load wrote it), one older than the fill's last stale (behind by the
// fill's records, as Check), and one the generator never wrote to that key
// below upTo wrong. No value is correct for a key the fill leaves without
// one or that the load deleted below upTo, and stale otherwise (a store
// that has not restored the key yet). How far a copy lags the writes is
// the changelog offsets it is behind, which the answer's store reports,
// not this. Appended records are followed once, as upTo grows; the keys
// they delete are kept (a map entry each).
func (c *ReadChecker) CheckLive(id int64, value []byte, found bool, upTo int64) (ReadVerdict, int64) {
	c.follow(upTo)
	if !found {
		if c.deleted[id] {
			return ReadCorrect, 0
		}
		return c.Check(id, value, found)
	}
	v := value
	if c.spec.StoreKind.TimestampedValue() && len(v) >= 8 {
		v = v[8:]
	}
	if len(v) < 8 {
		return ReadWrong, 0
	}
	idx := int64(binary.LittleEndian.Uint64(v))
	if idx < c.spec.Records {
		return c.Check(id, value, found)
	}
	if idx >= upTo {
		return ReadWrong, 0 // not written yet
	}
	if r := c.gen.At(idx); r.KeyID != id || !bytes.Equal(r.Value, v) {
		return ReadWrong, 0
	}
	return ReadCorrect, 0
}

// follow notes the keys the load's records below upTo delete.
func (c *ReadChecker) follow(upTo int64) {
	if c.followed < c.spec.Records {
		c.followed = c.spec.Records
	}
	if c.spec.TombstoneRatio == 0 {
		c.followed = max(c.followed, upTo)
		return
	}
	if c.deleted == nil {
		c.deleted = make(map[int64]bool)
	}
	for ; c.followed < upTo; c.followed++ {
		if r := c.gen.At(c.followed); r.Value == nil {
			c.deleted[r.KeyID] = true
		}
	}
}
