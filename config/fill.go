package config

import (
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/restorebench/restorebench/internal/listing"
	"github.com/restorebench/restorebench/internal/termsafe"
	"github.com/restorebench/restorebench/loadgen"
)

// Fill is what a changelog holds: the generator's parameters as a profile's
// fill section and the fill command's flags write them.
type Fill struct {
	// Topic overrides the changelog's name, <application_id>-<store>-changelog.
	Topic string `yaml:"topic"`
	// Size stops the fill at this many key+value bytes ("512MB", "2GiB").
	// Exactly one of Size and Records is required.
	Size *Size `yaml:"size"`
	// Records is the number of records to write.
	Records *int64 `yaml:"records"`
	// Keys is the number of distinct keys. Default 100,000.
	Keys int64 `yaml:"keys"`
	// ValueSize is each value's size: fixed ("200") or a uniform range
	// ("100-1000"). A value of 0 bytes is an empty, live value, not a
	// tombstone. Default 100.
	ValueSize ValueRange `yaml:"value_size"`
	// TombstoneRatio is the fraction of records that are deletes. Default 0.
	TombstoneRatio float64 `yaml:"tombstone_ratio"`
	// KeyOrder is uniform (default), zipf (s=1.1) or sequential.
	KeyOrder loadgen.KeyOrder `yaml:"key_order"`
	// KeyBytes is each key's width: "k" and the key id in key_bytes-1
	// zero-padded digits, between 4 and 64 bytes and wide enough for keys
	// (at most 10^(key_bytes-1)). Default 16 (0 and 16 are the same fill).
	KeyBytes int `yaml:"key_bytes"`
	// Partitions of the changelog: one task and one store each. Default 1.
	Partitions int32 `yaml:"partitions"`
	// Compression is the producer's compression.type: none (default), gzip,
	// snappy, lz4 or zstd.
	Compression string `yaml:"compression"`
	// Seed makes the fill reproducible: equal seeds and parameters give
	// identical changelogs. Default 1.
	Seed uint64 `yaml:"seed"`
	// Transactional writes the fill as an application under Kafka Streams'
	// processing.guarantee exactly_once_v2 writes its changelog: with a
	// transactional producer (transactional.id), in transactions each
	// ending in a commit or abort marker. Its committed records and the
	// state they leave are the plain fill's (loadgen.Stream). Default false.
	Transactional bool `yaml:"transactional"`
	// TransactionRecords is the records per transaction, at most 1,000,000;
	// only with transactional. Default 1000 (about what an application at
	// 10,000 updates a second commits per commit.interval.ms of 100 ms).
	TransactionRecords *int `yaml:"transaction_records"`
	// AbortRatio is the share of transactions that abort, in [0, 0.9]: an
	// application that failed mid-transaction leaves its records in the log,
	// aborted. Which transactions abort is a pure function of the seed and
	// the transaction's index. Only with transactional. Default 0.
	AbortRatio float64 `yaml:"abort_ratio"`
	// StoreKind is the kind of store whose changelog the fill writes, and
	// which the profile's cases restore: key-value (default),
	// timestamped-key-value (record timestamps kept in the store), window
	// (keys carry the window start), session (keys carry the session's
	// end and start: loadgen.KindSession says which sessions) or
	// versioned-key-value (record timestamps are the versions' validFrom).
	// Default key-value.
	StoreKind StoreKind `yaml:"store_kind"`
	// TimeRange is the event time the records of a timestamped, window or
	// session fill span, spread evenly and in order from 2026-01-01T00:00:00Z (a
	// size-bounded fill spreads over its estimated record count, so it
	// spans about this). Default 1h.
	TimeRange Duration `yaml:"time_range"`
	// WindowSize is a window fill's tumbling window size, and the window a
	// session fill's sessions fall in (each lasts a quarter to all of it).
	// Default 5m.
	WindowSize Duration `yaml:"window_size"`
	// Retention is the window store's retention (Stores.persistentWindowStore's
	// retentionPeriod), at least the window size: a restore drops the
	// windows that start at or before the last window start minus it. With
	// time_range twice the retention, half the windows expire. A session
	// store's (Stores.persistentSessionStore's retentionPeriod) drops the
	// sessions that end at or before the last session end minus it. For a
	// versioned-key-value fill it is the store's history retention
	// (Stores.persistentVersionedKeyValueStore's historyRetention): older
	// versions are served while their validTo is after stream time minus
	// it; each key's latest version is kept whatever its age. Default 1h.
	Retention Duration `yaml:"retention"`
}

