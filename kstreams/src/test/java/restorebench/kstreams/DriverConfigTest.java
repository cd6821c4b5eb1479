package restorebench.kstreams;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Properties;

import org.junit.jupiter.api.Test;
import org.rocksdb.CompactionStyle;
import org.rocksdb.CompressionType;

class DriverConfigTest {
    private static Properties base() {
        Properties p = new Properties();
        p.setProperty("restorebench.instance.id", "i0");
        p.setProperty("restorebench.input.topic", "in");
        p.setProperty("application.id", "app");
        p.setProperty("bootstrap.servers", "127.0.0.1:9092");
        return p;
    }

    @Test
    void defaults() throws Exception {
        DriverConfig c = DriverConfig.parse(base());
        assertEquals("i0", c.instanceId);
        assertEquals(DriverConfig.Topology.KV, c.topology);
        assertEquals("balances", c.store);
        assertEquals(DriverConfig.StoreType.ROCKSDB, c.storeType);
        assertEquals(100, c.tasksIntervalMs);
        assertEquals(100, c.processedIntervalMs);
        assertEquals(1000, c.lagsIntervalMs);
        assertEquals(1000, c.processIntervalMs);
        assertFalse(c.bare);
        assertTrue(c.closeLeaveGroup);
        assertNull(c.outputTopic);
        assertEquals("app-balances-changelog", c.changelogTopic());
        // Only non-driver keys reach StreamsConfig (and, before Kafka
        // Streams 4.2, the leave-on-close shim); no setter without options.
        assertEquals(c.leaveOnCloseSet ? 3 : 2, c.streams.size());
        assertNull(c.streams.getProperty("rocksdb.config.setter"));
    }

    @Test
    void driverKeys() throws Exception {
        Properties p = base();
        p.setProperty("restorebench.topology", "ledger");
        p.setProperty("restorebench.store", "acc");
        p.setProperty("restorebench.output.topic", "out");
        p.setProperty("restorebench.bare", "true");
        p.setProperty("restorebench.lags.interval.ms", "0");
        p.setProperty("restorebench.close.leave.group", "false");
        p.setProperty("num.standby.replicas", "1");
        DriverConfig c = DriverConfig.parse(p);
        assertFalse(c.closeLeaveGroup);
        assertEquals(DriverConfig.Topology.LEDGER, c.topology);
        assertEquals("acc", c.store);
        assertEquals("out", c.outputTopic);
        assertTrue(c.bare);
        assertEquals(0, c.lagsIntervalMs);
        assertEquals("1", c.streams.getProperty("num.standby.replicas"));
    }

    @Test
    void tableTopologyReusesItsSourceTopicAsTheChangelog() throws Exception {
        Properties p = base();
        p.setProperty("restorebench.topology", "table");
        DriverConfig c = DriverConfig.parse(p);
        assertEquals(DriverConfig.Topology.TABLE, c.topology);
        assertEquals("reuse.ktable.source.topics", c.streams.getProperty("topology.optimization"));
        assertEquals("in", c.changelogTopic());
        p.setProperty("topology.optimization", "all");
        assertEquals("all", DriverConfig.parse(p).streams.getProperty("topology.optimization"));
        p.setProperty("topology.optimization", "merge.repartition.topics,reuse.ktable.source.topics");
        DriverConfig.parse(p);
    }

    @Test
    void storeKinds() throws Exception {
        Properties p = base();
        p.setProperty("restorebench.store.kind", "timestamped-key-value");
        p.setProperty("restorebench.store.type", "memory");
        DriverConfig c = DriverConfig.parse(p);
        assertEquals(TimestampedKeyValueStores.KIND, c.storeKind);
        assertEquals(DriverConfig.StoreType.MEMORY, c.storeType);

        Properties w = base();
        w.setProperty("restorebench.store.kind", "window");
        w.setProperty("restorebench.store.retention.ms", "3600000");
        w.setProperty("restorebench.store.window.size.ms", "300000");
        c = DriverConfig.parse(w);
        assertEquals(WindowStores.KIND, c.storeKind);
        assertEquals(3_600_000, c.retentionMs);
        assertEquals(300_000, c.windowSizeMs);
        assertEquals(0, c.segmentIntervalMs);
        assertEquals("app-balances-changelog", c.changelogTopic());
        // Kafka Streams' default segment interval: the public factory.
        assertEquals(1_800_000, WindowStores.supplier(c).segmentIntervalMs());
        w.setProperty("restorebench.store.segment.interval.ms", "300000");
        c = DriverConfig.parse(w);
        assertEquals(300_000, WindowStores.supplier(c).segmentIntervalMs());
        assertEquals(300_000, WindowStores.supplier(c).windowSize());
        assertEquals(3_600_000, WindowStores.supplier(c).retentionPeriod());
        assertEquals(60_000, WindowStores.defaultSegmentIntervalMs(1_000));
        assertEquals(-300_000L, WindowStores.windowStart(-1, 300_000));
        assertEquals(1_767_225_600_000L, WindowStores.windowStart(1_767_225_899_999L, 300_000));
    }

