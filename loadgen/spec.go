package loadgen

import (
	"fmt"
	"math"
)

// KeyOrder says how record indexes map to keys.
type KeyOrder string

const (
	// KeysUniform picks each record's key uniformly from the key space.
	KeysUniform KeyOrder = "uniform"
	// KeysZipf picks keys with a Zipf(s=1.1) skew: a few keys take most updates,
	// as account balances or user sessions do.
	KeysZipf KeyOrder = "zipf"
	// KeysSequential cycles through the keys in order: key = index mod keys.
	KeysSequential KeyOrder = "sequential"
)

// Spec is everything that determines a fill. Two fills with equal Specs write
// identical changelogs, which is what lets a run reuse an earlier fill.
type Spec struct {
	// Seed makes the fill reproducible. Default 1.
	Seed uint64 `json:"seed" yaml:"seed"`
	// Records is the number of records to write. Exactly one of Records and
	// TargetBytes is set.
	Records int64 `json:"records,omitempty" yaml:"records"`
	// TargetBytes stops the fill once key+value bytes written reach it.
	TargetBytes int64 `json:"target_bytes,omitempty" yaml:"target_bytes"`
	// Keys is the number of distinct keys. Default 100,000.
	Keys int64 `json:"keys" yaml:"keys"`
	// ValueMin and ValueMax bound each value's size in bytes (uniform between
	// them; equal for fixed-size values). Default 100.
	ValueMin int `json:"value_min" yaml:"value_min"`
	ValueMax int `json:"value_max" yaml:"value_max"`
	// TombstoneRatio is the fraction of records that are deletes (nil value).
	TombstoneRatio float64 `json:"tombstone_ratio" yaml:"tombstone_ratio"`
	// KeyOrder is uniform (default), zipf or sequential.
	KeyOrder KeyOrder `json:"key_order" yaml:"key_order"`
	// KeyBytes is each generated key's width in bytes: "k" and the key id
	// in KeyBytes-1 zero-padded decimal digits (AppendKeyWidth), in
	// [MinKeyBytes, MaxKeyBytes], the keys fitting in those digits. 0 is
	// the default, DefaultKeyBytes, so specs (and manifests, results) from
	// before the setting read as the fills they were.
	KeyBytes int `json:"key_bytes,omitempty" yaml:"key_bytes"`
	// Partitions is the changelog's partition count: one task, one store each.
	Partitions int32 `json:"partitions" yaml:"partitions"`
	// Transactional writes the fill as an exactly-once application writes
	// its changelog: with a transactional producer (Kafka's
	// transactional.id), TransactionRecords records per transaction, each
	// ending in a commit or abort marker in every partition it wrote to.
	// The records and state are those of the plain fill of the same
	// parameters; aborted transactions come on top (see Stream). Default
	// false: a plain idempotent producer.
	Transactional bool `json:"transactional,omitempty" yaml:"transactional"`
	// TransactionRecords is the records per transaction of a transactional
	// fill (the last committed one may hold fewer). Set only with
	// Transactional; the profile's default is DefaultTransactionRecords.
	TransactionRecords int `json:"transaction_records,omitempty" yaml:"transaction_records"`
	// AbortRatio is the share of a transactional fill's transactions that
	// abort, in [0, MaxAbortRatio]: which ones is a pure function of the
	// seed and the transaction's index. Default 0.
	AbortRatio float64 `json:"abort_ratio,omitempty" yaml:"abort_ratio"`
	// StoreKind is the store kind whose changelog the fill writes: "" (a
	// key-value store's, the default), timestamped-key-value, window or
	// versioned-key-value.
	StoreKind StoreKind `json:"store_kind,omitempty" yaml:"store_kind"`
	// EventStepMicros is the event time between consecutive records of a
	// timed kind, in microseconds: record i's timestamp is EventTimeBase
	// plus i steps. 0 for key-value fills.
	EventStepMicros int64 `json:"event_step_us,omitempty" yaml:"-"`
	// WindowSizeMs is a window fill's tumbling window size, milliseconds.
	WindowSizeMs int64 `json:"window_size_ms,omitempty" yaml:"-"`
	// RetentionMs is the window store's retention the fill is written
	// for, milliseconds: its expected state holds the windows that start
	// after the last window start minus the retention. For a versioned
	// fill it is the store's history retention (versionedHistory).
	RetentionMs int64 `json:"retention_ms,omitempty" yaml:"-"`
}

// DefaultTransactionRecords is a transactional fill's records per
// transaction unless told: about what a Kafka Streams application under
// exactly_once_v2 writes to a changelog per commit (commit.interval.ms
// 100 ms) at ten thousand updates a second.
const DefaultTransactionRecords = 1000

// MaxTransactionRecords bounds a transaction's records: a producer holds a
// transaction open until its records are acknowledged, and Kafka aborts one
// that outlives transaction.timeout.ms.
const MaxTransactionRecords = 1_000_000

// MaxAbortRatio bounds AbortRatio: at 0.9 a fill writes nine aborted
// transactions per committed one; closer to 1 it would never end.
const MaxAbortRatio = 0.9

// Bounds and default of Spec.KeyBytes. Generated keys have a fixed width
// ("k" and the id in KeyBytes-1 digits; by default 15), so a key's bytes
// never depend on the key space size: 4 bytes hold 1,000 keys, the fewest a fill worth
// restoring has; 64 bytes is well past the keys applications put in
// state stores (ids, UUIDs as text: 36) and keeps a window or session
// changelog key, with its suffix, under 100 bytes.
const (
	DefaultKeyBytes = 16
	MinKeyBytes     = 4
	MaxKeyBytes     = 64
)

