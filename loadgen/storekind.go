package loadgen

import (
	"encoding/binary"
	"slices"
	"strings"

	"github.com/restorebench/restorebench/internal/registry"
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
)

func init() {
	registerFillKind(FillKindDef{Kind: KindKeyValue, Order: 10})
	registerFillKind(FillKindDef{Kind: KindTimestampedKeyValue, Order: 20, Timed: true, TimestampedValue: true,
		validate: func(s Spec) error {
			if s.WindowSizeMs != 0 || s.RetentionMs != 0 {
				return specErr("window_size", "windows and retention are set only for window and session stores")
			}
			return nil
		}})
}

// FillKindDef is what a fill needs of a store kind: how its records look
// and what state a restore of them ends with. Each kind registers its own
// (registerFillKind) from the file that defines it, beside the case's half
// of it in package config (config.StoreKindDef).
type FillKindDef struct {
	// Kind is the kind's name, what a spec's store_kind says.
	Kind StoreKind
	// Order places the kind in StoreKinds (messages listing them): lower
	// first, one kind an order.
	Order int
	// Timed says the fill sets its records' event timestamps (Spec's
	// time_range); a kind without it takes the producer's clock.
	Timed bool
	// Segmented says its store is segmented by time and expires by a
	// retention (window and session stores).
	Segmented bool
	// TimestampedValue says the store keeps each value behind its record's
	// 8-byte timestamp (AppendTimestamped) though the changelog holds the
	// plain value.
	TimestampedValue bool
	// KeySuffix is the bytes its changelog key adds to the record key.
	KeySuffix int
	// StampsAhead says a record's timestamp can lie up to a window
	// (WindowSizeMs) after its event time (a session's end).
	StampsAhead bool
	// validate checks a timed spec's kind settings (windows, retention)
	// once its event step is known positive; nil: nothing more to check.
	validate func(s Spec) error
	// stamp sets what the kind adds to record r once its event time is
	// set (a window's start, a session, the changelog key); nil: nothing.
	stamp func(g *Generator, r *Record)
	// tracker follows the applied records for the expected state; nil:
	// the last write per key wins (a key-value store's), which also makes
	// the store one that lookups by key can read (NewReadChecker).
	tracker func(s Spec) tracker
}

// fillKinds is the registry, by Order; a clash of name or order panics.
var fillKinds = registry.Ordered[FillKindDef]{What: "loadgen: store kind",
	Order: func(d FillKindDef) int { return d.Order },
	Name:  func(d FillKindDef) string { return string(d.Kind) },
	Keys:  func(d FillKindDef) []string { return []string{string(d.Kind)} }}

// StoreKinds lists the kinds a fill can write, in the registry's order.
// It is complete once package loadgen is initialized.
var StoreKinds []StoreKind

// registerFillKind adds d to the registry and StoreKinds. It panics, when
// the program starts, on a def without a name or one whose name or order
// another def has.
func registerFillKind(d FillKindDef) {
	if d.Kind == "" {
		panic("loadgen: store kind registered without a name")
	}
	i := fillKinds.Add(d)
	StoreKinds = slices.Insert(slices.Clip(StoreKinds), i, d.Kind)
}

// FillKindOf returns the registered def of kind k ("" is key-value).
func FillKindOf(k StoreKind) (FillKindDef, bool) {
	k = k.Of()
	for _, d := range fillKinds.All() {
		if d.Kind == k {
			return d, true
		}
	}
	return FillKindDef{}, false
}

// def is k's registered def; the zero def (a key-value store's facets)
// for an unknown kind, which validation refuses.
func (k StoreKind) def() FillKindDef {
	d, _ := FillKindOf(k)
	return d
}

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
func (k StoreKind) Timed() bool { return k.def().Timed }

// Segmented says whether the kind's store is segmented by time and
// expires by a retention: window and session stores.
func (k StoreKind) Segmented() bool { return k.def().Segmented }

// TimestampedValue says whether the kind's store keeps each value behind
// its 8-byte timestamp (a timestamped key-value store).
func (k StoreKind) TimestampedValue() bool { return k.def().TimestampedValue }

// StampsAhead says whether the kind's records can be stamped up to a
// window after their event time (a session store's, with its session's
// end).
func (k StoreKind) StampsAhead() bool { return k.def().StampsAhead }

// EventTimeBase is the event time of a timed fill's first record,
// 2026-01-01T00:00:00Z in milliseconds: fixed, so a fill is a pure function
// of its spec.
const EventTimeBase int64 = 1_767_225_600_000

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

// liveWindows bounds the windows a window fill's expected state holds per
// key at once: those within the retention, plus the one being written (a
// session fill's sessions, one per window and key, likewise).
func (s Spec) liveWindows() int64 { return s.RetentionMs/s.WindowSizeMs + 2 }

// validateKind checks the store kind's settings: set only for the kinds
// that read them, and bounded.
func (s Spec) validateKind() error {
	d, ok := FillKindOf(s.StoreKind)
	switch {
	case !ok:
		return specErr("store_kind", "%q is not one of %s", s.StoreKind, kindList())
	case !d.Timed:
		if s.EventStepMicros != 0 || s.WindowSizeMs != 0 || s.RetentionMs != 0 {
			return specErr("time_range", "event times, windows and retention are set only for timestamped, window, session and versioned stores")
		}
		return nil
	case s.EventStepMicros <= 0:
		return specErr("time_range", "must be long enough for a positive step between records (%d µs)", s.EventStepMicros)
	case d.validate != nil:
		return d.validate(s)
	}
	return nil
}

// validateWindows checks a segmented fill's windows and retention; what
// names the store in a retention shorter than a window, and the bound on
// the windows whose expected state is held.
func (s Spec) validateWindows(short string) error {
	switch {
	case s.WindowSizeMs <= 0:
		return specErr("window_size", "%d ms must be positive", s.WindowSizeMs)
	case s.RetentionMs < s.WindowSizeMs:
		return specErr("retention", "%d ms is shorter than the window size (%d ms)%s", s.RetentionMs, s.WindowSizeMs, short)
	case s.Keys > maxExpectKeys/s.liveWindows():
		return specErr("keys", "%d keys × %d windows within the retention is more than the %d windows whose expected state can be derived in memory",
			s.Keys, s.liveWindows(), maxExpectKeys)
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
	key := float64(s.KeyWidth() + s.StoreKind.def().KeySuffix)
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
