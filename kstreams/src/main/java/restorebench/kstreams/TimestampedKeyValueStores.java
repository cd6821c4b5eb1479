package restorebench.kstreams;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.TimestampedKeyValueStore;
import org.apache.kafka.streams.state.ValueAndTimestamp;

/**
 * The timestamped key-value store (restorebench.store.kind=timestamped-key-value),
 * what every DSL count, aggregate and table materializes: each record put
 * with its timestamp, and digested with the timestamp before its value, as
 * the Go tool's expected state of the kind holds it. RocksDB or in memory
 * on the kv topology; the table topology materializes it too (RocksDB).
 */
final class TimestampedKeyValueStores implements StoreKindDef {
    static final TimestampedKeyValueStores KIND = new TimestampedKeyValueStores();

    private TimestampedKeyValueStores() {}

    @Override
    public String key() {
        return "timestamped-key-value";
    }

    @Override
    public int order() {
        return 20;
    }

    /** The kv topology (rocksdb or memory) or the table topology's RocksDB store; no window settings. */
    @Override
    public void check(DriverConfig c) throws DriverConfig.ConfigError {
        c.refuseStoreKeys();
        c.refuseWindowSettings();
        if (c.topology == DriverConfig.Topology.TABLE && c.storeType == DriverConfig.StoreType.ROCKSDB) {
            return; // a KTable over any topic, materialized as a DSL table is: a timestamped store
        }
        c.requireKvTopology();
        c.refuseTimestampedType();
    }

    @Override
    public void addTo(Topology t, DriverConfig c, ProcessedTracker tracker) {
        // ValueAndTimestamp.make(null, ts) is null, which deletes.
        KvTopology.addPut(t, c, tracker, (store, r) -> store.put(r.key(), ValueAndTimestamp.make(r.value(), r.timestamp())), builder(c));
    }

    @Override
    public void forEach(StoreQueries q, int partition, boolean stale, StoreQueries.EntryVisitor v) {
        q.forEachTimestamped(partition, stale, v);
    }

    @Override
    public boolean timestampedValues() {
        return true;
    }

    /**
     * The store's builder: Stores.persistentTimestampedKeyValueStore, or with
     * store type memory Stores.inMemoryKeyValueStore, which
     * timestampedKeyValueStoreBuilder marks timestamped (so a restore puts
     * each record's timestamp before its value in both).
     */
    static StoreBuilder<TimestampedKeyValueStore<Bytes, byte[]>> builder(DriverConfig c) {
        KeyValueBytesStoreSupplier s = c.storeType == DriverConfig.StoreType.MEMORY
                ? Stores.inMemoryKeyValueStore(c.store)
                : Stores.persistentTimestampedKeyValueStore(c.store);
        return Stores.timestampedKeyValueStoreBuilder(s, Serdes.Bytes(), Serdes.ByteArray());
    }

}