// KeyWidth is the width of the spec's keys in bytes: KeyBytes, or
// DefaultKeyBytes when unset.
func (s Spec) KeyWidth() int {
	if s.KeyBytes == 0 {
		return DefaultKeyBytes
	}
	return s.KeyBytes
}

// AppendKey appends key id's bytes as the spec's fill writes them
// (AppendKeyWidth at its KeyWidth).
func (s Spec) AppendKey(dst []byte, keyID int64) []byte {
	return AppendKeyWidth(dst, keyID, s.KeyWidth())
}

// maxKeysOf is how many keys key_bytes bytes hold, 10^(key_bytes-1), or
// 0 when any int64 count fits (19 digits or more).
func maxKeysOf(keyBytes int) int64 {
	n := int64(1)
	for range keyBytes - 1 {
		if n > math.MaxInt64/10 {
			return 0
		}
		n *= 10
	}
	return n
}

// validateKeyBytes checks KeyBytes: unset, or within its bounds with
// room for every key id in its digits.
func (s Spec) validateKeyBytes() error {
	if s.KeyBytes == 0 {
		return nil
	}
	if s.KeyBytes < MinKeyBytes || s.KeyBytes > MaxKeyBytes {
		return specErr("key_bytes", "%d is not in [%d, %d] (a key is \"k\" and its id in key_bytes-1 digits)", s.KeyBytes, MinKeyBytes, MaxKeyBytes)
	}
	if m := maxKeysOf(s.KeyBytes); m > 0 && s.Keys > m {
		return specErr("key_bytes", "%d-byte keys (\"k\" and %d digits) hold %d keys, not the fill's %d: raise key_bytes or lower keys",
			s.KeyBytes, s.KeyBytes-1, m, s.Keys)
	}
	return nil
}

// DefaultSpec returns the defaults documented on Spec's fields.
func DefaultSpec() Spec {
	return Spec{Seed: 1, Keys: 100_000, ValueMin: 100, ValueMax: 100, KeyOrder: KeysUniform, Partitions: 1}
}

// maxValueSize keeps generated values under Kafka's default message.max.bytes.
const maxValueSize = 900 * 1024

// SpecError names the parameter of a Spec that is out of range, by its
// profile name (size, records, keys, value_size, ...).
type SpecError struct {
	Field string
	Msg   string
}

func (e *SpecError) Error() string { return e.Field + ": " + e.Msg }

func specErr(field, format string, args ...any) *SpecError {
	return &SpecError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// Validate returns a *SpecError naming the first parameter out of range.
func (s Spec) Validate() error {
	switch {
	case s.Records < 0:
		return specErr("records", "%d is negative", s.Records)
	case s.TargetBytes < 0:
		return specErr("size", "%d is negative", s.TargetBytes)
	case s.Records == 0 && s.TargetBytes == 0:
		return specErr("size", "one of size or records must be set and positive")
	case s.Records > 0 && s.TargetBytes > 0:
		return specErr("size", "set size or records, not both")
	case s.Keys <= 0:
		return specErr("keys", "%d must be positive", s.Keys)
	case s.Keys > maxExpectKeys:
		return specErr("keys", "%d is more than the %d keys whose expected state can be derived in memory", s.Keys, maxExpectKeys)
	case s.ValueMin < 0:
		return specErr("value_size", "minimum %d is negative", s.ValueMin)
	case s.ValueMax < s.ValueMin:
		return specErr("value_size", "maximum %d is below minimum %d", s.ValueMax, s.ValueMin)
	case s.ValueMax > maxValueSize:
		return specErr("value_size", "maximum %d is over %d bytes (Kafka's message.max.bytes)", s.ValueMax, maxValueSize)
	case !(s.TombstoneRatio >= 0 && s.TombstoneRatio < 1): // NaN fails too
		return specErr("tombstone_ratio", "%v must be in [0, 1)", s.TombstoneRatio)
	case s.Partitions <= 0:
		return specErr("partitions", "%d must be positive", s.Partitions)
	case s.Partitions > maxPartitions:
		return specErr("partitions", "%d is over %d", s.Partitions, maxPartitions)
	}
	if err := s.validateKeyBytes(); err != nil {
		return err
	}
	switch s.KeyOrder {
	case KeysUniform, KeysZipf, KeysSequential:
	default:
		return specErr("key_order", "%q is not one of uniform, zipf, sequential", s.KeyOrder)
	}
	if err := s.validateTransactions(); err != nil {
		return err
	}
	return s.validateKind()
}

// validateTransactions checks the transactional settings: bounded, and set
// only on a transactional fill (a plain fill's spec must not differ from
// another plain one's by settings that write nothing).
func (s Spec) validateTransactions() error {
	if !s.Transactional {
		switch {
		case s.TransactionRecords != 0:
			return specErr("transaction_records", "is set only with transactional: true")
		case s.AbortRatio != 0:
			return specErr("abort_ratio", "is set only with transactional: true")
		}
		return nil
	}
	switch {
	case s.TransactionRecords <= 0:
		return specErr("transaction_records", "%d must be positive", s.TransactionRecords)
	case s.TransactionRecords > MaxTransactionRecords:
		return specErr("transaction_records", "%d is over %d", s.TransactionRecords, MaxTransactionRecords)
	case !(s.AbortRatio >= 0 && s.AbortRatio <= MaxAbortRatio): // NaN fails too
		return specErr("abort_ratio", "%v must be in [0, %v]", s.AbortRatio, MaxAbortRatio)
	}
	return nil
}

// maxPartitions bounds a fill's partition count (one store each).
const maxPartitions = 10_000
