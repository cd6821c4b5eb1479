package loadgen

import (
	"encoding/binary"
	"math"
)

// KindVersionedKeyValue is a versioned key-value store's changelog
// (KIP-889, Stores.persistentVersionedKeyValueStore): a plain key → value
// changelog whose record timestamps are the versions' validFrom, a
// tombstone ending the key's current version. The store keeps each key's
// latest version for good and its older versions for the history
// retention (Spec.RetentionMs): see versionedHistory for exactly what a
// restore serves.
const KindVersionedKeyValue StoreKind = "versioned-key-value"

func init() {
	registerFillKind(FillKindDef{Kind: KindVersionedKeyValue, Order: 50, Timed: true,
		validate: Spec.validateVersioned,
		tracker:  func(s Spec) tracker { return newVersionedHistory(s) }})
}

// NoValidTo is the validTo a versioned store's digest gives a key's
// latest version, which has none (VersionedRecord.validTo() is empty):
// Long.MAX_VALUE, after every record timestamp.
const NoValidTo int64 = math.MaxInt64

// AppendVersionedDigestKey appends the key a versioned store's version is
// digested under: the record key and the version's validFrom (8 bytes,
// big-endian), so each (key, version) is one entry.
func AppendVersionedDigestKey(dst, key []byte, validFrom int64) []byte {
	dst = append(dst, key...)
	return binary.BigEndian.AppendUint64(dst, uint64(validFrom))
}

// AppendVersionedDigestValue appends the value a versioned store's
// version is digested with: its validTo (8 bytes, big-endian; NoValidTo
// for the latest) and then the value.
func AppendVersionedDigestValue(dst []byte, validTo int64, value []byte) []byte {
	dst = binary.BigEndian.AppendUint64(dst, uint64(validTo))
	return append(dst, value...)
}

// validateVersioned checks a versioned fill's settings: no windows, and a
// positive history retention (Kafka Streams allows 0, a store that serves
// only each key's latest value; a fill asks for history to restore).
// The expected state holds each key's versions within the retention, so
// keys and those versions are bounded.
func (s Spec) validateVersioned() error {
	switch {
	case s.WindowSizeMs != 0:
		return specErr("window_size", "windows are set only for window stores, not %s ones", KindVersionedKeyValue)
	case s.RetentionMs <= 0:
		return specErr("retention", "the versioned store's history retention, %d ms, must be positive", s.RetentionMs)
	case s.Keys > maxExpectKeys/4:
		return specErr("keys", "%d keys is more than the %d whose versions can be derived in memory", s.Keys, maxExpectKeys/4)
	case s.historyVersions() > maxExpectKeys/2:
		return specErr("retention", "about %d versions within the history retention is more than the %d whose expected "+
			"state can be derived in memory", s.historyVersions(), maxExpectKeys/2)
	}
	return nil
}

// historyVersions bounds the versions a versioned fill's expected state
// holds at once: the records written within one history retention of
// event time (all of them when it spans less), beside each key's latest.
func (s Spec) historyVersions() int64 {
	n := s.EstimatedRecords()
	if s.EventStepMicros > 0 {
		n = min(n, s.RetentionMs*1000/s.EventStepMicros+1)
	}
	return n
}
