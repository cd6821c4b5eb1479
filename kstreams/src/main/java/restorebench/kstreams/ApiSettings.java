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
 */
final class ApiSettings {
    static final String PREFIX = DriverConfig.P + "api.";
    static final String PORT = PREFIX + "port";
    static final String HOST = PREFIX + "host";
    static final String RETRY_MS = PREFIX + "retry.ms";
    static final String PARTITIONS = PREFIX + "partitions";
    /** The longest retry.ms taken: a lookup's client waits 5 s at most. */
    static final int MAX_RETRY_MS = 4000;

    /** The port to listen on; -1 = no API layer. */
    int port = -1;
    String host = "127.0.0.1";
    /** How long a stale lookup no copy serves is retried, ms; 0 = not. */
    int retryMs = 0;
    /** The source topic's partition count for routing; 0 = Kafka Streams' own partitioning. */
    int partitions = 0;

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
            throw new DriverConfig.ConfigError("unknown driver key " + key + " (known: " + HOST + ", " + PARTITIONS + ", " + PORT + ", " + RETRY_MS + ")");
        }
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
        if (c.storeKind == DriverConfig.StoreKind.WINDOW) {
            throw new DriverConfig.ConfigError(PORT + " serves key lookups of key-value stores, not of a window store");
        }
        if (!c.streams.getProperty(StreamsConfig.APPLICATION_SERVER_CONFIG, "").isBlank()) {
            throw new DriverConfig.ConfigError(StreamsConfig.APPLICATION_SERVER_CONFIG + " is set by the driver from " + HOST + " and the port it listens on; do not set both");
        }
    }
}
