package config

import (
	"errors"
	"fmt"
	"github.com/restorebench/restorebench/ksdriver"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// DefaultJVMHeap is a kafka-streams instance's -Xmx unless a case says
// otherwise: enough for Kafka Streams' buffers and the restore consumer's
// fetches, well below the RocksDB memory, which lives off heap.
const DefaultJVMHeap Size = 1 << 30

// minJVMHeap is the smallest heap a Kafka Streams instance can start with.
const minJVMHeap Size = 32 << 20

// Kafka Streams properties the common case settings map to on the
// kafka-streams engine, so that one case means the same on both engines.
const (
	// PropNumStreamThreads is what Threads maps to.
	PropNumStreamThreads = "num.stream.threads"
	// PropRestoreMaxPollRecords is what BatchRecords maps to: the restore
	// consumer's max.poll.records, i.e. records per restored batch.
	PropRestoreMaxPollRecords = "restore.consumer.max.poll.records"
	// PropRestoreFetchMaxBytes is what FetchMaxBytes maps to.
	PropRestoreFetchMaxBytes = "restore.consumer.fetch.max.bytes"
	// PropRestoreMaxPartitionFetchBytes is what MaxPartitionFetchBytes maps to.
	PropRestoreMaxPartitionFetchBytes = "restore.consumer.max.partition.fetch.bytes"
	// DriverRocksDBPrefix prefixes the RocksDB options the Kafka Streams
	// driver applies through its RocksDBConfigSetter (kstreams/PROTOCOL.md).
	DriverRocksDBPrefix = ksdriver.PropRocksDBPrefix
	// DriverStoreType is the driver's store type key (rocksdb or memory).
	DriverStoreType = ksdriver.PropStoreType
)

// Kafka Streams' client prefixes (StreamsConfig.MAIN_CONSUMER_PREFIX,
// RESTORE_CONSUMER_PREFIX, GLOBAL_CONSUMER_PREFIX, CONSUMER_PREFIX,
// PRODUCER_PREFIX, ADMIN_CLIENT_PREFIX): a property under one configures
// that client alone, consumer. every consumer. The one home of them for
// the case settings, the secret screen and the agent.
const (
	PrefixMainConsumer    = "main.consumer."
	PrefixRestoreConsumer = "restore.consumer."
	PrefixGlobalConsumer  = "global.consumer."
	PrefixConsumer        = "consumer."
	PrefixProducer        = "producer."
	PrefixAdmin           = "admin."
)

// streamsClientPrefixes are Kafka Streams' client prefixes, the
// consumer-specific ones before consumer.
var streamsClientPrefixes = []string{PrefixMainConsumer, PrefixRestoreConsumer, PrefixGlobalConsumer, PrefixConsumer, PrefixProducer, PrefixAdmin}

// StreamsClientPrefixes returns Kafka Streams' client prefixes (a copy the
// caller may change).
func StreamsClientPrefixes() []string { return slices.Clone(streamsClientPrefixes) }

// ConsumerKeys are the properties Kafka Streams takes consumer setting
// name from for the consumer of prefix (PrefixMainConsumer,
// PrefixRestoreConsumer or PrefixGlobalConsumer), the first set winning:
// that consumer's own prefix, then consumer., then the unprefixed property
// (StreamsConfig.getMainConsumerConfigs and its siblings lay them over one
// another in that order).
func ConsumerKeys(prefix, name string) []string {
	return []string{prefix + name, PrefixConsumer + name, name}
}

// mappedStreams are the common settings a Kafka Streams property maps to:
// each reads the setting as the property's text and writes it back. field
// is the setting's profile name, under which Validate reports it.
var mappedStreams = []struct {
	key, field string
	get        func(Case) int64
	set        func(*Case, int64)
}{
	{PropNumStreamThreads, "threads", func(c Case) int64 { return int64(c.Threads) }, func(c *Case, v int64) { c.Threads = int(v) }},
	{PropRestoreMaxPollRecords, "batch_records", func(c Case) int64 { return int64(c.BatchRecords) }, func(c *Case, v int64) { c.BatchRecords = int(v) }},
	{PropRestoreFetchMaxBytes, "fetch_max_bytes", func(c Case) int64 { return int64(c.FetchMaxBytes) }, func(c *Case, v int64) { c.FetchMaxBytes = Size(v) }},
	{PropRestoreMaxPartitionFetchBytes, "max_partition_fetch_bytes", func(c Case) int64 { return int64(c.MaxPartitionFetchBytes) }, func(c *Case, v int64) {
		c.MaxPartitionFetchBytes = Size(v)
	}},
}

// streamsPath is where an error of the common setting field belongs when
// a streams property set it: "threads" becomes "streams.num.stream.threads"
// when that key wrote threads, so the error names what the user wrote.
func (c Case) streamsPath(err error) error {
	var fe *FieldError
	if !errors.As(err, &fe) {
		return err
	}
	for _, m := range mappedStreams {
		if _, ok := c.Streams[m.key]; ok && fe.Path == m.field {
			out := *fe
			out.Path = "streams." + m.key
			return &out
		}
	}
	return err
}

// reservedStreams are the properties restorebench sets itself, with why.
var reservedStreams = map[string]string{
	"application.id":    "restorebench sets it to the profile's application_id, so the changelog the instance restores is exactly the topic restorebench filled",
	"bootstrap.servers": "restorebench sets it from --brokers (or the embedded broker), the cluster the fill lives on",
	"state.dir":         "restorebench sets it to a fresh directory under --state-dir for every restore (a cold restore starts from nothing)",
}

// KafkaStreamsProperties are the StreamsConfig properties (and the driver's
// restorebench.* store keys) a kafka-streams instance of this case runs with,
// so the case means what it means on the model engine:
//
//	threads                    -> num.stream.threads
//	batch_records              -> restore.consumer.max.poll.records
//	fetch_max_bytes            -> restore.consumer.fetch.max.bytes
//	max_partition_fetch_bytes  -> restore.consumer.max.partition.fetch.bytes
//	RocksDB options            -> restorebench.rocksdb.<name>, only those that
//	                              differ from Kafka Streams' own defaults (the
//	                              kstreams preset), so that preset runs Kafka
//	                              Streams untouched
//	store memory               -> restorebench.store.type=memory
//	store_kind                 -> restorebench.store.kind (beyond key-value)
//	retention                  -> restorebench.store.retention.ms (window, session)
//	segment_interval           -> restorebench.store.segment.interval.ms
//	                              (window, when set)
//	kafka_streams_metrics      -> restorebench.metrics=true
//
// then every key of Streams over them (an explicit key wins). application.id,
// bootstrap.servers and state.dir are not included: the scenario sets them,
// and a window or session store's window size, which is the fill's
// (restorebench.store.window.size.ms).
func (c Case) KafkaStreamsProperties() map[string]string {
	p := map[string]string{}
	for _, m := range mappedStreams {
		p[m.key] = strconv.FormatInt(m.get(c), 10)
	}
	for name, v := range c.RocksDB.DiffFrom(KStreamsRocksDB()) {
		p[DriverRocksDBPrefix+name] = v
	}
	if c.Store == StoreMemory {
		p[DriverStoreType] = string(StoreMemory)
	}
	if c.KafkaStreamsMetrics {
		p[ksdriver.PropMetrics] = "true"
	}
	maps.Copy(p, c.storeKindProperties())
	for k, v := range c.Streams {
		p[k] = v
	}
	return p
}

// adoptMappedStreams writes the Streams properties a common setting maps to
// back into that setting, so the explicit property wins and the record of
// the case says what ran.
func (c *Case) adoptMappedStreams() error {
	for _, m := range mappedStreams {
		v, ok := c.Streams[m.key]
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return fieldErr("streams."+m.key, "%q is not a whole number", v)
		}
		m.set(c, n)
	}
	return nil
}

