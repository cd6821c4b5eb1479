package engine

import (
	"encoding/binary"
	"fmt"
	"math"
)

// The model's layout of a versioned store in its one RocksDB instance, as
// Kafka Streams' LogicalKeyValueSegments lays out its logical segments:
// every row's key is an 8-byte big-endian segment id and the record key;
// the latest value store is the reserved segment -1 (so its rows sort
// last), each row the version's validFrom (8 bytes) and value, as
// RocksDBVersionedStore.LatestValueFormatter writes it. A segment row
// holds the key's older versions whose validTo falls in the segment, in
// the model's own format (Kafka Streams' RocksDBVersionedStoreSegmentValueFormatter
// is more compact; the writes are the same ones, of about the same size):
// the row's next timestamp (the latest validTo) and its oldest validFrom,
// then per version, oldest first, validFrom, validTo, the value's length
// (-1 for a tombstone's null version) and the value.

// latestSegment is the latest value store's reserved segment id.
const latestSegment int64 = -1

// rowHeader is a segment row's next and min timestamps.
const rowHeader = 16

// versionHeader is a version's validFrom, validTo and value length.
const versionHeader = 8 + 8 + 4

// segmentKey is key's row key in segment seg.
func segmentKey(dst []byte, seg int64, key []byte) []byte {
	dst = binary.BigEndian.AppendUint64(dst, uint64(seg))
	return append(dst, key...)
}

// segmentPrefix is the first row key of segment seg.
func segmentPrefix(seg int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(seg)) }

// latestRow is the latest value store's row of a version.
func latestRow(validFrom int64, value []byte) []byte {
	return append(binary.BigEndian.AppendUint64(make([]byte, 0, 8+len(value)), uint64(validFrom)), value...)
}

// rowNext is a segment row's next timestamp: its latest version's validTo.
func rowNext(row []byte) int64 { return int64(binary.BigEndian.Uint64(row)) }

// appendVersion adds a version (value nil: a null version) as the latest
// of row, which may be nil for a new row.
func appendVersion(row []byte, from, to int64, value []byte) []byte {
	if len(row) < rowHeader {
		row = binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(nil, uint64(to)), uint64(from))
	} else {
		row = append([]byte{}, row...) // rows read back are shared
		binary.BigEndian.PutUint64(row, uint64(to))
	}
	row = binary.BigEndian.AppendUint64(row, uint64(from))
	row = binary.BigEndian.AppendUint64(row, uint64(to))
	n := uint32(math.MaxUint32) // -1: null
	if value != nil {
		n = uint32(len(value))
	}
	row = binary.BigEndian.AppendUint32(row, n)
	return append(row, value...)
}

// eachVersion calls fn for each non-null version of a segment row.
func eachVersion(row []byte, fn func(from, to int64, value []byte) error) error {
	if len(row) < rowHeader {
		return fmt.Errorf("versioned segment row of %d bytes", len(row))
	}
	for b := row[rowHeader:]; len(b) > 0; {
		if len(b) < versionHeader {
			return fmt.Errorf("versioned segment row: %d bytes left, under a version's header", len(b))
		}
		from, to := int64(binary.BigEndian.Uint64(b)), int64(binary.BigEndian.Uint64(b[8:]))
		n := binary.BigEndian.Uint32(b[16:])
		b = b[versionHeader:]
		if n == math.MaxUint32 {
			continue
		}
		if int(n) > len(b) {
			return fmt.Errorf("versioned segment row: a %d-byte value in %d bytes", n, len(b))
		}
		if err := fn(from, to, b[:n]); err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}
