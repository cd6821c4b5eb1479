package restorebench.kstreams;

import java.util.Properties;
import java.util.Set;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

/**
 * The table topology: a KTable over input.topic (Bytes key, byte[] value; a
 * null value deletes), materialized in the key-value store `store`, built
 * with topology.optimization=reuse.ktable.source.topics. With that
 * optimization Kafka Streams creates no &lt;application.id&gt;-&lt;store&gt;-changelog
 * topic: the source topic itself is the store's changelog, so a cold start
 * restores the store from it, through the same StoreChangelogReader and
 * state updater path (and the same StateRestoreListener callbacks) as any
 * changelog. This is how restorebench restores a topic it did not fill and
 * did not name after the store.
 *
 * A source changelog is restored only up to min(log-end offset, the
 * application's committed offset on that partition), a missing commit
 * counting as 0 (StoreChangelogReader, Kafka Streams 3.x to 4.4): the rest is
 * processed, not restored. The Go side therefore commits the group's offsets
 * at the topic's end offsets before it starts the instance (see
 * PROTOCOL.md); the driver only builds the topology. Nothing in it writes
 * to any topic. No caching, so the store holds exactly the topic's last
 * values. One sub-topology, so task 0_P owns store partition P.
 */
final class TableTopology {
    private TableTopology() {}

    /** The optimizations that make the source topic the store's changelog. */
    static final Set<String> REUSING = Set.of(StreamsConfig.REUSE_KTABLE_SOURCE_TOPICS, StreamsConfig.OPTIMIZE);

    /**
     * Sets topology.optimization to reuse.ktable.source.topics when the
     * properties name none, and refuses a value without it (or "all"):
     * without it Kafka Streams would create and restore an empty changelog
     * of its own instead of the topic.
     */
    static void requireSourceReuse(Properties streams) throws DriverConfig.ConfigError {
        String v = streams.getProperty(StreamsConfig.TOPOLOGY_OPTIMIZATION_CONFIG, "").trim();
        if (v.isEmpty()) {
            streams.setProperty(StreamsConfig.TOPOLOGY_OPTIMIZATION_CONFIG, StreamsConfig.REUSE_KTABLE_SOURCE_TOPICS);
            return;
        }
        Set<String> named;
        try {
            named = StreamsConfig.verifyTopologyOptimizationConfigs(v);
        } catch (RuntimeException e) {
            throw new DriverConfig.ConfigError(StreamsConfig.TOPOLOGY_OPTIMIZATION_CONFIG + "=" + v + ": " + e.getMessage());
        }
        for (String o : named) {
            if (REUSING.contains(o)) {
                return;
            }
        }
        throw new DriverConfig.ConfigError("restorebench.topology=table restores the input topic as the store's changelog, which needs "
                + StreamsConfig.TOPOLOGY_OPTIMIZATION_CONFIG + " to include " + StreamsConfig.REUSE_KTABLE_SOURCE_TOPICS
                + " (or be all), not " + v);
    }

    /**
     * The store the table is materialized in: a timestamped one for store.kind=timestamped-key-value (what a DSL
     * table, count or aggregate materializes; digested with each value behind its timestamp), else by the store type.
     */
    static KeyValueBytesStoreSupplier supplier(DriverConfig c) {
        if (c.storeKind.timestampedValues()) {
            return Stores.persistentTimestampedKeyValueStore(c.store);
        }
        switch (c.storeType) {
            case TIMESTAMPED:
                return Stores.persistentTimestampedKeyValueStore(c.store);
            case MEMORY:
                return Stores.inMemoryKeyValueStore(c.store);
            case ROCKSDB:
            default:
                return Stores.persistentKeyValueStore(c.store);
        }
    }

    /** The read-only store's source and processor names (a window store's table topology). */
    static final String SOURCE = "table-source";
    static final String PROCESSOR = "table-read-only";

    /**
     * Builds the topology with the configuration's optimizations: a KTable
     * over the input topic, or for a kind with a store of its own over it
     * (store.kind=window or timestamped-window) that store, read-only
     * ({@link StoreKindDef#readOnlyTopology}).
     */
    static Topology build(DriverConfig c) {
        Topology own = c.storeKind.readOnlyTopology(c);
        if (own != null) {
            return own;
        }
        StreamsBuilder b = new StreamsBuilder();
        b.table(c.inputTopic, Consumed.with(Serdes.Bytes(), Serdes.ByteArray()),
                Materialized.<Bytes, byte[]>as(supplier(c))
                        .withKeySerde(Serdes.Bytes())
                        .withValueSerde(Serdes.ByteArray())
                        .withCachingDisabled());
        return b.build(c.streams);
    }
}
