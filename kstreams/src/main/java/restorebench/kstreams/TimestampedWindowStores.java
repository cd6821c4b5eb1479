package restorebench.kstreams;

import java.time.Duration;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.TimestampedWindowStore;
import org.apache.kafka.streams.state.ValueAndTimestamp;
import org.apache.kafka.streams.state.WindowBytesStoreSupplier;
import org.apache.kafka.streams.state.internals.RocksDbWindowBytesStoreSupplier;

/**
 * The timestamped window store (restorebench.store.kind=timestamped-window),
 * what every DSL windowed count, aggregate and reduce materializes: a
 * window store without duplicates, as {@link WindowStores}, that keeps each
 * value behind its record's timestamp (a restore puts the changelog
 * record's timestamp before its value), digested so, as the Go tool's
 * expected state of the kind holds it. RocksDB only so far: the in-memory
 * one (Stores.inMemoryWindowStore under timestampedWindowStoreBuilder,
 * which marks it timestamped) is not built yet.
 */
final class TimestampedWindowStores implements StoreKindDef {
    static final TimestampedWindowStores KIND = new TimestampedWindowStores();

    private TimestampedWindowStores() {}

    @Override
    public String key() {
        return "timestamped-window";
    }

    @Override
    public int order() {
        return 40;
    }

    /** As a window store's settings ({@link WindowStores#check}), on RocksDB. */
    @Override
    public void check(DriverConfig c) throws DriverConfig.ConfigError {
        if (c.topology == DriverConfig.Topology.LEDGER) {
            c.requireKvTopology();
        }
        c.requireWindowedStore(": Kafka Streams refuses such a store");
        if (c.storeType == DriverConfig.StoreType.MEMORY) {
            throw new DriverConfig.ConfigError(DriverConfig.P + "store.type=memory: the driver builds a timestamped window store "
                    + "on RocksDB only (Stores.persistentTimestampedWindowStore)");
        }
    }

    @Override
    public void addTo(Topology t, DriverConfig c, ProcessedTracker tracker) {
        long size = c.windowSizeMs;
        // ValueAndTimestamp.make(null, ts) is null, which deletes.
        KvTopology.addPut(t, c, tracker, (store, r) -> store.put(r.key(), ValueAndTimestamp.make(r.value(), r.timestamp()),
                WindowStores.windowStart(r.timestamp(), size)), builder(c));
    }

    @Override
    public void forEach(StoreQueries q, int partition, boolean stale, StoreQueries.EntryVisitor v) {
        q.forEachTimestampedWindow(partition, stale, v);
    }

    @Override
    public boolean timestampedValues() {
        return true;
    }

    /** The API layer answers key lookups of key-value stores only. */
    @Override
    public boolean keyLookups() {
        return false;
    }

    /** The store, read-only, over the input topic, as a window store's ({@link WindowStores#readOnly}). */
    @Override
    public Topology readOnlyTopology(DriverConfig c) {
        return WindowStores.readOnly(builder(c), c);
    }

    /**
     * The store's supplier: Stores.persistentTimestampedWindowStore, or with
     * another segment interval the internal constructor it calls, as
     * {@link WindowStores#supplier} builds a window store's.
     */
    static WindowBytesStoreSupplier supplier(DriverConfig c) {
        if (c.segmentIntervalMs == 0 || c.segmentIntervalMs == WindowStores.defaultSegmentIntervalMs(c.retentionMs)) {
            return Stores.persistentTimestampedWindowStore(c.store, Duration.ofMillis(c.retentionMs), Duration.ofMillis(c.windowSizeMs), false);
        }
        return new RocksDbWindowBytesStoreSupplier(c.store, c.retentionMs, c.segmentIntervalMs, c.windowSizeMs, false,
                RocksDbWindowBytesStoreSupplier.WindowStoreTypes.TIMESTAMPED_WINDOW_STORE);
    }

    /** The store's builder: Bytes keys, byte[] values, logged (the default), no caching. */
    static StoreBuilder<TimestampedWindowStore<Bytes, byte[]>> builder(DriverConfig c) {
        return Stores.timestampedWindowStoreBuilder(supplier(c), Serdes.Bytes(), Serdes.ByteArray());
    }
}