// isMappedStream reports whether key is a property a common setting maps to.
func isMappedStream(key string) bool {
	for _, m := range mappedStreams {
		if m.key == key {
			return true
		}
	}
	return false
}

// validateKafkaStreams checks what only the kafka-streams engine needs: a
// strategy Kafka Streams has, RocksDB options its setter can apply, Streams
// keys that are the user's to set, and a JVM that can start.
func (c Case) validateKafkaStreams() error {
	switch c.Strategy {
	case StrategyBulk, StrategyIngest:
		return fieldErr("strategy", "%s is model-only: Kafka Streams restores with put (one WriteBatch per poll) or into a memory store (strategy memory)",
			c.Strategy)
	}
	if !c.RocksDB.DisableWAL {
		return fieldErr("disable_wal",
			"Kafka Streams always writes its stores without RocksDB's WAL (the changelog is the log); the kafka-streams engine cannot turn it on")
	}
	if err := c.validateStreamsKeys(); err != nil {
		return err
	}
	if _, ok := c.Streams["rocksdb.config.setter"]; ok && len(c.RocksDB.DiffFrom(KStreamsRocksDB())) > 0 {
		return fieldErr("streams.rocksdb.config.setter",
			"cannot be combined with RocksDB options that differ from Kafka Streams' defaults (restorebench applies those with its own setter)")
	}
	if c.KafkaStreamsMetrics && c.Scenario != ScenarioCold {
		return fieldErr("kafka_streams_metrics",
			"Kafka Streams' own metrics are recorded by cold restores only so far; scenario %s would run the client at DEBUG without recording them", c.Scenario)
	}
	if c.JVMHeap < minJVMHeap {
		return fieldErr("jvm_heap", "%s is under %s", c.JVMHeap, minJVMHeap)
	}
	if err := checkMemory("jvm_heap", c.JVMHeap); err != nil {
		return err
	}
	for i, f := range c.JVMFlags {
		if err := CheckJVMFlag(f); err != nil {
			return fieldErr(fmt.Sprintf("jvm_flags[%d]", i), "%s", err)
		}
	}
	return nil
}