    /** A KTable over any topic materializes a timestamped store, as a DSL table, count or aggregate does. */
    @Test
    void tableTopologyTakesATimestampedStore() throws Exception {
        Properties p = base();
        p.setProperty("restorebench.topology", "table");
        p.setProperty("restorebench.store.kind", "timestamped-key-value");
        p.setProperty("topology.optimization", "reuse.ktable.source.topics");
        DriverConfig c = DriverConfig.parse(p);
        assertEquals(TimestampedKeyValueStores.KIND, c.storeKind);
        assertTrue(TableTopology.supplier(c).get().persistent());
        assertEquals("org.apache.kafka.streams.state.internals.RocksDBTimestampedStore", TableTopology.supplier(c).get().getClass().getName());
    }

    /**
     * The table topology of a window store is the store, read-only, over the
     * input topic: one source of that topic, one processor holding the
     * store, which Kafka Streams builds without a changelog of its own.
     */
    @Test
    void tableTopologyOfAWindowStoreIsAReadOnlyStore() throws Exception {
        Properties p = base();
        p.setProperty("restorebench.topology", "table");
        p.setProperty("restorebench.store.kind", "window");
        p.setProperty("restorebench.store.retention.ms", "7200000");
        p.setProperty("restorebench.store.window.size.ms", "60000");
        DriverConfig c = DriverConfig.parse(p);
        assertEquals(WindowStores.KIND, c.storeKind);
        assertEquals("in", c.changelogTopic());
        String d = TableTopology.build(c).describe().toString();
        assertTrue(d.contains("Source: table-source (topics: [in])"), d);
        assertTrue(d.contains("Processor: table-read-only (stores: [balances])"), d);
        assertEquals(3_600_000, WindowStores.supplier(c).segmentIntervalMs());
    }

    /** The table topology of a session store is the store, read-only, over the input topic, as a window store's. */
    @Test
    void tableTopologyOfASessionStoreIsAReadOnlyStore() throws Exception {
        Properties p = base();
        p.setProperty("restorebench.topology", "table");
        p.setProperty("restorebench.store.kind", "session");
        p.setProperty("restorebench.store.retention.ms", "7200000");
        p.setProperty("restorebench.store.window.size.ms", "60000");
        DriverConfig c = DriverConfig.parse(p);
        assertEquals(SessionStores.KIND, c.storeKind);
        assertEquals("in", c.changelogTopic());
        String d = TableTopology.build(c).describe().toString();
        assertTrue(d.contains("Source: table-source (topics: [in])"), d);
        assertTrue(d.contains("Processor: table-read-only (stores: [balances])"), d);
    }

    /**
     * A timestamped window store (what a DSL windowed count materializes):
     * read-only over the input topic on the table topology, its store a
     * timestamped RocksDB window store; in memory it is refused.
     */
    @Test
    void timestampedWindowStore() throws Exception {
        Properties p = base();
        p.setProperty("restorebench.topology", "table");
        p.setProperty("restorebench.store.kind", "timestamped-window");
        p.setProperty("restorebench.store.retention.ms", "7200000");
        p.setProperty("restorebench.store.window.size.ms", "60000");
        DriverConfig c = DriverConfig.parse(p);
        assertEquals(TimestampedWindowStores.KIND, c.storeKind);
        String d = TableTopology.build(c).describe().toString();
        assertTrue(d.contains("Processor: table-read-only (stores: [balances])"), d);
        assertEquals("org.apache.kafka.streams.state.internals.RocksDBTimestampedWindowStore",
                TimestampedWindowStores.supplier(c).get().getClass().getName());
        p.setProperty("restorebench.store.segment.interval.ms", "600000");
        assertEquals(600_000, TimestampedWindowStores.supplier(DriverConfig.parse(p)).segmentIntervalMs());

        p.setProperty("restorebench.topology", "kv");
        p.setProperty("restorebench.store.type", "memory");
        p.remove("restorebench.store.segment.interval.ms");
        DriverConfig.ConfigError e = assertThrows(DriverConfig.ConfigError.class, () -> DriverConfig.parse(p));
        assertTrue(e.getMessage().contains("store.type=memory"), e.getMessage());
    }

