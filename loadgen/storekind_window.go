package loadgen

import (
	"encoding/binary"
	"fmt"
)

// KindWindow is a window store's changelog (Stores.persistentWindowStore
// without duplicates): each changelog key is the record key, the window
// start (8 bytes, big-endian) and a sequence number (4 bytes, 0), and a
// restore drops windows older than stream time minus the retention.
const KindWindow StoreKind = "window"

// KindTimestampedWindow is a timestamped window store's changelog
// (Stores.persistentTimestampedWindowStore without duplicates, what every
// DSL windowed count, aggregate and reduce materializes): a window store's
// changelog whose record timestamps matter, as the store keeps each value
// behind its 8-byte timestamp.
const KindTimestampedWindow StoreKind = "timestamped-window"

func init() {
	registerFillKind(windowFillKind(KindWindow, 30, false))
	registerFillKind(windowFillKind(KindTimestampedWindow, 35, true))
}

// windowFillKind is the fill's half of a window store kind: its records,
// and the last write per key and window its restore serves.
func windowFillKind(kind StoreKind, order int, timestamped bool) FillKindDef {
	return FillKindDef{Kind: kind, Order: order, Timed: true, Segmented: true, KeySuffix: windowSuffix, TimestampedValue: timestamped,
		validate: func(s Spec) error { return s.validateWindows(": Kafka Streams refuses such a store") },
		stamp: func(g *Generator, r *Record) {
			r.WindowStart = g.spec.windowStartOf(r.Timestamp)
			g.winBuf = AppendWindowKey(g.winBuf[:0], r.Key, r.WindowStart, 0)
			r.Key = g.winBuf
		},
		// Stream time is the largest window start applied; a window
		// starting at or before stream time − retention is expired.
		tracker: func(s Spec) tracker {
			return newLastWrite(s, 0, func(r Record) int64 { return r.WindowStart }, WindowDigestKey)
		}}
}

// windowSuffix is the bytes a window store's changelog key adds to the
// record key: the window start and the sequence number (Kafka Streams'
// WindowKeySchema.toStoreKeyBinary).
const windowSuffix = 8 + 4

// AppendWindowKey appends a window store's changelog key: key, the window
// start in milliseconds (big-endian) and sequence number seq (big-endian;
// 0 for a store that does not retain duplicates).
func AppendWindowKey(dst, key []byte, windowStart int64, seq uint32) []byte {
	dst = append(dst, key...)
	dst = binary.BigEndian.AppendUint64(dst, uint64(windowStart))
	return binary.BigEndian.AppendUint32(dst, seq)
}

// SplitWindowKey splits a window store's changelog key into the record key
// and the window start; an error when it is too short to be one.
func SplitWindowKey(changelogKey []byte) (key []byte, windowStart int64, err error) {
	n := len(changelogKey) - windowSuffix
	if n < 0 {
		return nil, 0, fmt.Errorf("a %d-byte key is not a window store's changelog key (record key, 8-byte window start, 4-byte sequence number)", len(changelogKey))
	}
	return changelogKey[:n], int64(binary.BigEndian.Uint64(changelogKey[n:])), nil
}

// WindowDigestKey is the key a window store's entry is digested under: the
// record key and the window start, without the sequence number: what
// WindowStore.all() returns as a Windowed key. It shares changelogKey's
// bytes.
func WindowDigestKey(changelogKey []byte) []byte {
	return changelogKey[:max(len(changelogKey)-4, 0)]
}

// windowStartOf is the start of the tumbling window of size
// WindowSizeMs that event time ts falls in.
func (s Spec) windowStartOf(ts int64) int64 { return ts - ts%s.WindowSizeMs }
