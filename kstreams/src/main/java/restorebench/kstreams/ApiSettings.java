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
 * must not set it themselves.
 */
final class ApiSettings {
    static final String PREFIX = DriverConfig.P + "api.";
    static final String PORT = PREFIX + "port";
    static final String HOST = PREFIX + "host";

    /** The port to listen on; -1 = no API layer. */
    int port = -1;
    String host = "127.0.0.1";

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
            throw new DriverConfig.ConfigError("unknown driver key " + key + " (known: " + HOST + ", " + PORT + ")");
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
