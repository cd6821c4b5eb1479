package restorebench.kstreams;

import org.apache.kafka.streams.StreamsConfig;

/**
 * The driver's API layer settings (restorebench.api.*, PROTOCOL.md): off
 * unless restorebench.api.port is set. restorebench.api.port is the port
 * {@link ApiServer} listens on, 0 (the robust choice) for any free one,
 * reported in the `api` event; restorebench.api.host is the address it
 * listens on and advertises, default 127.0.0.1. The driver sets Kafka
 * Streams' application.server to host:port, which is what
 * KafkaStreams.queryMetadataForKey names instances by, so the properties
 * must not set it themselves. restorebench.api.retry.ms is how long a
 * stale lookup (stale=true) that no copy can serve yet is retried before it
 * is refused, default 0 (refused at once): Kafka Streams' documentation
 * tells an application to retry an InvalidStateStoreException, which it
 * throws while a task migrates (a standby promoted to active is briefly
 * neither) and while a rebalance leaves no metadata, though a copy exists.
 * A lookup without stale reads is never retried: its refusal while the
 * active store restores is the answer, not a transient.
 * restorebench.api.partitions, when above 0, is the source topic's
 * partition count: the instance then asks queryMetadataForKey with a
 * partitioner that hashes the key over that many partitions
 * ({@link TopicPartitioner}) instead of Kafka Streams' own, which counts
 * only the partitions its group metadata names (under
 * group.protocol=streams, fewer than the topic's while one is assigned
 * to no member). Default 0: Kafka Streams' own, what an application that
 * passes only a key serializer gets.
 * restorebench.api.range.max.entries and restorebench.api.range.max.bytes
 * bound one range's answer (default 10,000 entries and 4 MiB of entry
 * text), counted while it is gathered, forwarded parts included: a range
 * over either is refused as soon as it reads the entry over.
 * restorebench.api.range.concurrency is how many ranges the instance
 * gathers at once (default 4), and again how many forwarded ones it
 * answers at once: a range beyond it is refused with HTTP 429. Together
 * they bound the heap ranges take to about 2 x concurrency x max.bytes.
 */
final class ApiSettings {
    static final String PREFIX = DriverConfig.P + "api.";
    static final String PORT = PREFIX + "port";
    static final String HOST = PREFIX + "host";
    static final String RETRY_MS = PREFIX + "retry.ms";
    static final String PARTITIONS = PREFIX + "partitions";
    static final String RANGE_MAX_ENTRIES = PREFIX + "range.max.entries";
    static final String RANGE_MAX_BYTES = PREFIX + "range.max.bytes";
    static final String RANGE_CONCURRENCY = PREFIX + "range.concurrency";
    static final int DEFAULT_RANGE_MAX_ENTRIES = 10_000;
    static final long DEFAULT_RANGE_MAX_BYTES = 4L << 20;
    static final int DEFAULT_RANGE_CONCURRENCY = 4;
    static final int MAX_RANGE_MAX_ENTRIES = 1_000_000;
    static final long MAX_RANGE_MAX_BYTES = 1L << 30;
    static final int MAX_RANGE_CONCURRENCY = 256;
    /** The longest retry.ms taken: a lookup's client waits 5 s at most. */
    static final int MAX_RETRY_MS = 4000;

    /** The port to listen on; -1 = no API layer. */
    int port = -1;
    String host = "127.0.0.1";
    /** How long a stale lookup no copy serves is retried, ms; 0 = not. */
    int retryMs = 0;
    /** The source topic's partition count for routing; 0 = Kafka Streams' own partitioning. */
    int partitions = 0;
    /** The most entries one range answers (over it: refused as too wide). */
    int rangeMaxEntries = DEFAULT_RANGE_MAX_ENTRIES;
    /** The most bytes of entry text one range answers (over it: refused as too wide). */
    long rangeMaxBytes = DEFAULT_RANGE_MAX_BYTES;
    /** How many ranges are gathered at once, and how many forwarded ranges answered at once. */
    int rangeConcurrency = DEFAULT_RANGE_CONCURRENCY;

    boolean enabled() {
        return port >= 0;
    }

