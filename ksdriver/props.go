package ksdriver

// The driver's topologies (PropTopology).
const (
	// TopologyKV puts the input topic's records into a store whose
	// changelog is <application.id>-<store>-changelog.
	TopologyKV = "kv"
	// TopologyLedger aggregates transactions into a balance per account (the
	// failover scenario's ledger).
	TopologyLedger = "ledger"
	// TopologyTable is a KTable over the input topic with source-topic
	// reuse: the input topic is the store's changelog, none is created.
	TopologyTable = "table"
)

// The driver's own properties in CONFIG.properties (kstreams/PROTOCOL.md,
// "Configuration"): every key starting with "restorebench." configures the
// driver, not Kafka Streams. The Go side names them only through these.
const (
	// PropPrefix starts every driver property.
	PropPrefix = "restorebench."
	// PropInstanceID names the instance in every event (required).
	PropInstanceID = "restorebench.instance.id"
	// PropTopology is TopologyKV (default), TopologyLedger or TopologyTable.
	PropTopology = "restorebench.topology"
	// PropStore is the state store's name; its changelog is
	// <application.id>-<store>-changelog. Default "balances".
	PropStore = "restorebench.store"
	// PropStoreType is the kv topology's store: rocksdb (default),
	// timestamped (a key-value store's, digested without its timestamps) or
	// memory.
	PropStoreType = "restorebench.store.type"
	// PropStoreKind is the kv topology's store kind, by the fill's
	// store_kind names: key-value (default), timestamped-key-value, window,
	// timestamped-window, session or versioned-key-value (loadgen.StoreKind);
	// on the table topology timestamped-key-value, window,
	// timestamped-window or session.
	PropStoreKind = "restorebench.store.kind"
	// PropStoreRetentionMs is a window or session store's retention
	// period, or a versioned store's history retention, milliseconds
	// (required with PropStoreKind window, timestamped-window, session or
	// versioned-key-value, refused otherwise).
	PropStoreRetentionMs = "restorebench.store.retention.ms"
	// PropStoreWindowSizeMs is a window store's window size, milliseconds,
	// or the window a session store's sessions fall in
	// (loadgen.SessionLength; required with PropStoreKind window,
	// timestamped-window or session, refused otherwise).
	PropStoreWindowSizeMs = "restorebench.store.window.size.ms"
	// PropStoreSegmentIntervalMs is a RocksDB window or versioned store's
	// segment interval, milliseconds; unset or 0 is Kafka Streams' own (a
	// window store's max(retention / 2, 60 s), a versioned store's by its
	// history retention: config.Case.VersionedSegmentInterval). A session
	// store refuses it (its supplier takes none).
	PropStoreSegmentIntervalMs = "restorebench.store.segment.interval.ms"
	// PropStoreKeys is a versioned store's key space: the fill's key
	// count, its keys "k" and the id in 15 digits (loadgen.AppendKey). A
	// versioned store has no range read, so the driver digests it key by
	// key (required with PropStoreKind versioned-key-value, refused
	// otherwise).
	PropStoreKeys = "restorebench.store.keys"
	// PropInputTopic is the topology's input topic (required).
	PropInputTopic = "restorebench.input.topic"
	// PropOutputTopic is the ledger topology's optional output topic.
	PropOutputTopic = "restorebench.output.topic"
	// PropTasksIntervalMs is how often metadataForLocalThreads() is polled
	// for tasks events; 0 never. Default 100.
	PropTasksIntervalMs = "restorebench.tasks.interval.ms"
	// PropProcessedIntervalMs is how often processed events are emitted; 0
	// never. Default 100.
	PropProcessedIntervalMs = "restorebench.processed.interval.ms"
	// PropLagsIntervalMs is how often allLocalStorePartitionLags() is
	// polled for lags events; 0 never. Default 1000.
	PropLagsIntervalMs = "restorebench.lags.interval.ms"
	// PropProcessIntervalMs is how often process (CPU, RSS) events are
	// emitted; 0 never. Default 1000.
	PropProcessIntervalMs = "restorebench.process.interval.ms"
	// PropCloseLeaveGroup is whether stop leaves the group (true, default)
	// or remains a member until session.timeout.ms (a static member's
	// rolling restart).
	PropCloseLeaveGroup = "restorebench.close.leave.group"
	// PropMetrics ("true") has the driver sample Kafka Streams' own restore
	// metrics into metrics events at the process interval, with
	// metrics.recording.level=DEBUG unless the properties name a level.
	// Default false.
	PropMetrics = "restorebench.metrics"
	// PropBare turns off the listeners and polling: only hello, state and
	// stopped (the overhead check). Default false.
	PropBare = "restorebench.bare"
	// PropSecretsFile names a properties file of further StreamsConfig
	// properties, the ones holding secrets (sasl.jaas.config, keys, store
	// passwords): the driver reads it and deletes it before its hello.
	// Set by Start from Options.Secrets; default none.
	PropSecretsFile = "restorebench.secrets.file"
	// PropConnectTimeoutMs, when above 0, has the driver check before
	// Kafka Streams starts that the cluster takes its TLS and SASL
	// settings (one Admin describeCluster within that long), and fail at
	// once with an error naming the listener and the mechanism when it
	// does not, rather than leave Kafka Streams retrying. Default 0 (no
	// check).
	PropConnectTimeoutMs = "restorebench.connect.timeout.ms"
	// PropAPIPort turns on the driver's API layer (kstreams/PROTOCOL.md,
	// "The API layer"): the port it serves key lookups on, 0 for any free
	// one, named in the api event (Instance.APIAddr). The driver sets
	// application.server to its address. Default unset: no API layer.
	PropAPIPort = "restorebench.api.port"
	// PropAPIHost is the address the API layer listens on and advertises
	// as application.server. Default 127.0.0.1.
	PropAPIHost = "restorebench.api.host"
	// PropAPIRetryMs is how long the API layer retries a stale lookup
	// (stale=true) that no copy can serve yet before refusing it: Kafka
	// Streams' documented advice for InvalidStateStoreException, thrown
	// while a task migrates (a standby being promoted) or a rebalance
	// leaves no metadata. Lookups without stale reads are never retried.
	// Default 0 (refused at once); at most 4000.
	PropAPIRetryMs = "restorebench.api.retry.ms"
	// PropAPIPartitions, above 0, is the source topic's partition count:
	// the API layer then routes a key by murmur2 over that many
	// partitions (a StreamPartitioner given to queryMetadataForKey), not
	// by Kafka Streams' own count (config.PartitionerTopic). Default 0:
	// Kafka Streams' own.
	PropAPIPartitions = "restorebench.api.partitions"
	// PropAPIRangeMaxEntries and PropAPIRangeMaxBytes bound one range
	// query's answer, counted while it is gathered, forwarded parts
	// included: a range over either is refused (HTTP 400) once the entry
	// over is read. Defaults 10000 entries and 4 MiB of entry text.
	PropAPIRangeMaxEntries = "restorebench.api.range.max.entries"
	PropAPIRangeMaxBytes   = "restorebench.api.range.max.bytes"
	// PropAPIRangeConcurrency is how many ranges an instance gathers at
	// once, and how many forwarded ranges it answers at once; one beyond
	// is refused with HTTP 429. Default 4.
	PropAPIRangeConcurrency = "restorebench.api.range.concurrency"
	// PropRocksDBPrefix prefixes RocksDB options by the Go engine's names
	// (restorebench.rocksdb.block_cache_size, ...), applied by the driver's
	// RocksDBConfigSetter.
	PropRocksDBPrefix = "restorebench.rocksdb."
)
