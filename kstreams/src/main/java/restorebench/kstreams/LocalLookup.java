package restorebench.kstreams;

import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ValueAndTimestamp;

/**
 * One key's lookup in this instance's own store partition, as an
 * application's API layer reads it: KafkaStreams.store with
 * StoreQueryParameters.withPartition, and enableStaleStores() when stale
 * reads are allowed (without it, a restoring store or a standby throws
 * InvalidStateStoreException, which the caller answers as refused). The
 * value is the changelog's bytes; a timestamped key-value store's
 * (store.kind=timestamped-key-value) comes with its 8-byte timestamp
 * before it, as the Go side's read checker and digest expect; the
 * DSL-style timestamped store of store.type=timestamped answers without it (the key-value facade strips it).
 *
 * <p>Without stale reads a partition answers only while its store is
 * restored by this client's own restore listener (StoreProgress), before
 * and after the read: Kafka Streams checks only the stream thread's state
 * (StreamThreadStateStoreProvider: RUNNING), not the task's, and its
 * active tasks include those its state updater is restoring, so a task
 * revived after corruption (TaskManager.handleCorruption, closeDirtyAndRevive)
 * or opened between that check and the read serves an empty or partial
 * store as if restored. Under load a rolling restart was seen to answer
 * found=false so, from a partition no restore callback had named yet.
 */
final class LocalLookup {
    private final KafkaStreams streams;
    private final DriverConfig config;
    /** The restore listener's view of each partition; null in bare mode (no listener: no such check). */
    private final StoreProgress progress;

    LocalLookup(KafkaStreams streams, DriverConfig config, StoreProgress progress) {
        this.streams = streams;
        this.config = config;
        this.progress = progress;
    }

    /** The key's value in store partition p, null when the store holds none. */
    byte[] get(int partition, byte[] key, boolean stale) {
        StoreProgress.Position before = restoredOrRefuse(partition, stale);
        Bytes k = Bytes.wrap(key);
        byte[] v;
        if (config.storeKind.timestampedValues()) {
            ValueAndTimestamp<byte[]> tv = query(partition, stale, QueryableStoreTypes.<Bytes, byte[]>timestampedKeyValueStore()).get(k);
            v = tv == null || tv.value() == null ? null : Digest.timestampedValue(tv.timestamp(), tv.value());
        } else {
            v = query(partition, stale, QueryableStoreTypes.<Bytes, byte[]>keyValueStore()).get(k);
        }
        unchangedOrRefuse(partition, stale, before);
        return v;
    }

    /**
     * Without stale reads, the partition's position when its store is
     * restored, else InvalidStateStoreException (refused and retried as a
     * restoring store's); null with stale reads or in bare mode.
     */
    private StoreProgress.Position restoredOrRefuse(int partition, boolean stale) {
        if (stale || progress == null) {
            return null;
        }
        StoreProgress.Position pos = progress.of(partition);
        if (!StoreProgress.RESTORED.equals(pos.state)) {
            throw new InvalidStateStoreException("partition " + partition + "'s store is "
                    + (pos.state.isEmpty() ? "not yet initialized" : pos.state) + " here: without stale reads only a restored store answers");
        }
        return pos;
    }

    /** Refuses a read during which the partition's restore state moved (a restore began: the task was revived or reassigned). */
    private void unchangedOrRefuse(int partition, boolean stale, StoreProgress.Position before) {
        if (before != null && progress.of(partition) != before) {
            throw new InvalidStateStoreException("partition " + partition + "'s store moved to " + progress.of(partition).state
                    + " during the read: without stale reads only a restored store answers");
        }
    }

    /** One entry of a range; false stops the range there. */
    interface RangeVisitor {
        boolean visit(byte[] key, byte[] value);
    }

    /**
     * Visits store partition p's entries with keys from from to to, both
     * included (ReadOnlyKeyValueStore.range), in key order, values as get
     * answers them, until the visitor says stop: the iterator is closed
     * then, and nothing past that entry is read.
     */
    void range(int partition, byte[] from, byte[] to, boolean stale, RangeVisitor v) {
        StoreProgress.Position before = restoredOrRefuse(partition, stale);
        rangeOf(partition, from, to, stale, v);
        unchangedOrRefuse(partition, stale, before);
    }

    private void rangeOf(int partition, byte[] from, byte[] to, boolean stale, RangeVisitor v) {
        Bytes f = Bytes.wrap(from), t = Bytes.wrap(to);
        if (config.storeKind.timestampedValues()) {
            try (KeyValueIterator<Bytes, ValueAndTimestamp<byte[]>> it =
                    query(partition, stale, QueryableStoreTypes.<Bytes, byte[]>timestampedKeyValueStore()).range(f, t)) {
                while (it.hasNext()) {
                    KeyValue<Bytes, ValueAndTimestamp<byte[]>> kv = it.next();
                    if (kv.value != null && kv.value.value() != null
                            && !v.visit(kv.key.get(), Digest.timestampedValue(kv.value.timestamp(), kv.value.value()))) {
                        return;
                    }
                }
            }
            return;
        }
        try (KeyValueIterator<Bytes, byte[]> it = query(partition, stale, QueryableStoreTypes.<Bytes, byte[]>keyValueStore()).range(f, t)) {
            while (it.hasNext()) {
                KeyValue<Bytes, byte[]> kv = it.next();
                if (kv.value != null && !v.visit(kv.key.get(), kv.value)) {
                    return;
                }
            }
        }
    }

    /**
     * The store partition as KafkaStreams.store gives it. Without stale
     * reads only while the client is RUNNING: under load Kafka Streams 4.x
     * was seen to serve a non-stale query from an active store it had just
     * been given and not yet restored (found=false for keys the changelog
     * holds), so while it rebalances or restores the read throws
     * InvalidStateStoreException, refused and retried as a restoring
     * store's is, as an application that checks the state would do.
     */
    private <T> T query(int partition, boolean stale, org.apache.kafka.streams.state.QueryableStoreType<T> type) {
        KafkaStreams.State state = streams.state();
        if (!stale && state != KafkaStreams.State.RUNNING) {
            throw new InvalidStateStoreException("this instance is " + state + ": without stale reads it answers only when RUNNING");
        }
        StoreQueryParameters<T> q = StoreQueryParameters.fromNameAndType(config.store, type).withPartition(partition);
        return streams.store(stale ? q.enableStaleStores() : q);
    }
}
