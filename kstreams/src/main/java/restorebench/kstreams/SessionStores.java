package restorebench.kstreams;

import java.nio.ByteBuffer;
import java.time.Duration;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.kstream.internals.SessionWindow;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlySessionStore;
import org.apache.kafka.streams.state.SessionBytesStoreSupplier;
import org.apache.kafka.streams.state.SessionStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

/**
 * The kv topology's session store (restorebench.store.kind=session), built
 * with Kafka Streams' own factories: Stores.persistentSessionStore (whose
 * RocksDbSessionBytesStoreSupplier fixes the segment interval at
 * max(retention / 2, 60 s); no factory takes another) or
 * Stores.inMemorySessionStore, under Stores.sessionStoreBuilder. Each
 * changelog key is the record key, the session end and the session start
 * (SessionKeySchema), as the Go tool's session fill writes it; a session is
 * digested under those same bytes (Go's loadgen.AppendSessionKey).
 */
final class SessionStores implements StoreKindDef {
    static final SessionStores KIND = new SessionStores();

    private SessionStores() {}

    @Override
    public String key() {
        return "session";
    }

    @Override
    public int order() {
        return 50;
    }

    /**
     * The kv or table topology, store type rocksdb or memory, a retention
     * and window size above 0, the retention at least the window (a session
     * lasts up to one), and no segment interval, which neither
     * Stores.persistentSessionStore nor Stores.inMemorySessionStore takes.
     */
    @Override
    public void check(DriverConfig c) throws DriverConfig.ConfigError {
        if (c.topology == DriverConfig.Topology.LEDGER) {
            c.requireKvTopology();
        }
        c.requireWindowedStore(" a session lasts up to");
        if (c.segmentIntervalMs != 0) {
            throw new DriverConfig.ConfigError(DriverConfig.P + "store.segment.interval.ms is for a RocksDB window store: Kafka Streams' session stores take none (RocksDbSessionBytesStoreSupplier uses max(retention / 2, 60 s))");
        }
    }

    @Override
    public void addTo(Topology t, DriverConfig c, ProcessedTracker tracker) {
        long size = c.windowSizeMs;
        KvTopology.addPut(t, c, tracker, (store, r) -> put(store, r, size), builder(c));
    }

    @Override
    public void forEach(StoreQueries q, int partition, boolean stale, StoreQueries.EntryVisitor v) {
        forEach(q.query(partition, stale, QueryableStoreTypes.<Bytes, byte[]>sessionStore()), v);
    }

    /**
     * The table topology of a session store: the store, read-only, over the
     * input topic, as a window store's ({@link WindowStores#readOnly}): a
     * cold start restores the topic through the session store's own restore,
     * sessions past the retention of the largest end restored dropped.
     */
    @Override
    public Topology readOnlyTopology(DriverConfig c) {
        return WindowStores.readOnly(builder(c), c);
    }

    /** The store's supplier: RocksDB segments, or in memory with store.type=memory. */
    static SessionBytesStoreSupplier supplier(DriverConfig c) {
        Duration retention = Duration.ofMillis(c.retentionMs);
        if (c.storeType == DriverConfig.StoreType.MEMORY) {
            return Stores.inMemorySessionStore(c.store, retention);
        }
        return Stores.persistentSessionStore(c.store, retention);
    }

    /** The store's builder: Bytes keys, byte[] values, logged (the default), no caching. */
    static StoreBuilder<SessionStore<Bytes, byte[]>> builder(DriverConfig c) {
        return Stores.sessionStoreBuilder(supplier(c), Serdes.Bytes(), Serdes.ByteArray());
    }

    /**
     * How long after its start the session of key ends, in ms: (window - 1)
     * times (q + 1) / 4, q the key's last byte mod 4 (Go's
     * loadgen.SessionLength), so each key's sessions last a quarter, half,
     * three quarters or all of a window.
     */
    static long sessionLength(byte[] key, long windowMs) {
        long q = key.length == 0 ? 0 : (key[key.length - 1] & 0xff) % 4;
        return (windowMs - 1) * (q + 1) / 4;
    }

    /**
     * The session a record of key at timestamp ts belongs to: from the
     * start of the tumbling window ts falls in, sessionLength long (a
     * record stamped with its session's end, as the fill's are, falls in
     * the same one).
     */
    static SessionWindow sessionOf(byte[] key, long ts, long windowMs) {
        long start = WindowStores.windowStart(ts, windowMs);
        return new SessionWindow(start, start + sessionLength(key, windowMs));
    }

    /** A session's digest key: record key, end, start, 8 bytes each big-endian. */
    static byte[] digestKey(byte[] key, long start, long end) {
        return ByteBuffer.allocate(key.length + 16).put(key).putLong(end).putLong(start).array();
    }

    /**
     * Visits every session the store serves, through its own read API:
     * ReadOnlySessionStore.fetch(null, null), all keys and sessions, which
     * serves (RocksDBSessionStore's segmented reads, InMemorySessionStore's
     * expiry before each read) the sessions ending after stream time minus
     * the retention.
     */
    static void forEach(ReadOnlySessionStore<Bytes, byte[]> store, StoreQueries.EntryVisitor v) {
        try (KeyValueIterator<Windowed<Bytes>, byte[]> it = store.fetch(null, null)) {
            while (it.hasNext()) {
                KeyValue<Windowed<Bytes>, byte[]> kv = it.next();
                if (kv.value != null) {
                    v.visit(digestKey(kv.key.key().get(), kv.key.window().start(), kv.key.window().end()), kv.value);
                }
            }
        }
    }

    /**
     * Puts a record into its session (sessionOf); a null value removes the
     * session, as a session merge removes the sessions it replaces.
     */
    static void put(SessionStore<Bytes, byte[]> store, Record<Bytes, byte[]> r, long windowSizeMs) {
        Windowed<Bytes> session = new Windowed<>(r.key(), sessionOf(r.key().get(), r.timestamp(), windowSizeMs));
        if (r.value() == null) {
            store.remove(session);
        } else {
            store.put(session, r.value());
        }
    }
}