// Defaults of a timed fill (Fill.StoreKind timestamped-key-value, window
// or session).
const (
	DefaultTimeRange  = Duration(time.Hour)
	DefaultWindowSize = Duration(5 * time.Minute)
	DefaultRetention  = Duration(time.Hour)
)

// DefaultFill returns the defaults documented on Fill's fields; it sets
// neither Size nor Records.
func DefaultFill() Fill {
	d := loadgen.DefaultSpec()
	return Fill{
		Keys: d.Keys, ValueSize: ValueRange{d.ValueMin, d.ValueMax}, KeyOrder: d.KeyOrder,
		Partitions: d.Partitions, Compression: "none", Seed: d.Seed,
	}
}

// Spec validates the fill and returns the generator's spec. Errors are
// *FieldErrors with paths relative to the fill section ("size", "keys").
func (f Fill) Spec() (loadgen.Spec, error) {
	spec := loadgen.Spec{
		Seed: f.Seed, Keys: f.Keys, ValueMin: f.ValueSize.Min, ValueMax: f.ValueSize.Max,
		TombstoneRatio: f.TombstoneRatio, KeyOrder: f.KeyOrder, Partitions: f.Partitions,
		Transactional: f.Transactional, AbortRatio: f.AbortRatio, KeyBytes: f.KeyBytes,
	}
	if spec.KeyBytes == loadgen.DefaultKeyBytes {
		spec.KeyBytes = 0 // the default's own spec: the same fill, manifest and results
	}
	switch {
	case f.TransactionRecords != nil:
		spec.TransactionRecords = *f.TransactionRecords
	case f.Transactional:
		spec.TransactionRecords = loadgen.DefaultTransactionRecords
	}
	switch {
	case f.Size != nil && f.Records != nil:
		return spec, fieldErr("size", "set size or records, not both")
	case f.Size == nil && f.Records == nil:
		return spec, fieldErr("size", "one of size or records is required")
	case f.Size != nil && *f.Size <= 0:
		return spec, fieldErr("size", "%d must be positive", *f.Size)
	case f.Records != nil && *f.Records <= 0:
		return spec, fieldErr("records", "%d must be positive", *f.Records)
	}
	if f.Size != nil {
		spec.TargetBytes = int64(*f.Size)
	} else {
		spec.Records = *f.Records
	}
	if err := f.kindSpec(&spec); err != nil {
		return spec, err
	}
	if !oneOf(f.Compression, loadgen.Compressions) {
		return spec, fieldErr("compression", "%q is not one of none, gzip, snappy, lz4, zstd", f.Compression)
	}
	if err := spec.Validate(); err != nil {
		var se *loadgen.SpecError
		if errors.As(err, &se) {
			return spec, &FieldError{Path: se.Field, Msg: se.Msg}
		}
		return spec, err
	}
	return spec, nil
}

// kindSpec sets the store kind's part of spec: a timed kind's event step
// (its time range over the records it writes), a window fill's window and
// retention, with their defaults; an untimed kind's fill (key-value's)
// refuses them, naming the timed kinds the registry holds.
func (f Fill) kindSpec(spec *loadgen.Spec) error {
	k := f.StoreKind.Of()
	if !k.Timed() {
		for _, d := range []struct {
			name string
			v    Duration
		}{{"time_range", f.TimeRange}, {"window_size", f.WindowSize}, {"retention", f.Retention}} {
			if d.v != 0 {
				return fieldErr(d.name, "is set only with store_kind %s", listing.Or(timedKinds()))
			}
		}
		if _, ok := StoreKindDefOf(k); !ok {
			return fieldErr("store_kind", "%q is not one of %s", f.StoreKind, list(StoreKinds))
		}
		if k != StoreKeyValue {
			spec.StoreKind = k // key-value's fill keeps "", as it always has
		}
		return nil
	}
	spec.StoreKind = k
	tr := orDefault(f.TimeRange, DefaultTimeRange)
	if tr <= 0 {
		return fieldErr("time_range", "%s must be positive", tr)
	}
	if err := checkEventTimes(k, tr, orDefault(f.WindowSize, DefaultWindowSize)); err != nil {
		return err
	}
	spec.EventStepMicros = tr.D().Microseconds() / max(spec.EstimatedRecords(), 1)
	if d := kindDef(k); d.fillSpec != nil {
		return d.fillSpec(f, spec)
	}
	return nil
}

