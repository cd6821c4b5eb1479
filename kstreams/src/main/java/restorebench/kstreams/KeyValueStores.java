package restorebench.kstreams;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.Stores;

/**
 * The kv topology's key-value store (restorebench.store.kind=key-value, the
 * default) of restorebench.store.type: Stores.persistentKeyValueStore,
 * Stores.inMemoryKeyValueStore, or with store.type=timestamped the
 * timestamped store of {@link TimestampedKeyValueStores}, digested without
 * its timestamps. A null value deletes, an empty value is a live, empty
 * value.
 */
final class KeyValueStores implements StoreKindDef {
    static final KeyValueStores KIND = new KeyValueStores();

    private KeyValueStores() {}

    @Override
    public String key() {
        return "key-value";
    }

    @Override
    public int order() {
        return 10;
    }

    /** Only the store type: no window settings, no key space. */
    @Override
    public void check(DriverConfig c) throws DriverConfig.ConfigError {
        c.refuseStoreKeys();
        c.refuseWindowSettings();
    }

    @Override
    public void addTo(Topology t, DriverConfig c, ProcessedTracker tracker) {
        if (c.storeType == DriverConfig.StoreType.TIMESTAMPED) {
            TimestampedKeyValueStores.KIND.addTo(t, c, tracker);
            return;
        }
        KeyValueBytesStoreSupplier s = c.storeType == DriverConfig.StoreType.MEMORY
                ? Stores.inMemoryKeyValueStore(c.store)
                : Stores.persistentKeyValueStore(c.store);
        KvTopology.addPut(t, c, tracker, (store, r) -> store.put(r.key(), r.value()), // null deletes
                Stores.keyValueStoreBuilder(s, Serdes.Bytes(), Serdes.ByteArray()));
    }

    @Override
    public void forEach(StoreQueries q, int partition, boolean stale, StoreQueries.EntryVisitor v) {
        q.forEachKeyValue(partition, stale, v);
    }
}
