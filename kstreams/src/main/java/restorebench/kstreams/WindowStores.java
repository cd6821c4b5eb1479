package restorebench.kstreams;

import java.time.Duration;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.WindowBytesStoreSupplier;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.internals.RocksDbWindowBytesStoreSupplier;

/**
 * The kv topology's window store (restorebench.store.kind=window): a window
 * store without duplicates, so each changelog key is the record key, the
 * window start and sequence number 0, as the Go tool's window fill writes
 * it. Built with Kafka Streams' own factories: Stores.persistentWindowStore
 * (segment interval max(retention / 2, 60 s)) or Stores.inMemoryWindowStore.
 */
final class WindowStores implements StoreKindDef {
    static final WindowStores KIND = new WindowStores();

    private WindowStores() {}

    @Override
    public String key() {
        return "window";
    }

    /**
     * The kv topology, store type rocksdb or memory, a retention and window
     * size above 0, the retention at least the window (as
     * Stores.persistentWindowStore requires), and a segment interval only on
     * a RocksDB store.
     */
    @Override
    public void check(DriverConfig c) throws DriverConfig.ConfigError {
        c.refuseStoreKeys();
        c.requireKvTopology();
        c.refuseTimestampedType();
        String P = DriverConfig.P;
        if (c.windowSizeMs <= 0 || c.retentionMs <= 0) {
            throw new DriverConfig.ConfigError(c.kindName() + " needs " + P + "store.retention.ms and " + P + "store.window.size.ms above 0");
        }
        if (c.retentionMs < c.windowSizeMs) {
            throw new DriverConfig.ConfigError(P + "store.retention.ms=" + c.retentionMs + " is shorter than the window (" + c.windowSizeMs + " ms): Kafka Streams refuses such a store");
        }
        if (c.segmentIntervalMs != 0 && c.storeType == DriverConfig.StoreType.MEMORY) {
            throw new DriverConfig.ConfigError(P + "store.segment.interval.ms is for a RocksDB window store: Stores.inMemoryWindowStore has no segments");
        }
    }

    @Override
    public void addTo(Topology t, DriverConfig c, ProcessedTracker tracker) {
        String store = c.store;
        long size = c.windowSizeMs;
        KvTopology.addPut(t, () -> new Put(store, size, tracker), builder(c));
    }

    @Override
    public void forEach(StoreQueries q, int partition, boolean stale, StoreQueries.EntryVisitor v) {
        q.forEachWindow(partition, stale, v);
    }

    /** The API layer answers key lookups of key-value stores only. */
    @Override
    public boolean keyLookups() {
        return false;
    }

    /** Kafka Streams' segment interval for a persistent window store of this retention. */
    static long defaultSegmentIntervalMs(long retentionMs) {
        return Math.max(retentionMs / 2, 60_000L);
    }

    /**
     * The store's supplier. Another segment interval than Kafka Streams'
     * default has no public factory: it is built with the internal
     * RocksDbWindowBytesStoreSupplier constructor that
     * Stores.persistentWindowStore itself calls, (name, retention, segment
     * interval, window size, retainDuplicates, DEFAULT_WINDOW_STORE), the
     * same signature in 3.9.0 and every 4.x release through 4.4.0 (checked
     * in their jars; 4.3 removed the older boolean one beside it).
     */
    static WindowBytesStoreSupplier supplier(DriverConfig c) {
        Duration retention = Duration.ofMillis(c.retentionMs);
        Duration size = Duration.ofMillis(c.windowSizeMs);
        if (c.storeType == DriverConfig.StoreType.MEMORY) {
            return Stores.inMemoryWindowStore(c.store, retention, size, false);
        }
        if (c.segmentIntervalMs == 0 || c.segmentIntervalMs == defaultSegmentIntervalMs(c.retentionMs)) {
            return Stores.persistentWindowStore(c.store, retention, size, false);
        }
        return new RocksDbWindowBytesStoreSupplier(c.store, c.retentionMs, c.segmentIntervalMs, c.windowSizeMs, false,
                RocksDbWindowBytesStoreSupplier.WindowStoreTypes.DEFAULT_WINDOW_STORE);
    }

    /** The store's builder: Bytes keys, byte[] values, logged (the default), no caching. */
    static StoreBuilder<WindowStore<Bytes, byte[]>> builder(DriverConfig c) {
        return Stores.windowStoreBuilder(supplier(c), Serdes.Bytes(), Serdes.ByteArray());
    }

    /** The start of the tumbling window of this size that timestamp ts falls in. */
    static long windowStart(long ts, long sizeMs) {
        return ts - Math.floorMod(ts, sizeMs);
    }

    /**
     * Puts into a window store: each record into the tumbling window of the
     * store's size its timestamp falls in (a null value deletes). The input
     * topic stays empty in a restore; this is what makes the store a
     * processor's, logged to its changelog.
     */
    private static final class Put extends KvTopology.Base {
        private final long windowSizeMs;
        private WindowStore<Bytes, byte[]> store;

        Put(String storeName, long windowSizeMs, ProcessedTracker tracker) {
            super(storeName, tracker);
            this.windowSizeMs = windowSizeMs;
        }

        @Override
        public void init(ProcessorContext<Void, Void> context) {
            super.init(context);
            store = context.getStateStore(storeName);
        }

        @Override
        public void process(Record<Bytes, byte[]> r) {
            if (r.key() != null) {
                store.put(r.key(), r.value(), windowStart(r.timestamp(), windowSizeMs));
            }
            track();
        }
    }
}
