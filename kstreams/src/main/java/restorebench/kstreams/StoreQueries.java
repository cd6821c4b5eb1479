package restorebench.kstreams;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;

import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.TaskMetadata;
import org.apache.kafka.streams.ThreadMetadata;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreType;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.apache.kafka.streams.state.ReadOnlyWindowStore;
import org.apache.kafka.streams.state.ValueAndTimestamp;

/**
 * The `digest` and `balances` commands: read the instance's own store
 * partitions through interactive queries, one partition at a time
 * (StoreQueryParameters.withPartition). The partitions are those of the local
 * tasks in metadataForLocalThreads(): active ones, plus standby ones for
 * "digest all" (stale stores allowed). Every topology has one
 * sub-topology, so task 0_P owns store partition P. Keys and values are
 * turned back into the bytes the changelog holds: kv keys are Bytes, ledger
 * keys UTF-8 strings; a timestamped store's value is digested without its
 * timestamp (the ledger's, store.type=timestamped), except a timestamped
 * key-value store's (store.kind=timestamped-key-value), digested with the
 * timestamp before it as the Go tool's expected state of that kind is; a
 * window store's entries are digested under key and window start, a
 * session store's under key, session end and start; a versioned store's
 * versions under key and validFrom, with validTo and value
 * ({@link VersionedStores#forEach}).
 */
final class StoreQueries {
    /** One live entry as changelog bytes. */
    interface EntryVisitor {
        void visit(byte[] key, byte[] value);
    }

    private final KafkaStreams streams;
    private final DriverConfig config;
    private final Events events;

    StoreQueries(KafkaStreams streams, DriverConfig config, Events events) {
        this.streams = streams;
        this.config = config;
        this.events = events;
    }

    /** Whether a key-value store is read as a timestamped store (values are ValueAndTimestamp). */
    private boolean timestamped() {
        return config.topology == DriverConfig.Topology.LEDGER || config.storeType == DriverConfig.StoreType.TIMESTAMPED;
    }

    /** The store partitions of the local active tasks, plus standby ones when withStandby. */
    SortedSet<Integer> partitions(boolean withStandby) {
        SortedSet<Integer> ps = new TreeSet<>();
        for (ThreadMetadata t : streams.metadataForLocalThreads()) {
            for (TaskMetadata m : t.activeTasks()) {
                ps.add(m.taskId().partition());
            }
            if (withStandby) {
                for (TaskMetadata m : t.standbyTasks()) {
                    ps.add(m.taskId().partition());
                }
            }
        }
        return ps;
    }

    /**
     * Visits every live entry of one store partition, by the store's kind:
     * a key-value store's entries as the changelog holds them, a
     * timestamped key-value store's with the timestamp before each value,
     * a window store's under the record key and window start, a session
     * store's under record key, end and start ({@link SessionStores#forEach}).
     */
    void forEach(int partition, boolean stale, EntryVisitor v) {
        config.storeKind.forEach(this, partition, stale, v);
    }

    /** The client the queries go to (a kind that reads its store its own way). */
    KafkaStreams streams() {
        return streams;
    }

    /** The driver's configuration. */
    DriverConfig config() {
        return config;
    }

    /** The query of one partition of the store as type, stale stores allowed when stale. */
    <T> T query(int partition, boolean stale, QueryableStoreType<T> type) {
        StoreQueryParameters<T> q = StoreQueryParameters.fromNameAndType(config.store, type).withPartition(partition);
        if (stale) {
            q = q.enableStaleStores();
        }
        return streams.store(q);
    }

    /** A key-value store's entries (a timestamped one's values without their timestamps). */
    @SuppressWarnings({"unchecked", "rawtypes"})
    void forEachKeyValue(int partition, boolean stale, EntryVisitor v) {
        QueryableStoreType<ReadOnlyKeyValueStore<Object, Object>> type = timestamped()
                ? (QueryableStoreType) QueryableStoreTypes.timestampedKeyValueStore()
                : (QueryableStoreType) QueryableStoreTypes.keyValueStore();
        try (KeyValueIterator<Object, Object> it = query(partition, stale, type).all()) {
            while (it.hasNext()) {
                KeyValue<Object, Object> kv = it.next();
                byte[] value = valueBytes(kv.value);
                if (value != null) {
                    v.visit(keyBytes(kv.key), value);
                }
            }
        }
    }

    /** A timestamped key-value store's entries, each value behind its timestamp. */
    void forEachTimestamped(int partition, boolean stale, EntryVisitor v) {
        ReadOnlyKeyValueStore<Bytes, ValueAndTimestamp<byte[]>> store =
                query(partition, stale, QueryableStoreTypes.<Bytes, byte[]>timestampedKeyValueStore());
        try (KeyValueIterator<Bytes, ValueAndTimestamp<byte[]>> it = store.all()) {
            while (it.hasNext()) {
                KeyValue<Bytes, ValueAndTimestamp<byte[]>> kv = it.next();
                if (kv.value != null && kv.value.value() != null) {
                    v.visit(kv.key.get(), Digest.timestampedValue(kv.value.timestamp(), kv.value.value()));
                }
            }
        }
    }

    /**
     * A window store's entries through WindowStore.all(), which serves the
     * windows that start after stream time minus the retention: each under
     * the record key and its window's start.
     */
    void forEachWindow(int partition, boolean stale, EntryVisitor v) {
        ReadOnlyWindowStore<Bytes, byte[]> store = query(partition, stale, QueryableStoreTypes.<Bytes, byte[]>windowStore());
        try (KeyValueIterator<Windowed<Bytes>, byte[]> it = store.all()) {
            while (it.hasNext()) {
                KeyValue<Windowed<Bytes>, byte[]> kv = it.next();
                if (kv.value != null) {
                    v.visit(Digest.windowKey(kv.key.key().get(), kv.key.window().start()), kv.value);
                }
            }
        }
    }

