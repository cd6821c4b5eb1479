package restorebench.kstreams;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;

/**
 * The memory Kafka Streams' RocksDB stores hold, as its own store metrics
 * report it (group {@value #GROUP}, the RocksDB-property metrics of
 * KIP-607, recorded at INFO), summed over the instance's stores: the
 * memtables (size-all-mem-tables, active, immutable and pinned), the block
 * caches' usage and capacity (Kafka Streams gives each store a cache of
 * its own unless a RocksDBConfigSetter shares one, which this sum would
 * then count once per store), the blocks pinned in them, and the index
 * and filter blocks held outside the cache (estimate-table-readers-mem).
 * The `process` event carries it as `rocksdb` (PROTOCOL.md); without any
 * store open, none.
 */
final class RocksMemory {
    static final String GROUP = "stream-state-metrics";

    /** The metrics summed, by Kafka's name, and the event field each goes in. */
    static final Map<String, String> FIELDS = Map.of(
            "size-all-mem-tables", "mem_tables_bytes",
            "block-cache-usage", "block_cache_usage_bytes",
            "block-cache-capacity", "block_cache_capacity_bytes",
            "block-cache-pinned-usage", "block_cache_pinned_bytes",
            "estimate-table-readers-mem", "table_readers_bytes");

    private RocksMemory() {
    }

    /** The sums over every store among metrics, or null when none reports. */
    static Map<String, Object> of(Map<MetricName, ? extends Metric> metrics) {
        long[] sums = new long[FIELDS.size()];
        String[] names = FIELDS.keySet().toArray(new String[0]);
        Set<String> stores = new HashSet<>();
        for (Map.Entry<MetricName, ? extends Metric> e : metrics.entrySet()) {
            MetricName n = e.getKey();
            if (!GROUP.equals(n.group()) || !FIELDS.containsKey(n.name())) {
                continue;
            }
            Object v;
            try {
                v = e.getValue().metricValue();
            } catch (RuntimeException closed) {
                continue; // the store closed while it was read
            }
            if (!(v instanceof Number)) {
                continue;
            }
            for (int i = 0; i < names.length; i++) {
                if (names[i].equals(n.name())) {
                    sums[i] += ((Number) v).longValue();
                }
            }
            stores.add(n.tags().get("task-id") + "/" + n.tags().get("rocksdb-state-id"));
        }
        if (stores.isEmpty()) {
            return null;
        }
        Map<String, Object> out = Json.obj("stores", stores.size());
        for (int i = 0; i < names.length; i++) {
            out.put(FIELDS.get(names[i]), sums[i]);
        }
        return out;
    }
}
