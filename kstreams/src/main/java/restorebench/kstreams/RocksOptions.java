package restorebench.kstreams;

import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import org.rocksdb.CompactionStyle;
import org.rocksdb.CompressionType;

/**
 * The RocksDB options restorebench may set (restorebench.rocksdb.NAME, by the
 * same names as the Go engine's options), parsed and checked. Fields left null
 * keep Kafka Streams' defaults. Parsed once at start-up from the config file
 * (bad values are a config error) and again by {@link RocksConfigSetter} from
 * the StreamsConfig map it is handed for each store.
 */
final class RocksOptions {
    /** The config key prefix. */
    static final String PREFIX = "restorebench.rocksdb.";

    /** Every option name this driver applies. */
    static final Set<String> NAMES = Set.of(
            "block_cache_size", "block_size", "bloom_bits_per_key", "write_buffer_size",
            "max_write_buffer_number", "compaction_style", "compression",
            "level0_file_num_compaction_trigger", "level0_slowdown_writes_trigger",
            "level0_stop_writes_trigger", "max_background_jobs");

    Long blockCacheSize;
    Long blockSize;
    Double bloomBitsPerKey;
    Long writeBufferSize;
    Integer maxWriteBufferNumber;
    CompactionStyle compactionStyle;
    CompressionType compression;
    Integer level0FileNumCompactionTrigger;
    Integer level0SlowdownWritesTrigger;
    Integer level0StopWritesTrigger;
    Integer maxBackgroundJobs;

    /** The option names that were set, with their text, for logging. */
    final Map<String, String> given = new TreeMap<>();

    boolean isEmpty() {
        return given.isEmpty();
    }

    /**
     * Parses every restorebench.rocksdb.* entry of a config map (values may
     * be strings or numbers). Throws IllegalArgumentException naming the key
     * for an unknown name or a bad value.
     */
    static RocksOptions parse(Map<?, ?> configs) {
        RocksOptions o = new RocksOptions();
        for (Map.Entry<?, ?> e : configs.entrySet()) {
            String key = String.valueOf(e.getKey());
            if (!key.startsWith(PREFIX) || e.getValue() == null) {
                continue;
            }
            String name = key.substring(PREFIX.length());
            String v = String.valueOf(e.getValue()).trim();
            if (v.isEmpty()) {
                continue;
            }
            try {
                o.set(name, v);
            } catch (IllegalArgumentException ex) {
                throw new IllegalArgumentException(key + "=" + v + ": " + ex.getMessage(), ex);
            }
            o.given.put(name, v);
        }
        return o;
    }

    private void set(String name, String v) {
        switch (name) {
            case "block_cache_size": blockCacheSize = positiveLong(v, true); break;
            case "block_size": blockSize = positiveLong(v, false); break;
            case "bloom_bits_per_key": {
                double d = Double.parseDouble(v);
                if (!(d >= 0) || Double.isInfinite(d)) {
                    throw new IllegalArgumentException("must be a number >= 0 (0 = no bloom filter)");
                }
                bloomBitsPerKey = d;
                break;
            }
            case "write_buffer_size": writeBufferSize = positiveLong(v, false); break;
            case "max_write_buffer_number": maxWriteBufferNumber = positiveInt(v); break;
            case "compaction_style":
                switch (v.toLowerCase(Locale.ROOT)) {
                    case "universal": compactionStyle = CompactionStyle.UNIVERSAL; break;
                    case "level": compactionStyle = CompactionStyle.LEVEL; break;
                    default: throw new IllegalArgumentException("must be universal or level");
                }
                break;
            case "compression":
                switch (v.toLowerCase(Locale.ROOT)) {
                    case "none": compression = CompressionType.NO_COMPRESSION; break;
                    case "snappy": compression = CompressionType.SNAPPY_COMPRESSION; break;
                    case "lz4": compression = CompressionType.LZ4_COMPRESSION; break;
                    case "zstd": compression = CompressionType.ZSTD_COMPRESSION; break;
                    default: throw new IllegalArgumentException("must be none, snappy, lz4 or zstd");
                }
                break;
            case "level0_file_num_compaction_trigger": level0FileNumCompactionTrigger = positiveInt(v); break;
            case "level0_slowdown_writes_trigger": level0SlowdownWritesTrigger = positiveInt(v); break;
            case "level0_stop_writes_trigger": level0StopWritesTrigger = positiveInt(v); break;
            case "max_background_jobs": maxBackgroundJobs = positiveInt(v); break;
            default:
                throw new IllegalArgumentException("unknown RocksDB option (known: " + String.join(", ", new java.util.TreeSet<>(NAMES)) + ")");
        }
    }

    private static long positiveLong(String v, boolean zeroOk) {
        long n = parseSize(v);
        if (n == 0 && !zeroOk) {
            throw new IllegalArgumentException("must be > 0");
        }
        return n;
    }

    /** Units as Go's config.ParseSize reads them, longest suffixes first. */
    private static final String[] UNITS = {
        "KiB", "MiB", "GiB", "TiB", "KB", "MB", "GB", "TB", "K", "M", "G", "T", "B"};
    private static final double[] MULTS = {
        1L << 10, 1L << 20, 1L << 30, 1L << 40, 1e3, 1e6, 1e9, 1e12, 1L << 10, 1L << 20, 1L << 30, 1L << 40, 1};

    /**
     * A byte size exactly as Go's config.ParseSize reads it, so the Go tool
     * may write either form: a plain number of bytes, or a number with a unit
     * (KB, MB, GB, TB powers of 1000; KiB, MiB, GiB, TiB and K, M, G, T powers
     * of 1024; B), case-insensitive, fractions allowed ("1.5GiB").
     */
    static long parseSize(String s) {
        String t = s.trim();
        double mult = 1;
        for (int i = 0; i < UNITS.length; i++) {
            String u = UNITS[i];
            if (t.length() > u.length() && t.regionMatches(true, t.length() - u.length(), u, 0, u.length())) {
                mult = MULTS[i];
                t = t.substring(0, t.length() - u.length()).trim();
                break;
            }
        }
        double v;
        try {
            v = Double.parseDouble(t);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("must be a size: a number of bytes with an optional unit (B, KB, MB, GB, KiB, MiB, GiB)");
        }
        if (Double.isNaN(v) || Double.isInfinite(v) || t.endsWith("d") || t.endsWith("D") || t.endsWith("f") || t.endsWith("F")) {
            throw new IllegalArgumentException("must be a size: a number of bytes with an optional unit (B, KB, MB, GB, KiB, MiB, GiB)");
        }
        if (v < 0) {
            throw new IllegalArgumentException("must not be negative");
        }
        double b = v * mult;
        if (b > Long.MAX_VALUE / 2) {
            throw new IllegalArgumentException("is too large");
        }
        return (long) b;
    }

    private static int positiveInt(String v) {
        int n;
        try {
            n = Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("must be a whole number");
        }
        if (n <= 0) {
            throw new IllegalArgumentException("must be > 0");
        }
        return n;
    }
}
