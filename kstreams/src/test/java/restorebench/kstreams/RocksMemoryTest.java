package restorebench.kstreams;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.LinkedHashMap;
import java.util.Map;

import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.junit.jupiter.api.Test;

class RocksMemoryTest {
    private static void put(Map<MetricName, Metric> m, String group, String name, String task, Object value) {
        MetricName n = new MetricName(name, group, "", Map.of("thread-id", "t", "task-id", task, "rocksdb-state-id", "store"));
        m.put(n, new FakeMetric(n, value));
    }

    /** Summed over the stores, by field; other groups, other names and unreadable values left out. */
    @Test
    void sumsTheStoresMemory() {
        Map<MetricName, Metric> all = new LinkedHashMap<>();
        put(all, "stream-state-metrics", "size-all-mem-tables", "0_0", java.math.BigInteger.valueOf(1000));
        put(all, "stream-state-metrics", "size-all-mem-tables", "0_1", java.math.BigInteger.valueOf(500));
        put(all, "stream-state-metrics", "block-cache-capacity", "0_0", java.math.BigInteger.valueOf(50L << 20));
        put(all, "stream-state-metrics", "block-cache-capacity", "0_1", java.math.BigInteger.valueOf(50L << 20));
        put(all, "stream-state-metrics", "estimate-table-readers-mem", "0_1", 7L);
        put(all, "stream-state-metrics", "block-cache-usage", "0_1", new IllegalStateException("store closed"));
        put(all, "stream-state-metrics", "estimate-num-keys", "0_1", 99L); // not a memory figure
        put(all, "stream-task-metrics", "size-all-mem-tables", "0_2", 1L); // another group
        Map<String, Object> got = RocksMemory.of(all);
        assertEquals(2, got.get("stores"));
        assertEquals(1500L, got.get("mem_tables_bytes"));
        assertEquals(100L << 20, got.get("block_cache_capacity_bytes"));
        assertEquals(7L, got.get("table_readers_bytes"));
        assertEquals(0L, got.get("block_cache_usage_bytes"));
    }

    @Test
    void noStoreNoFigures() {
        assertNull(RocksMemory.of(Map.of()));
    }
}