// validateStreamsKeys refuses Streams keys restorebench must control (also
// under a client prefix: consumer.bootstrap.servers would point a client at
// another cluster), secrets, which results.json would record (see
// checkNoSecrets), and mapped keys that are not numbers.
func (c Case) validateStreamsKeys() error {
	if err := checkNoSecrets("streams", c.Streams); err != nil {
		return err
	}
	for _, k := range sortedKeys(c.Streams) {
		path := "streams." + k
		base := ClientBaseName(k)
		if err := CheckConfigProviders(k, c.Streams[k]); err != nil {
			return fieldErr(path, "%s", err)
		}
		switch {
		case strings.TrimSpace(k) == "":
			return fieldErr("streams", "an empty property name")
		case reservedStreams[k] != "":
			return fieldErr(path, "must not be set here: %s", reservedStreams[k])
		case reservedStreams[base] != "":
			return fieldErr(path, "must not be set here, for any client: %s", reservedStreams[base])
		case isClusterSecurityKey(base):
			return fieldErr(path, "must not be set here: the cluster's TLS and SASL settings come from --command-config or the security flags, "+
				"the same for every client restorebench starts, its own and Kafka Streams'")
		case strings.HasPrefix(k, "restorebench.") || strings.HasPrefix(base, "restorebench."):
			return fieldErr(path, "driver keys are restorebench's: they follow from the case's settings (store, RocksDB options)")
		case isMappedStream(k):
			if _, err := strconv.ParseInt(strings.TrimSpace(c.Streams[k]), 10, 64); err != nil {
				return fieldErr(path, "%q is not a whole number", c.Streams[k])
			}
		}
	}
	return nil
}

// isClusterSecurityKey reports whether a client property (without its
// client prefix) is one of the connection's security settings:
// security.protocol, sasl.* or ssl.*.
func isClusterSecurityKey(base string) bool {
	return base == "security.protocol" || strings.HasPrefix(base, "sasl.") || strings.HasPrefix(base, "ssl.")
}

// validateModelStreams refuses, on the model engine, Streams keys it has no
// setting for: a case must mean the same on both engines, and a property the
// model ignored would silently not.
func (c Case) validateModelStreams() error {
	if err := c.validateStreamsKeys(); err != nil {
		return err
	}
	for _, k := range sortedKeys(c.Streams) {
		if k == PropProcessingGuarantee {
			if !oneOf(c.Streams[k], processingGuarantees) {
				return fieldErr("streams."+k, "%q is not one of %s", c.Streams[k], strings.Join(processingGuarantees, ", "))
			}
			continue
		}
		if k == PropTransactionalStateStores {
			continue // checkTransactionalStores
		}
		if !isMappedStream(k) {
			return fieldErr("streams."+k, "the model engine has no such setting (it takes only %s, %s, %s); set it on kafka-streams cases only", mappedNames(),
				PropProcessingGuarantee, PropTransactionalStateStores)
		}
	}
	return nil
}

// PropProcessingGuarantee is Kafka Streams' processing.guarantee: the model
// engine follows it where it changes restores (see ExactlyOnce and
// IsolationLevel).
const PropProcessingGuarantee = "processing.guarantee"

// Kafka Streams' processing.guarantee values (4.x; exactly_once and
// exactly_once_beta were removed in 4.0). AtLeastOnce is the default.
const (
	AtLeastOnce   = "at_least_once"
	ExactlyOnceV2 = "exactly_once_v2"
)

// processingGuarantees are the values Kafka Streams 4.x accepts.
var processingGuarantees = []string{AtLeastOnce, ExactlyOnceV2}

// ProcessingGuarantees lists the processing.guarantee values a case takes.
func ProcessingGuarantees() []string { return append([]string(nil), processingGuarantees...) }

// Kafka's consumer isolation.level values.
const (
	ReadCommitted   = "read_committed"
	ReadUncommitted = "read_uncommitted"
)

