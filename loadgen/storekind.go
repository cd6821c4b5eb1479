package loadgen

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
)

// StoreKind is the Kafka Streams store kind whose changelog a fill writes:
// it decides the records' keys, their timestamps and the state a restore
// ends with.
type StoreKind string

const (
	// KindKeyValue is a key-value store's changelog (the zero value, ""
	// in a spec, is the same): key → value, the last write wins.
	KindKeyValue StoreKind = "key-value"
	// KindTimestampedKeyValue is a timestamped key-value store's (what
	// every DSL aggregate, count and table materializes): the changelog is
	// a key-value one whose record timestamps matter, as the store keeps
	// each value behind its 8-byte timestamp.
	KindTimestampedKeyValue StoreKind = "timestamped-key-value"
	// KindWindow is a window store's (Stores.persistentWindowStore without
	// duplicates): each changelog key is the record key, the window start
	// (8 bytes, big-endian) and a sequence number (4 bytes, 0), and a
	// restore drops windows older than stream time minus the retention.
	KindWindow StoreKind = "window"
)

// StoreKinds lists the kinds a fill can write.
var StoreKinds = []StoreKind{KindKeyValue, KindTimestampedKeyValue, KindWindow, KindSession, KindVersionedKeyValue}

// Of is the kind a spec's field names: "" is key-value.
func (k StoreKind) Of() StoreKind {
	if k == "" {
		return KindKeyValue
	}
	return k
}

// Timed says whether the kind's records carry event timestamps the fill
// sets (timestamped, window, session and versioned stores); a key-value fill's records take
// the producer's clock, which nothing reads.
func (k StoreKind) Timed() bool { return k.Of() != KindKeyValue }

// EventTimeBase is the event time of a timed fill's first record,
// 2026-01-01T00:00:00Z in milliseconds: fixed, so a fill is a pure function
// of its spec.
const EventTimeBase int64 = 1_767_225_600_000

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

// AppendTimestamped appends a timestamped store's value: the record's
// timestamp (8 bytes, big-endian) and then the value, as Kafka Streams'
// ValueAndTimestampSerializer lays it out in the store.
func AppendTimestamped(dst []byte, timestamp int64, value []byte) []byte {
	dst = binary.BigEndian.AppendUint64(dst, uint64(timestamp))
	return append(dst, value...)
}

// timeOf is record i's event time in a timed spec: EventTimeBase plus i
// event steps, so events arrive in order.
func (s Spec) timeOf(i int64) int64 {
	return EventTimeBase + i*s.EventStepMicros/1000
}

// windowStartOf is the start of the tumbling window of size
// WindowSizeMs that event time ts falls in.
func (s Spec) windowStartOf(ts int64) int64 { return ts - ts%s.WindowSizeMs }

// liveWindows bounds the windows a window fill's expected state holds per
// key at once: those within the retention, plus the one being written (a
// session fill's sessions, one per window and key, likewise).
func (s Spec) liveWindows() int64 { return s.RetentionMs/s.WindowSizeMs + 2 }

// validateKind checks the store kind's settings: set only for the kinds
// that read them, and bounded.
func (s Spec) validateKind() error {
	k := s.StoreKind.Of()
	switch {
	case !slices.Contains(StoreKinds, k):
		return specErr("store_kind", "%q is not one of %s", s.StoreKind, kindList())
	case !k.Timed():
		if s.EventStepMicros != 0 || s.WindowSizeMs != 0 || s.RetentionMs != 0 {
			return specErr("time_range", "event times, windows and retention are set only for timestamped, window, session and versioned stores")
		}
		return nil
	case s.EventStepMicros <= 0:
		return specErr("time_range", "must be long enough for a positive step between records (%d µs)", s.EventStepMicros)
	case k == KindVersionedKeyValue:
		return s.validateVersioned()
	case k == KindTimestampedKeyValue && (s.WindowSizeMs != 0 || s.RetentionMs != 0):
		return specErr("window_size", "windows and retention are set only for window and session stores")
	case !k.Segmented():
		return nil
	case s.WindowSizeMs <= 0:
		return specErr("window_size", "%d ms must be positive", s.WindowSizeMs)
	case s.RetentionMs < s.WindowSizeMs && k == KindWindow:
		return specErr("retention", "%d ms is shorter than the window size (%d ms): Kafka Streams refuses such a store", s.RetentionMs, s.WindowSizeMs)
	case s.RetentionMs < s.WindowSizeMs:
		return specErr("retention", "%d ms is shorter than the window size (%d ms) a session lasts up to: the DSL refuses a session store whose retention is under its inactivity gap plus grace", s.RetentionMs, s.WindowSizeMs)
	case s.Keys > maxExpectKeys/s.liveWindows():
		return specErr("keys", "%d keys × %d windows within the retention is more than the %d windows whose expected state can be derived in memory", s.Keys, s.liveWindows(), maxExpectKeys)
	}
	return nil
}

// EstimatedRecords is how many records the spec writes: exactly its
// Records, or for a size-bounded fill its TargetBytes over a record's mean
// key+value size (the kind's key, the mean value, tombstones counted
// empty); 0 when neither is set.
func (s Spec) EstimatedRecords() int64 {
	if s.Records > 0 {
		return s.Records
	}
	key := float64(keyWidth)
	switch s.StoreKind.Of() {
	case KindWindow:
		key += windowSuffix
	case KindSession:
		key += sessionSuffix
	}
	mean := key + (1-s.TombstoneRatio)*float64(s.ValueMin+s.ValueMax)/2
	if s.TargetBytes <= 0 {
		return 0
	}
	return int64(float64(s.TargetBytes) / mean)
}

// kindList names StoreKinds, comma-separated.
func kindList() string {
	names := make([]string, len(StoreKinds))
	for i, k := range StoreKinds {
		names[i] = string(k)
	}
	return strings.Join(names, ", ")
}