    /**
     * A timestamped window store's entries, as {@link #forEachWindow}
     * reads a window store's, each value with its timestamp before it.
     */
    void forEachTimestampedWindow(int partition, boolean stale, EntryVisitor v) {
        ReadOnlyWindowStore<Bytes, ValueAndTimestamp<byte[]>> store =
                query(partition, stale, QueryableStoreTypes.<Bytes, byte[]>timestampedWindowStore());
        try (KeyValueIterator<Windowed<Bytes>, ValueAndTimestamp<byte[]>> it = store.all()) {
            while (it.hasNext()) {
                KeyValue<Windowed<Bytes>, ValueAndTimestamp<byte[]>> kv = it.next();
                if (kv.value != null && kv.value.value() != null) {
                    v.visit(Digest.windowKey(kv.key.key().get(), kv.key.window().start()),
                            Digest.timestampedValue(kv.value.timestamp(), kv.value.value()));
                }
            }
        }
    }

    static byte[] keyBytes(Object k) {
        if (k instanceof Bytes) {
            return ((Bytes) k).get();
        }
        if (k instanceof String) {
            return ((String) k).getBytes(StandardCharsets.UTF_8);
        }
        if (k instanceof byte[]) {
            return (byte[]) k;
        }
        throw new IllegalStateException("unexpected key type " + k.getClass().getName());
    }

    static byte[] valueBytes(Object v) {
        if (v instanceof ValueAndTimestamp) {
            v = ((ValueAndTimestamp<?>) v).value();
        }
        if (v == null || v instanceof byte[]) {
            return (byte[]) v;
        }
        throw new IllegalStateException("unexpected value type " + v.getClass().getName());
    }

    /** The `digest` command: digests every local (active, or all) store partition. */
    void digest(boolean all) {
        long t0 = System.nanoTime();
        List<Map<String, Object>> parts = new ArrayList<>();
        for (int p : partitions(all)) {
            Digest d = new Digest();
            forEach(p, all, d::add);
            parts.add(Json.obj("partition", p, "keys", d.keys(), "live_bytes", d.liveBytes(), "digest", d.hex()));
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        events.emit("digest", Json.obj("store", config.store, "scope", all ? "all" : "active",
                "seconds", seconds, "partitions", parts));
    }

    /**
     * The `entries PARTITION PATH` command: writes one line per live entry
     * of the active store partition, the key in hex, a tab and the entry's
     * hash (Digest.entryHash, 16 hex digits: the terms the partition's
     * digest sums), to PATH. restorebench asks it of a partition whose
     * digest did not verify, to name the key the store holds wrong.
     */
    void entries(int partition, String path) throws IOException {
        long t0 = System.nanoTime();
        long[] keys = new long[1];
        writeLines(path, out -> forEach(partition, false, (key, value) -> {
            out.line(Digest.toHex(key), Digest.hex16(Digest.entryHash(key, value)));
            keys[0]++;
        }));
        double seconds = (System.nanoTime() - t0) / 1e9;
        events.emit("entries", Json.obj("path", path, "partition", partition, "keys", keys[0], "seconds", seconds));
    }

    /**
     * The `balances PATH` command (ledger): writes account, balance and count
     * of every account in the active tasks' stores to PATH.
     */
    void balances(String path) throws IOException {
        if (config.topology != DriverConfig.Topology.LEDGER) {
            throw new IllegalStateException("balances: the " + config.topology.name().toLowerCase() + " topology has no balances (ledger only)");
        }
        long t0 = System.nanoTime();
        long[] totals = new long[2]; // accounts, transactions
        writeLines(path, out -> {
            for (int p : partitions(false)) {
                forEach(p, false, (key, value) -> {
                    long[] bc = LedgerTopology.decode(value);
                    out.line(new String(key, StandardCharsets.UTF_8), Long.toString(bc[0]), Long.toString(bc[1]));
                    totals[0]++;
                    totals[1] += bc[1];
                });
            }
        });
        double seconds = (System.nanoTime() - t0) / 1e9;
        events.emit("balances", Json.obj("path", path, "accounts", totals[0], "transactions", totals[1], "seconds", seconds));
    }

    /** Lines of tab-separated fields, keeping the first write's failure (a store visitor cannot throw one). */
    static final class Lines {
        private final BufferedWriter w;
        private IOException failed;

        Lines(BufferedWriter w) { this.w = w; }

        void line(String... fields) {
            if (failed != null) {
                return;
            }
            try {
                for (int i = 0; i < fields.length; i++) {
                    if (i > 0) {
                        w.write('\t');
                    }
                    w.write(fields[i]);
                }
                w.write('\n');
            } catch (IOException e) {
                failed = e;
            }
        }
    }

    /**
     * Writes the lines body gives to path through a temporary file beside
     * it, renamed into place once whole, so a reader never sees half a file;
     * a failed write leaves no file.
     */
    static void writeLines(String path, java.util.function.Consumer<Lines> body) throws IOException {
        Path dst = Paths.get(path);
        Path tmp = Files.createTempFile(dst.toAbsolutePath().getParent(), dst.getFileName().toString() + ".", ".tmp");
        try (BufferedWriter w = new BufferedWriter(new OutputStreamWriter(Files.newOutputStream(tmp), StandardCharsets.UTF_8), 1 << 16)) {
            Lines out = new Lines(w);
            body.accept(out);
            if (out.failed != null) {
                throw out.failed;
            }
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(tmp);
            throw e;
        }
        Files.move(tmp, dst, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }
}