// timedKinds are the kinds whose fills set event times (loadgen's Timed),
// in the registry's order.
func timedKinds() []StoreKind {
	var out []StoreKind
	for _, k := range StoreKinds {
		if k.Timed() {
			out = append(out, k)
		}
	}
	return out
}

// orDefault is d, or def when d is unset.
func orDefault(d, def Duration) Duration {
	if d == 0 {
		return def
	}
	return d
}

// ChangelogTopic is Kafka Streams' changelog name for a store.
func ChangelogTopic(appID, store string) string { return appID + "-" + store + "-changelog" }

// Defaults shared by the commands and the engines.
const (
	// DefaultAppID is the application.id restorebench uses unless told.
	DefaultAppID = "restorebench"
	// DefaultStore is the state store's name unless told (the domain
	// card's balances).
	DefaultStore = "balances"
)

var legalTopicChars = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

// maxEcho is how much of a name an error quotes: enough to recognise it.
const maxEcho = 64

// MaxAppIDLen is the longest application.id whose changelog topics,
// <id>-<store>-changelog, fit Kafka's 249-character topic names with a
// store name of one character.
const MaxAppIDLen = 249 - len("-s-changelog")

// CheckAppID validates an application.id as Kafka Streams uses it, the
// application's group id and the prefix of its topics: letters, digits,
// '.', '_' and '-', at most MaxAppIDLen, not "." or "..". Its errors quote
// at most a short prefix of appID.
func CheckAppID(appID string) error {
	switch {
	case appID == "":
		return errors.New("empty; it names the application's group and topics")
	case appID == "." || appID == "..":
		return fmt.Errorf("%q is not a name (it also names a directory under state.dir)", appID)
	case !legalTopicChars.MatchString(appID):
		return fmt.Errorf("%s may hold only letters, digits, '.', '_' and '-' (it names Kafka topics)", termsafe.Prefix(appID, maxEcho))
	case len(appID) > MaxAppIDLen:
		return fmt.Errorf("%s is %d characters; at most %d fit Kafka's 249-character topic names as <application-id>-<store>-changelog",
			termsafe.Prefix(appID, maxEcho), len(appID), MaxAppIDLen)
	}
	return nil
}

// CheckNames validates an application.id (CheckAppID), a store name and the
// changelog topic they make (or topic, when set): Kafka allows letters,
// digits, '.', '_' and '-', at most 249 characters. Errors are
// *FieldErrors naming application_id, store or topic.
func CheckNames(appID, store, topic string) error {
	if err := CheckAppID(appID); err != nil {
		return fieldErr("application_id", "%v", err)
	}
	if store == "." || store == ".." {
		return fieldErr("store", "%q is not a name (it also names a directory under state.dir)", store)
	}
	if !legalTopicChars.MatchString(store) {
		return fieldErr("store", "%s may hold only letters, digits, '.', '_' and '-' (it names Kafka topics)", termsafe.Prefix(store, maxEcho))
	}
	if topic == "" {
		topic = ChangelogTopic(appID, store)
	}
	if err := ValidateTopicName(topic); err != nil {
		return fieldErr("topic", "%v", err)
	}
	return nil
}

// ValidateTopicName checks that topic is a name Kafka accepts: letters,
// digits, '.', '_' and '-', at most 249 characters, not "." or "..".
func ValidateTopicName(topic string) error {
	if !legalTopicChars.MatchString(topic) || len(topic) > 249 || topic == "." || topic == ".." {
		return fmt.Errorf("%s is not a legal Kafka topic name (letters, digits, '.', '_', '-'; at most 249)", termsafe.Prefix(topic, maxEcho))
	}
	return nil
}

// ForKind is the fill as a store-kind sweep writes it for kind k: the same
// records' shape (keys, values, tombstones, size, seed) with k's store kind,
// and without the time settings k does not read (a key-value store none, a
// timestamped one no windows or retention, only window and session stores
// both), so that one fill section
// describes every kind's changelog.
func (f Fill) ForKind(k StoreKind) Fill {
	f.StoreKind = k
	if !k.Timed() {
		f.TimeRange = 0
	}
	if !k.Segmented() {
		f.WindowSize = 0
	}
	if !kindDef(k).Retention {
		f.Retention = 0 // a versioned store's is its history retention
	}
	return f
}