    /** The kinds as an unknown kind's error lists them: "a, b or c". */
    private static String kindsListed() {
        java.util.List<String> names = StoreKinds.keys();
        String last = names.remove(names.size() - 1);
        return String.join(", ", names) + " or " + last;
    }

    /**
     * The kinds found by their classes are the Go tool's, in its order
     * (those there were when the classes stopped being listed: a new kind
     * is a class, found too).
     */
    @Test
    void storeKindsAreFoundByTheirClasses() {
        assertEquals(java.util.List.of("key-value", "timestamped-key-value", "window", "timestamped-window", "session", "versioned-key-value"),
                StoreKinds.keys().stream().filter(k -> java.util.Set.of("key-value", "timestamped-key-value", "window",
                        "timestamped-window", "session", "versioned-key-value").contains(k)).toList());
        for (String k : StoreKinds.keys()) {
            assertDoesNotThrow(() -> StoreKinds.of("restorebench.store.kind", k.toUpperCase(java.util.Locale.ROOT)), k);
        }
    }

    @Test
    void storeKindErrors() {
        String[][] cases = {
            {"restorebench.store.kind=sessions", "must be " + kindsListed()},
            {"restorebench.store.kind=window", "needs restorebench.store.retention.ms"},
            {"restorebench.store.kind=window,restorebench.store.retention.ms=1000,restorebench.store.window.size.ms=2000", "shorter than the window"},
            {"restorebench.store.kind=window,restorebench.store.retention.ms=1000,restorebench.store.window.size.ms=100,restorebench.store.type=memory,restorebench.store.segment.interval.ms=100", "no segments"},
            {"restorebench.store.kind=timestamped-key-value,restorebench.store.retention.ms=1000", "for restorebench.store.kind=window, timestamped-window or session only"},
            {"restorebench.store.retention.ms=1000", "for restorebench.store.kind=window, timestamped-window or session only"},
            {"restorebench.store.kind=timestamped-key-value,restorebench.store.type=timestamped", "cannot be combined"},
            {"restorebench.store.kind=session,restorebench.store.retention.ms=1000,restorebench.store.window.size.ms=100,restorebench.topology=ledger", "kv topology only"},
            {"restorebench.store.kind=window,restorebench.store.retention.ms=1000,restorebench.store.window.size.ms=100,restorebench.topology=ledger", "kv topology only"},
        };
        for (String[] tc : cases) {
            Properties p = base();
            for (String kv : tc[0].split(",")) {
                String[] f = kv.split("=", 2);
                p.setProperty(f[0], f[1]);
            }
            DriverConfig.ConfigError e = assertThrows(DriverConfig.ConfigError.class, () -> DriverConfig.parse(p), tc[0]);
            assertTrue(e.getMessage().contains(tc[1]), tc[0] + ": " + e.getMessage());
        }
    }

    @Test
    void tableTopologyRefusesAnOptimizationThatWouldMakeAChangelog() {
        Properties p = base();
        p.setProperty("restorebench.topology", "table");
        p.setProperty("topology.optimization", "none");
        DriverConfig.ConfigError e = assertThrows(DriverConfig.ConfigError.class, () -> DriverConfig.parse(p));
        assertTrue(e.getMessage().contains("reuse.ktable.source.topics"), e.getMessage());
        p.setProperty("topology.optimization", "bogus");
        e = assertThrows(DriverConfig.ConfigError.class, () -> DriverConfig.parse(p));
        assertTrue(e.getMessage().contains("topology.optimization=bogus"), e.getMessage());
    }

