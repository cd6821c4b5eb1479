package restorebench.kstreams;

import org.apache.kafka.streams.Topology;

/**
 * One kind of state store the kv topology builds and the driver reads
 * (restorebench.store.kind, named as the Go tool's fill.store_kind): the
 * checks of its own settings, the put processor and store it adds to the
 * topology, and how its live entries are read back as the bytes the digest
 * sums. Each kind is one class of this package named *Stores with a
 * static KIND instance, which {@link StoreKinds} finds: adding a kind is
 * adding one class.
 */
interface StoreKindDef {
    /** Its name in restorebench.store.kind. */
    String key();

    /**
     * Its place among the kinds (lower first), as errors list them: the
     * order of the Go tool's kinds (config.StoreKinds). One kind an order.
     */
    int order();

    /**
     * Checks the configuration's store settings for this kind (topology,
     * store type, retention, window size, segment interval, store keys),
     * each refusal naming the setting and the kind.
     */
    void check(DriverConfig c) throws DriverConfig.ConfigError;

    /**
     * Adds the put processor ({@link KvTopology#PROCESSOR}, on
     * {@link KvTopology#SOURCE}, which the kv topology adds) and this
     * kind's store, logged to its default changelog, to t.
     */
    void addTo(Topology t, DriverConfig c, ProcessedTracker tracker);

    /** Visits every live entry of store partition p as the digest sums it. */
    void forEach(StoreQueries q, int partition, boolean stale, StoreQueries.EntryVisitor v);

    /**
     * Whether a key's value is read as a ValueAndTimestamp and answered
     * with the timestamp before the value, as the Go tool's expected state
     * of the kind holds it (lookups, ranges, the table topology's store).
     */
    default boolean timestampedValues() {
        return false;
    }

    /** Whether the API layer answers key lookups and ranges of the store. */
    default boolean keyLookups() {
        return true;
    }

    /**
     * The table topology of a kind whose store over the input topic is not
     * a KTable's: its store, read-only, with the topic as its changelog
     * (a window store's); null (the default) for a KTable's.
     */
    default Topology readOnlyTopology(DriverConfig c) {
        return null;
    }
}
