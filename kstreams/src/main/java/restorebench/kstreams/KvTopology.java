package restorebench.kstreams;

import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.BytesDeserializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
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

    /** Adds a store kind's put processor on the source and its store, connected to it. */
    static void addPut(Topology t, ProcessorSupplier<Bytes, byte[], Void, Void> put, StoreBuilder<?> store) {
        t.addProcessor(PROCESSOR, put, SOURCE);
        t.addStateStore(store, PROCESSOR);
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
}
