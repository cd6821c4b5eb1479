package restorebench.kstreams;

import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.BytesDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.TimestampedKeyValueStore;
import org.apache.kafka.streams.state.ValueAndTimestamp;
import org.apache.kafka.streams.state.WindowStore;

/**
 * The kv topology: input.topic (Bytes key, byte[] value) → a processor that
 * puts each record into the key-value store `store` (a null value deletes, an
 * empty value is a live, empty value). The store is logged with Kafka Streams'
 * default changelog (&lt;application.id&gt;-&lt;store&gt;-changelog), so the topic
 * restorebench filled is what a cold start restores. No caching: the store
 * holds exactly the changelog's last values. One sub-topology, so task 0_P
 * owns store partition P. The store is of restorebench.store.kind: a
 * key-value store (by store.type), a timestamped key-value store, a
 * window store ({@link WindowStores}), a session store
 * ({@link SessionStores}), each record put into its session, or a
 * versioned key-value store ({@link VersionedStores}).
 */
final class KvTopology {
    private KvTopology() {}

    static final String SOURCE = "kv-source";
    static final String PROCESSOR = "kv-put";

    /** Builds the topology; tracker is null in bare mode. */
    static Topology build(DriverConfig c, ProcessedTracker tracker) {
        Topology t = new Topology();
        if (c.storeKind == DriverConfig.StoreKind.VERSIONED_KEY_VALUE) {
            VersionedStores.addTo(t, c, tracker, SOURCE, PROCESSOR);
            return t;
        }
        t.addSource(SOURCE, new BytesDeserializer(), new ByteArrayDeserializer(), c.inputTopic);
        String store = c.store;
        if (c.storeKind == DriverConfig.StoreKind.WINDOW) {
            long size = c.windowSizeMs;
            t.addProcessor(PROCESSOR, () -> new WindowPut(store, size, tracker), SOURCE);
            t.addStateStore(WindowStores.builder(c), PROCESSOR);
        } else if (c.storeKind == DriverConfig.StoreKind.SESSION) {
            long size = c.windowSizeMs;
            t.addProcessor(PROCESSOR, () -> new SessionStores.Put(store, size, tracker), SOURCE);
            t.addStateStore(SessionStores.builder(c), PROCESSOR);
        } else if (c.storeKind == DriverConfig.StoreKind.TIMESTAMPED_KEY_VALUE || c.storeType == DriverConfig.StoreType.TIMESTAMPED) {
            t.addProcessor(PROCESSOR, () -> new TimestampedPut(store, tracker), SOURCE);
            t.addStateStore(timestampedBuilder(c), PROCESSOR);
        } else {
            KeyValueBytesStoreSupplier s = c.storeType == DriverConfig.StoreType.MEMORY
                    ? Stores.inMemoryKeyValueStore(store)
                    : Stores.persistentKeyValueStore(store);
            StoreBuilder<KeyValueStore<Bytes, byte[]>> b = Stores.keyValueStoreBuilder(s, Serdes.Bytes(), Serdes.ByteArray());
            t.addProcessor(PROCESSOR, () -> new Put(store, tracker), SOURCE);
            t.addStateStore(b, PROCESSOR);
        }
        return t;
    }

    /**
     * A timestamped key-value store's builder: Stores.persistentTimestampedKeyValueStore,
     * or with store type memory Stores.inMemoryKeyValueStore, which
     * timestampedKeyValueStoreBuilder marks timestamped (so a restore puts
     * each record's timestamp before its value in both).
     */
    static StoreBuilder<TimestampedKeyValueStore<Bytes, byte[]>> timestampedBuilder(DriverConfig c) {
        KeyValueBytesStoreSupplier s = c.storeType == DriverConfig.StoreType.MEMORY
                ? Stores.inMemoryKeyValueStore(c.store)
                : Stores.persistentTimestampedKeyValueStore(c.store);
        return Stores.timestampedKeyValueStoreBuilder(s, Serdes.Bytes(), Serdes.ByteArray());
    }

    /** Common part of the put processors (here and in the store kinds' classes): the processed counters. */
    abstract static class Base implements Processor<Bytes, byte[], Void, Void> {
        final String storeName;
        private final ProcessedTracker.Cursor cursor;
        ProcessorContext<Void, Void> context;

        Base(String storeName, ProcessedTracker tracker) {
            this.storeName = storeName;
            this.cursor = tracker == null ? null : new ProcessedTracker.Cursor(tracker);
        }

        @Override
        public void init(ProcessorContext<Void, Void> context) {
            this.context = context;
        }

        final void track() {
            if (cursor != null) {
                RecordMetadata m = context.recordMetadata().orElse(null);
                if (m != null) {
                    cursor.record(m.topic(), m.partition(), m.offset());
                }
            }
        }
    }

    /** Puts into a plain key-value store (rocksdb or memory). */
    private static final class Put extends Base {
        private KeyValueStore<Bytes, byte[]> store;

        Put(String storeName, ProcessedTracker tracker) {
            super(storeName, tracker);
        }

        @Override
        public void init(ProcessorContext<Void, Void> context) {
            super.init(context);
            store = context.getStateStore(storeName);
        }

        @Override
        public void process(Record<Bytes, byte[]> r) {
            if (r.key() != null) {
                store.put(r.key(), r.value()); // null deletes
            }
            track();
        }
    }

    /** Puts into a timestamped key-value store, as the DSL's stores are. */
    private static final class TimestampedPut extends Base {
        private TimestampedKeyValueStore<Bytes, byte[]> store;

        TimestampedPut(String storeName, ProcessedTracker tracker) {
            super(storeName, tracker);
        }

        @Override
        public void init(ProcessorContext<Void, Void> context) {
            super.init(context);
            store = context.getStateStore(storeName);
        }

        @Override
        public void process(Record<Bytes, byte[]> r) {
            if (r.key() != null) {
                store.put(r.key(), ValueAndTimestamp.make(r.value(), r.timestamp())); // make(null) = null deletes
            }
            track();
        }
    }

    /**
     * Puts into a window store: each record into the tumbling window of the
     * store's size its timestamp falls in (a null value deletes). The input
     * topic stays empty in a restore; this is what makes the store a
     * processor's, logged to its changelog.
     */
    private static final class WindowPut extends Base {
        private final long windowSizeMs;
        private WindowStore<Bytes, byte[]> store;

        WindowPut(String storeName, long windowSizeMs, ProcessedTracker tracker) {
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
                store.put(r.key(), r.value(), WindowStores.windowStart(r.timestamp(), windowSizeMs));
            }
            track();
        }
    }
}