func mappedNames() string {
	names := make([]string, len(mappedStreams))
	for i, m := range mappedStreams {
		names[i] = m.key
	}
	return strings.Join(names, ", ")
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Pairs writes properties as "name=value" in name order, joined by sep:
// topic configs and Streams properties in logs and reports. Secrets are
// [hidden] (RedactValue).
func Pairs(m map[string]string, sep string) string {
	parts := make([]string, 0, len(m))
	for _, k := range sortedKeys(m) {
		parts = append(parts, k+"="+RedactValue(k, m[k]))
	}
	return strings.Join(parts, sep)
}

// DiffFrom returns, by RocksDB option name, the options of o that differ
// from base, as text the Kafka Streams driver reads (sizes in bytes).
// disable_wal, which no RocksDBConfigSetter can change, is never included.
func (o RocksDB) DiffFrom(base RocksDB) map[string]string {
	out := map[string]string{}
	v, b := reflect.ValueOf(o), reflect.ValueOf(base)
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		if name == "" || name == "-" || name == "disable_wal" {
			continue
		}
		x, y := v.Field(i), b.Field(i)
		if x.Equal(y) {
			continue
		}
		switch x.Kind() {
		case reflect.Int, reflect.Int64:
			out[name] = strconv.FormatInt(x.Int(), 10)
		case reflect.Float64:
			out[name] = strconv.FormatFloat(x.Float(), 'g', -1, 64)
		default:
			out[name] = fmt.Sprint(x.Interface())
		}
	}
	return out
}

// ExactlyOnce reports whether the case runs under exactly-once processing
// (processing.guarantee exactly_once_v2; Kafka Streams 4.x refuses the
// older exactly_once names).
// It decides, on both engines, what a store whose committed offset fell
// below the log start keeps: exactly-once wipes it, at-least-once keeps its
// data and only resets its offsets.
func (c Case) ExactlyOnce() bool {
	return c.Streams[PropProcessingGuarantee] == ExactlyOnceV2
}

// PropTransactionalStateStores is Kafka Streams' enable.transactional.statestores
// (KIP-892, from 4.4; default false): under exactly_once_v2 a store meant to
// survive a crash. The model engine follows it in its crash rule
// (recovery.AfterCrash).
const PropTransactionalStateStores = "enable.transactional.statestores"

// TransactionalStateStores reports whether the case sets
// enable.transactional.statestores=true.
func (c Case) TransactionalStateStores() bool {
	return strings.EqualFold(strings.TrimSpace(c.Streams[PropTransactionalStateStores]), "true")
}

// ProcessingGuarantee is the case's processing.guarantee: its streams
// setting, by default at_least_once (Kafka Streams' default).
func (c Case) ProcessingGuarantee() string {
	if g := c.Streams[PropProcessingGuarantee]; g != "" {
		return g
	}
	return AtLeastOnce
}

// isolationKeys are where a Kafka Streams restore consumer's
// isolation.level comes from, the first set winning: its own prefix, the
// main and restore consumers' shared prefix, then the unprefixed property
// every client takes.
var isolationKeys = ConsumerKeys(PrefixRestoreConsumer, "isolation.level")

// IsolationLevel is the isolation.level the case's restore consumer reads
// the changelog with, as Kafka Streams sets it: read_committed under
// exactly_once_v2 (every consumer Kafka Streams creates then reads
// committed, and it overrides a user's isolation.level), otherwise the
// consumer's own setting (isolationKeys; only kafka-streams cases may set
// one), by default Kafka's read_uncommitted. So an at_least_once restore of
// an exactly-once application's changelog restores its aborted records,
// as Kafka Streams does.
func (c Case) IsolationLevel() string {
	if c.ExactlyOnce() {
		return ReadCommitted
	}
	for _, k := range isolationKeys {
		if v := strings.TrimSpace(c.Streams[k]); v != "" {
			return v
		}
	}
	return ReadUncommitted
}

// OnKafkaStreams is c on the kafka-streams engine, named name: the same
// settings, applied by the real client (Kafka Streams' default version
// where c names none). It is how a setting screened on the model is
// confirmed on Kafka Streams (a profile's confirm). The error says why the
// client cannot apply one of c's settings (a model-only strategy): such a
// model result is an upper bound, not something Kafka Streams can confirm.
func (c Case) OnKafkaStreams(name string) (Case, error) {
	k := c
	k.Name = name
	k.Engine = EngineKafkaStreams
	if k.KafkaStreamsVersion == "" {
		k.KafkaStreamsVersion = DriverKafkaStreamsVersion
	}
	return k, k.Validate()
}
