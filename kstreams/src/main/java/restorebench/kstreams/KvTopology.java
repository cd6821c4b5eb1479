package restorebench.kstreams;

import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.BytesDeserializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.StoreBuilder;

/**
 * The kv topology: input.topic (Bytes key, byte[] value) → a processor that
 * puts each record into the key-value store `store` (a null value deletes, an
 * empty value is a live, empty value). The store is logged with Kafka Streams'
 * default changelog (&lt;application.id&gt;-&lt;store&gt;-changelog), so the topic
 * restorebench filled is what a cold start restores. No caching: the store
 * holds exactly the changelog's last values. One sub-topology, so task 0_P
 * owns store partition P. The put processor and the store are those of
 * restorebench.store.kind ({@link StoreKinds}: a key-value store by
 * store.type, a timestamped key-value store, a window store, a session
 * store, each record put into its session, or a versioned key-value store).
 */
final class KvTopology {
    private KvTopology() {}

    static final String SOURCE = "kv-source";
    static final String PROCESSOR = "kv-put";

    /** Builds the topology; tracker is null in bare mode. */
    static Topology build(DriverConfig c, ProcessedTracker tracker) {
        Topology t = new Topology();
        t.addSource(SOURCE, new BytesDeserializer(), new ByteArrayDeserializer(), c.inputTopic);
        c.storeKind.addTo(t, c, tracker);
        return t;
    }

    /**
     * Adds a store kind's put processor on the source, putting each keyed
     * record into the store with into, and the store, connected to it.
     */
    static <S extends StateStore> void addPut(Topology t, DriverConfig c, ProcessedTracker tracker, Into<S> into, StoreBuilder<S> store) {
        String name = c.store;
        t.addProcessor(PROCESSOR, () -> new Put<>(name, tracker, into), SOURCE);
        t.addStateStore(store, PROCESSOR);
    }

    /** How a store kind puts one record (its key not null) into its store. */
    interface Into<S> {
        void put(S store, Record<Bytes, byte[]> r);
    }

    /**
     * The put processor of every kind: puts each record with a key into the
     * store, then counts it processed (a record without a key only counts).
     * The input topic stays empty in a restore; the processor is what makes
     * the store a processor's, logged to its changelog.
     */
    private static final class Put<S extends StateStore> implements Processor<Bytes, byte[], Void, Void> {
        private final String storeName;
        private final Into<S> into;
        private final ProcessedTracker.Cursor cursor;
        private ProcessorContext<Void, Void> context;
        private S store;

        Put(String storeName, ProcessedTracker tracker, Into<S> into) {
            this.storeName = storeName;
            this.into = into;
            this.cursor = tracker == null ? null : new ProcessedTracker.Cursor(tracker);
        }

        @Override
        public void init(ProcessorContext<Void, Void> context) {
            this.context = context;
            store = context.getStateStore(storeName);
        }

        @Override
        public void process(Record<Bytes, byte[]> r) {
            if (r.key() != null) {
                into.put(store, r);
            }
            RecordMetadata m = cursor == null ? null : context.recordMetadata().orElse(null);
            if (m != null) {
                cursor.record(m.topic(), m.partition(), m.offset());
            }
        }
    }
}
