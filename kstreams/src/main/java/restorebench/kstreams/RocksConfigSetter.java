package restorebench.kstreams;

import java.util.Map;

import org.apache.kafka.streams.state.RocksDBConfigSetter;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.Cache;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;

/**
 * Applies the restorebench.rocksdb.* options over Kafka Streams' RocksDB
 * defaults, and nothing else. The driver installs it (rocksdb.config.setter)
 * only when at least one such option is set, so the default preset runs
 * Kafka Streams untouched. The options arrive through the configs map: the
 * driver passes the restorebench.rocksdb.* keys into the StreamsConfig
 * properties, and Kafka Streams hands every store's setter those originals.
 * Kafka Streams makes one setter per store instance, so the block cache and
 * bloom filter made here belong to one store and are closed with it.
 */
public final class RocksConfigSetter implements RocksDBConfigSetter {
    private Cache cache;
    private BloomFilter filter;

    /** Kafka Streams instantiates setters reflectively. */
    public RocksConfigSetter() {}

    @Override
    public void setConfig(String storeName, Options options, Map<String, Object> configs) {
        RocksOptions o = RocksOptions.parse(configs);
        if (o.blockCacheSize != null || o.blockSize != null || o.bloomBitsPerKey != null) {
            // Kafka Streams' table config (a BlockBasedTableConfig subclass that
            // remembers the cache for its metrics); change it in place.
            BlockBasedTableConfig table = (BlockBasedTableConfig) options.tableFormatConfig();
            if (o.blockCacheSize != null) {
                cache = new LRUCache(o.blockCacheSize);
                table.setBlockCache(cache);
            }
            if (o.blockSize != null) {
                table.setBlockSize(o.blockSize);
            }
            if (o.bloomBitsPerKey != null) {
                if (o.bloomBitsPerKey > 0) {
                    filter = new BloomFilter(o.bloomBitsPerKey);
                    table.setFilterPolicy(filter);
                } else {
                    table.setFilterPolicy(null);
                }
            }
            options.setTableFormatConfig(table);
        }
        if (o.writeBufferSize != null) {
            options.setWriteBufferSize(o.writeBufferSize);
        }
        if (o.maxWriteBufferNumber != null) {
            options.setMaxWriteBufferNumber(o.maxWriteBufferNumber);
        }
        if (o.compactionStyle != null) {
            options.setCompactionStyle(o.compactionStyle);
        }
        if (o.compression != null) {
            options.setCompressionType(o.compression);
        }
        if (o.level0FileNumCompactionTrigger != null) {
            options.setLevel0FileNumCompactionTrigger(o.level0FileNumCompactionTrigger);
        }
        if (o.level0SlowdownWritesTrigger != null) {
            options.setLevel0SlowdownWritesTrigger(o.level0SlowdownWritesTrigger);
        }
        if (o.level0StopWritesTrigger != null) {
            options.setLevel0StopWritesTrigger(o.level0StopWritesTrigger);
        }
        if (o.maxBackgroundJobs != null) {
            options.setMaxBackgroundJobs(o.maxBackgroundJobs);
        }
    }

    @Override
    public void close(String storeName, Options options) {
        if (cache != null) {
            cache.close();
            cache = null;
        }
        if (filter != null) {
            filter.close();
            filter = null;
        }
    }
}
