package restorebench.apps;

import java.util.Map;
import org.apache.kafka.streams.state.RocksDBConfigSetter;
import org.rocksdb.Options;

/**
 * A RocksDBConfigSetter that gives every store small memtables, so that a
 * small store flushes to disk as a large one does: with Kafka Streams'
 * 16 MB write buffers a store of a few MB never flushes, and a SIGKILL
 * (the write-ahead log is off) then loses all of it. The crash tests set
 * it (rocksdb.config.setter) to see what a crash of a store that flushed
 * restores. The size is the system property
 * restorebench.apps.memtable.bytes, default 256 KiB.
 */
public final class SmallMemtables implements RocksDBConfigSetter {
    /** The system property holding the write buffer size in bytes. */
    public static final String BYTES = "restorebench.apps.memtable.bytes";

    @Override
    public void setConfig(String storeName, Options options, Map<String, Object> configs) {
        options.setWriteBufferSize(Long.getLong(BYTES, 256L * 1024));
    }

    @Override
    public void close(String storeName, Options options) {}
}
