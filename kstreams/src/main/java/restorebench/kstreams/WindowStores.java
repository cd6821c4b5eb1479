package restorebench.kstreams;

import java.time.Duration;

import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.BytesDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.api.Processor;
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

    @Override
    public int order() {
        return 30;
    }

    /**
     * The kv or table topology, store type rocksdb or memory, a retention
     * and window size above 0, the retention at least the window (as
     * Stores.persistentWindowStore requires), and a segment interval only on
     * a RocksDB store.
     */
    @Override
    public void check(DriverConfig c) throws DriverConfig.ConfigError {
        if (c.topology == DriverConfig.Topology.LEDGER) {
            c.requireKvTopology();
        }
        c.requireWindowedStore(": Kafka Streams refuses such a store");
        if (c.segmentIntervalMs != 0 && c.storeType == DriverConfig.StoreType.MEMORY) {
            throw new DriverConfig.ConfigError(DriverConfig.P + "store.segment.interval.ms is for a RocksDB window store: Stores.inMemoryWindowStore has no segments");
        }
    }

    @Override
    public void addTo(Topology t, DriverConfig c, ProcessedTracker tracker) {
        long size = c.windowSizeMs;
        // Into the tumbling window of the store's size the record's timestamp falls in (a null value deletes).
        KvTopology.addPut(t, c, tracker, (store, r) -> store.put(r.key(), r.value(), windowStart(r.timestamp(), size)), builder(c));
    }

    @Override
    public void forEach(StoreQueries q, int partition, boolean stale, StoreQueries.EntryVisitor v) {
        q.forEachWindow(partition, stale, v);
    }

    /**
     * The table topology of a window store: the store, read-only, over the
     * input topic (Topology.addReadOnlyStateStore, which builds it with
     * logging disabled and makes the topic its changelog), so a cold start
     * restores the topic through the window store's own restore: each key
     * parsed as the record key, window start and sequence number, its
     * segment chosen by the window start, windows past the retention of
     * the largest start restored dropped, as in the application that wrote
     * the topic. As with the KTable's source topic, Kafka Streams restores
     * it up to the application's committed offsets, which the Go side sets
     * at the topic's end; the processor applies nothing past them (the
     * restore is what is measured, and nothing is written anywhere).
     */
    @Override
    public Topology readOnlyTopology(DriverConfig c) {
        return readOnly(builder(c), c);
    }

    /** A read-only store of builder b over the input topic (a window store's or a timestamped window store's). */
    static Topology readOnly(StoreBuilder<?> b, DriverConfig c) {
        Topology t = new Topology();
        t.addReadOnlyStateStore(b, TableTopology.SOURCE, new BytesDeserializer(), new ByteArrayDeserializer(),
                c.inputTopic, TableTopology.PROCESSOR, ReadOnly::new);
        return t;
    }

    /** The read-only store's processor: it applies nothing (a new one per task, as Kafka Streams requires). */
    private static final class ReadOnly implements Processor<Bytes, byte[], Void, Void> {
        @Override
        public void process(Record<Bytes, byte[]> record) {
            // Past the committed offsets nothing is applied: the restore is what is measured.
        }
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

}