    /** Takes one restorebench.api.* key; an empty value is unset. */
    void set(String key, String value) throws DriverConfig.ConfigError {
        if (value.isEmpty()) {
            return;
        }
        if (key.equals(HOST)) {
            host = value;
        } else if (key.equals(RETRY_MS)) {
            try {
                retryMs = Integer.parseInt(value);
            } catch (NumberFormatException e) {
                retryMs = -1;
            }
            if (retryMs < 0 || retryMs > MAX_RETRY_MS) {
                throw new DriverConfig.ConfigError(key + "=" + value + ": must be 0 to " + MAX_RETRY_MS + " ms (0: refuse at once)");
            }
        } else if (key.equals(PARTITIONS)) {
            try {
                partitions = Integer.parseInt(value);
            } catch (NumberFormatException e) {
                partitions = -1;
            }
            if (partitions < 0) {
                throw new DriverConfig.ConfigError(key + "=" + value + ": must be the source topic's partition count, or 0 for Kafka Streams' own routing");
            }
        } else if (key.equals(RANGE_MAX_ENTRIES)) {
            rangeMaxEntries = (int) bounded(key, value, 1, MAX_RANGE_MAX_ENTRIES, "entries");
        } else if (key.equals(RANGE_CONCURRENCY)) {
            rangeConcurrency = (int) bounded(key, value, 1, MAX_RANGE_CONCURRENCY, "ranges at once");
        } else if (key.equals(RANGE_MAX_BYTES)) {
            long n;
            try {
                n = RocksOptions.parseSize(value);
            } catch (IllegalArgumentException e) {
                throw new DriverConfig.ConfigError(key + "=" + value + ": " + e.getMessage());
            }
            if (n < 1024 || n > MAX_RANGE_MAX_BYTES) {
                throw new DriverConfig.ConfigError(key + "=" + value + ": must be 1KiB to 1GiB");
            }
            rangeMaxBytes = n;
        } else if (key.equals(PORT)) {
            try {
                port = Integer.parseInt(value);
            } catch (NumberFormatException e) {
                port = -2;
            }
            if (port < 0 || port > 65535) {
                throw new DriverConfig.ConfigError(key + "=" + value + ": must be a port, 0 to 65535 (0: any free one)");
            }
        } else {
            throw new DriverConfig.ConfigError("unknown driver key " + key + " (known: " + HOST + ", " + PARTITIONS + ", " + PORT + ", "
                    + RANGE_CONCURRENCY + ", " + RANGE_MAX_BYTES + ", " + RANGE_MAX_ENTRIES + ", " + RETRY_MS + ")");
        }
    }

    /** value as a whole number from min to max, or a config error naming key and what it counts. */
    private static long bounded(String key, String value, long min, long max, String what) throws DriverConfig.ConfigError {
        long n;
        try {
            n = Long.parseLong(value);
        } catch (NumberFormatException e) {
            n = min - 1;
        }
        if (n < min || n > max) {
            throw new DriverConfig.ConfigError(key + "=" + value + ": must be " + min + " to " + max + " " + what);
        }
        return n;
    }

    /** The checks against the rest of the configuration. */
    void check(DriverConfig c) throws DriverConfig.ConfigError {
        if (!enabled()) {
            return;
        }
        if (c.bare) {
            throw new DriverConfig.ConfigError(PORT + " serves lookups through the store listeners, which restorebench.bare=true turns off");
        }
        if (c.topology == DriverConfig.Topology.LEDGER) {
            throw new DriverConfig.ConfigError(PORT + " serves the kv and table topologies' byte-keyed stores, not the ledger's");
        }
        if (!c.storeKind.keyLookups()) {
            throw new DriverConfig.ConfigError(PORT + " serves key lookups of key-value stores, not of a " + c.storeKind.key() + " store");
        }
        if (!c.streams.getProperty(StreamsConfig.APPLICATION_SERVER_CONFIG, "").isBlank()) {
            throw new DriverConfig.ConfigError(StreamsConfig.APPLICATION_SERVER_CONFIG + " is set by the driver from " + HOST + " and the port it listens on; do not set both");
        }
    }
}