    @Test
    void rocksOptionsInstallSetter() throws Exception {
        Properties p = base();
        p.setProperty("restorebench.rocksdb.block_cache_size", "1048576");
        p.setProperty("restorebench.rocksdb.compaction_style", "level");
        p.setProperty("restorebench.rocksdb.compression", "lz4");
        p.setProperty("restorebench.rocksdb.bloom_bits_per_key", "0");
        DriverConfig c = DriverConfig.parse(p);
        assertEquals(RocksConfigSetter.class.getName(), c.streams.getProperty("rocksdb.config.setter"));
        assertEquals("1048576", c.streams.getProperty("restorebench.rocksdb.block_cache_size"));
        RocksOptions o = RocksOptions.parse(Map.of("restorebench.rocksdb.block_cache_size", 1048576L,
                "restorebench.rocksdb.compaction_style", "level", "restorebench.rocksdb.compression", "lz4",
                "application.id", "x"));
        assertEquals(1048576L, o.blockCacheSize);
        assertEquals(CompactionStyle.LEVEL, o.compactionStyle);
        assertEquals(CompressionType.LZ4_COMPRESSION, o.compression);
        assertNull(o.blockSize);
    }

    @Test
    void sizesAsGoParsesThem() {
        assertEquals(1048576L, RocksOptions.parseSize("1048576"));
        assertEquals(64L << 20, RocksOptions.parseSize("64MiB"));
        assertEquals(64L << 20, RocksOptions.parseSize("64m"));
        assertEquals(4096L, RocksOptions.parseSize("4 KiB"));
        assertEquals(1_500_000_000L, RocksOptions.parseSize("1.5GB"));
        assertEquals(3L << 29, RocksOptions.parseSize("1.5GiB"));
        assertEquals(10L, RocksOptions.parseSize("10B"));
        assertThrows(IllegalArgumentException.class, () -> RocksOptions.parseSize("MiB"));
        assertThrows(IllegalArgumentException.class, () -> RocksOptions.parseSize("NaN"));
    }

    @Test
    void errors() {
        for (String[] kv : new String[][] {
                {"restorebench.topology", "graph"},
                {"restorebench.store.type", "lsm"},
                {"restorebench.bare", "yes"},
                {"restorebench.tasks.interval.ms", "-1"},
                {"restorebench.nonsense", "1"},
                {"restorebench.rocksdb.nonsense", "1"},
                {"restorebench.rocksdb.block_size", "4 parsecs"},
                {"restorebench.rocksdb.block_size", "-4KiB"},
                {"restorebench.rocksdb.block_size", "0"},
                {"restorebench.rocksdb.compression", "gzip"},
                {"restorebench.output.topic", "out"}, // kv has no output
        }) {
            Properties p = base();
            p.setProperty(kv[0], kv[1]);
            assertThrows(DriverConfig.ConfigError.class, () -> DriverConfig.parse(p), kv[0]);
        }
        Properties p = base();
        p.remove("restorebench.instance.id");
        assertThrows(DriverConfig.ConfigError.class, () -> DriverConfig.parse(p));
        Properties q = base();
        q.remove("application.id");
        assertThrows(DriverConfig.ConfigError.class, () -> DriverConfig.parse(q));
    }

    @Test
    void ledgerValues() {
        byte[] b = new byte[16];
        byte[] tx = java.nio.ByteBuffer.allocate(16).putLong(7).putLong(-250).array();
        b = LedgerTopology.apply("a", tx, b);
        b = LedgerTopology.apply("a", tx, b);
        long[] bc = LedgerTopology.decode(b);
        assertEquals(-500, bc[0]);
        assertEquals(2, bc[1]);
        assertThrows(IllegalArgumentException.class, () -> LedgerTopology.apply("a", new byte[3], new byte[16]));
    }

    @Test
    void cpuSplitNames() {
        ProcessStats s = new ProcessStats();
        s.setStreamThreadPrefix(Pollers.clientIdOf("app-0f3c2a9e-1b7d-4c39-9d0e-5b8a3f1e2c44-StreamThread-1"));
        assertEquals(ProcessStats.Kind.STREAM, s.classify("app-0f3c2a9e-1b"));
        assertEquals(ProcessStats.Kind.JIT, s.classify("C2 CompilerThre"));
        assertEquals(ProcessStats.Kind.JIT, s.classify("C1 CompilerThre"));
        assertEquals(ProcessStats.Kind.GC, s.classify("GC Thread#0"));
        assertEquals(ProcessStats.Kind.GC, s.classify("G1 Conc#0"));
        assertEquals(ProcessStats.Kind.GC, s.classify("VM Thread"));
        assertEquals(ProcessStats.Kind.OTHER, s.classify("kafka-producer-"));
        assertEquals(ProcessStats.Kind.OTHER, s.classify("rocksdb:low"));
        assertEquals(ProcessStats.Kind.OTHER, s.classify("main"));
    }
}
