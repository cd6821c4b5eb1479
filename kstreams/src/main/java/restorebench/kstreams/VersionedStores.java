package restorebench.kstreams;

import java.time.Duration;
import java.time.Instant;
import java.util.Set;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.query.MultiVersionedKeyQuery;
import org.apache.kafka.streams.query.Query;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.query.StateQueryRequest;
import org.apache.kafka.streams.query.VersionedKeyQuery;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.VersionedBytesStoreSupplier;
import org.apache.kafka.streams.state.VersionedKeyValueStore;
import org.apache.kafka.streams.state.VersionedRecord;
import org.apache.kafka.streams.state.VersionedRecordIterator;

/**
 * The kv topology's versioned key-value store
 * (restorebench.store.kind=versioned-key-value, KIP-889): built with
 * Stores.versionedKeyValueStoreBuilder over
 * Stores.persistentVersionedKeyValueStore(store, history retention[,
 * segment interval]); Kafka Streams has no in-memory versioned store. Each
 * record is put with its timestamp, so the changelog's record timestamps
 * are the versions' validFrom, as the Go tool's versioned fill writes it.
 * The store has no range read: it is digested key by key over the fill's
 * key space (restorebench.store.keys), through IQv2.
 */
final class VersionedStores implements StoreKindDef {
    static final VersionedStores KIND = new VersionedStores();

    private VersionedStores() {}

    @Override
    public String key() {
        return "versioned-key-value";
    }

    @Override
    public int order() {
        return 60;
    }

    @Override
    public void addTo(Topology t, DriverConfig c, ProcessedTracker tracker) {
        // Each record a version at its timestamp (a null value is a tombstone).
        KvTopology.addPut(t, c, tracker, (store, r) -> store.put(r.key(), r.value(), r.timestamp()), builder(c));
    }

    @Override
    public void forEach(StoreQueries q, int partition, boolean stale, StoreQueries.EntryVisitor v) {
        forEach(q.streams(), q.config(), partition, stale, v);
    }

    /** The width of the fill's keys' id: "k" and 15 digits (Go's loadgen.AppendKey). */
    private static final String KEY_FORMAT = "k%015d";

    /**
     * A versioned store's settings: the kv topology, store type rocksdb, a
     * history retention above 0, the key space to digest, no window size.
     */
    @Override
    public void check(DriverConfig c) throws DriverConfig.ConfigError {
        String kind = c.kindName();
        c.requireKvTopology();
        if (c.storeType != DriverConfig.StoreType.ROCKSDB) {
            throw new DriverConfig.ConfigError(kind + " is RocksDB only: Kafka Streams has no in-memory versioned store (" + DriverConfig.P + "store.type=" + c.storeType.name().toLowerCase(java.util.Locale.ROOT) + ")");
        }
        if (c.windowSizeMs != 0) {
            throw new DriverConfig.ConfigError(DriverConfig.P + "store.window.size.ms is for store.kind=window only, not " + key());
        }
        if (c.retentionMs <= 0) {
            throw new DriverConfig.ConfigError(kind + " needs " + DriverConfig.P + "store.retention.ms (its history retention) above 0");
        }
        if (c.storeKeys <= 0) {
            throw new DriverConfig.ConfigError(kind + " needs " + DriverConfig.P + "store.keys (the fill's key count) above 0: the store is digested key by key");
        }
    }

    /** The store's supplier: Kafka Streams' default segment interval unless one is set. */
    static VersionedBytesStoreSupplier supplier(DriverConfig c) {
        Duration history = Duration.ofMillis(c.retentionMs);
        if (c.segmentIntervalMs == 0) {
            return Stores.persistentVersionedKeyValueStore(c.store, history);
        }
        return Stores.persistentVersionedKeyValueStore(c.store, history, Duration.ofMillis(c.segmentIntervalMs));
    }

    /** The store's builder: Bytes keys, byte[] values, logged (the default); versioned stores have no cache. */
    static StoreBuilder<VersionedKeyValueStore<Bytes, byte[]>> builder(DriverConfig c) {
        return Stores.versionedKeyValueStoreBuilder(supplier(c), Serdes.Bytes(), Serdes.ByteArray());
    }


    /**
     * Visits every version one partition of the store serves, each under
     * the record key and validFrom with its validTo (Long.MAX_VALUE for the
     * latest) and value (Digest.versionedKey, Digest.versionedValue): for
     * each key of the fill's key space, its versions in the partition by
     * MultiVersionedKeyQuery (none for a key of another partition), each
     * older one kept only if VersionedKeyQuery.asOf(validTo - 1) still
     * returns it, as RocksDBVersionedStore.get(key, asOf) does only within
     * the history retention (a range read may return versions of a live
     * segment past it). Every key is asked in every partition: the
     * driver does not know the partition count, and queryMetadataForKey
     * placed no key in its partition when tried (on 4.4.0, with no
     * application.server set), so a digest costs keys × local partitions
     * range reads. Standby stores too when stale; the
     * active one only otherwise.
     */
    static void forEach(KafkaStreams streams, DriverConfig c, int partition, boolean stale, StoreQueries.EntryVisitor v) {
        for (long id = 0; id < c.storeKeys; id++) {
            Bytes key = Bytes.wrap(String.format(KEY_FORMAT, id).getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            try (VersionedRecordIterator<byte[]> it = query(streams, c, partition, stale, MultiVersionedKeyQuery.<Bytes, byte[]>withKey(key))) {
                while (it != null && it.hasNext()) {
                    VersionedRecord<byte[]> r = it.next();
                    long to = r.validTo().orElse(Long.MAX_VALUE);
                    if (r.value() != null && (to == Long.MAX_VALUE || served(streams, c, partition, stale, key, r.timestamp(), to))) {
                        v.visit(Digest.versionedKey(key.get(), r.timestamp()), Digest.versionedValue(to, r.value()));
                    }
                }
            }
        }
    }

    /** Whether get(key, validTo - 1) serves the version from validFrom. */
    private static boolean served(KafkaStreams streams, DriverConfig c, int partition, boolean stale, Bytes key, long validFrom, long validTo) {
        VersionedRecord<byte[]> r = query(streams, c, partition, stale,
                VersionedKeyQuery.<Bytes, byte[]>withKey(key).asOf(Instant.ofEpochMilli(validTo - 1)));
        return r != null && r.timestamp() == validFrom;
    }

    /** One IQv2 query of one partition's store; throws if the store failed to answer. */
    private static <R> R query(KafkaStreams streams, DriverConfig c, int partition, boolean stale, Query<R> q) {
        StateQueryRequest<R> req = StateQueryRequest.inStore(c.store).withQuery(q).withPartitions(Set.of(partition));
        if (!stale) {
            req = req.requireActive();
        }
        QueryResult<R> res = streams.query(req).getPartitionResults().get(partition);
        if (res == null || res.isFailure()) {
            throw new IllegalStateException("versioned store " + c.store + " partition " + partition + ": "
                    + (res == null ? "no result" : res.getFailureReason() + ": " + res.getFailureMessage()));
        }
        return res.getResult();
    }
}
