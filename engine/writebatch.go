package engine

import "encoding/binary"

// RocksDB's serialized WriteBatch (its "rep", db/write_batch.cc): a
// 12-byte header, the sequence number (8 bytes, little-endian, set by the
// write) and the record count (4 bytes), then each record of the default
// column family as a type byte, the varint32-prefixed key and, for a put,
// the varint32-prefixed value.
const (
	batchHeader     = 12
	batchTypeDelete = 0x0 // kTypeDeletion
	batchTypePut    = 0x1 // kTypeValue
)

// appendBatchRep appends the serialized WriteBatch of entries to dst: a
// put of each live entry, a delete of each tombstone (nil value), in
// order. It is byte for byte what WriteBatch.Put and WriteBatch.Delete
// build record by record, made in Go memory so a poll's batch crosses
// into RocksDB in one call instead of one per record.
func appendBatchRep(dst []byte, entries []Entry) []byte {
	n := batchHeader
	for _, e := range entries {
		n += 1 + binary.MaxVarintLen32 + len(e.Key)
		if e.Value != nil {
			n += binary.MaxVarintLen32 + len(e.Value)
		}
	}
	if cap(dst)-len(dst) < n {
		grown := make([]byte, len(dst), len(dst)+n)
		copy(grown, dst)
		dst = grown
	}
	dst = binary.LittleEndian.AppendUint64(dst, 0)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(entries)))
	for _, e := range entries {
		if e.Value == nil {
			dst = append(dst, batchTypeDelete)
			dst = binary.AppendUvarint(dst, uint64(len(e.Key)))
			dst = append(dst, e.Key...)
			continue
		}
		dst = append(dst, batchTypePut)
		dst = binary.AppendUvarint(dst, uint64(len(e.Key)))
		dst = append(dst, e.Key...)
		dst = binary.AppendUvarint(dst, uint64(len(e.Value)))
		dst = append(dst, e.Value...)
	}
	return dst
}
