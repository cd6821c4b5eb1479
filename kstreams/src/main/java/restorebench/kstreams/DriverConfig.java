package restorebench.kstreams;

import java.util.Locale;
import java.util.Properties;
import java.util.Set;

import org.apache.kafka.streams.StreamsConfig;

/**
 * The driver's configuration, read from the CONFIG.properties file the Go
 * tool writes (PROTOCOL.md). Keys starting with "restorebench." configure the
 * driver and are checked strictly (an unknown one is a config error, so a typo
 * cannot silently change a benchmark); every other key goes to StreamsConfig
 * unchanged. The restorebench.rocksdb.* keys are also passed on, because
 * that is how they reach {@link RocksConfigSetter}.
 */
final class DriverConfig {
    /** A bad configuration: the driver reports it and exits 3. */
    static final class ConfigError extends Exception {
        ConfigError(String message) {
            super(message);
        }
    }

    enum Topology { KV, LEDGER }

    enum StoreType { ROCKSDB, TIMESTAMPED, MEMORY }

    static final String P = "restorebench.";

    private static final Set<String> KEYS = Set.of(
            "instance.id", "topology", "store", "store.type", "input.topic", "output.topic",
            "tasks.interval.ms", "processed.interval.ms", "lags.interval.ms", "process.interval.ms", "bare",
            "close.leave.group", "secrets.file", "connect.timeout.ms");

    String instanceId;
    Topology topology = Topology.KV;
    String store = "balances";
    StoreType storeType = StoreType.ROCKSDB;
    String inputTopic;
    String outputTopic;
    long tasksIntervalMs = 100;
    long processedIntervalMs = 100;
    long lagsIntervalMs = 1000;
    long processIntervalMs = 1000;
    boolean bare;
    /**
     * Whether `stop` leaves the consumer group (true, the default) or stays a
     * member until session.timeout.ms, as a statically configured member
     * (group.instance.id) does in a rolling restart.
     */
    boolean closeLeaveGroup = true;
    /**
     * Whether the driver set the main consumer's leave-on-close property so
     * that `stop` leaves the group before Kafka Streams 4.2 (see
     * {@link Compat#applyLeaveOnClose}).
     */
    boolean leaveOnCloseSet;
    /**
     * How long the connection check before Kafka Streams starts may take
     * (see {@link ConnectCheck}); 0, the default, skips it.
     */
    long connectTimeoutMs;
    RocksOptions rocksdb = new RocksOptions();
    /** What StreamsConfig gets. */
    final Properties streams = new Properties();
    /**
     * Whether Kafka Streams' own restore metrics are sampled into `metrics`
     * events (restorebench.metrics, see {@link MetricsSampler}), and whether
     * the driver set metrics.recording.level=DEBUG for it.
     */
    boolean metrics;
    boolean metricsLevelSet;

    /** Parses and checks a loaded properties file. */
    static DriverConfig parse(Properties props) throws ConfigError {
        DriverConfig c = new DriverConfig();
        for (String key : props.stringPropertyNames()) {
            String value = props.getProperty(key).trim();
            if (!key.startsWith(P)) {
                c.streams.setProperty(key, props.getProperty(key));
                continue;
            }
            if (key.startsWith(RocksOptions.PREFIX)) {
                c.streams.setProperty(key, value);
                continue;
            }
            if (key.equals(MetricsSampler.KEY)) {
                c.metrics = !value.isEmpty() && bool(key, value);
                continue;
            }
            String name = key.substring(P.length());
            if (!KEYS.contains(name)) {
                throw new ConfigError("unknown driver key " + key + " (known: restorebench." + String.join(", restorebench.", new java.util.TreeSet<>(KEYS)) + ", " + MetricsSampler.KEY + ", restorebench.rocksdb.*)");
            }
            if (value.isEmpty()) {
                continue; // empty = unset, the default applies
            }
            switch (name) {
                case "instance.id": c.instanceId = value; break;
                case "topology":
                    switch (value.toLowerCase(Locale.ROOT)) {
                        case "kv": c.topology = Topology.KV; break;
                        case "ledger": c.topology = Topology.LEDGER; break;
                        default: throw new ConfigError(key + "=" + value + ": must be kv or ledger");
                    }
                    break;
                case "store": c.store = value; break;
                case "store.type":
                    switch (value.toLowerCase(Locale.ROOT)) {
                        case "rocksdb": c.storeType = StoreType.ROCKSDB; break;
                        case "timestamped": c.storeType = StoreType.TIMESTAMPED; break;
                        case "memory": c.storeType = StoreType.MEMORY; break;
                        default: throw new ConfigError(key + "=" + value + ": must be rocksdb, timestamped or memory");
                    }
                    break;
                case "input.topic": c.inputTopic = value; break;
                case "output.topic": c.outputTopic = value; break;
                case "tasks.interval.ms": c.tasksIntervalMs = interval(key, value); break;
                case "processed.interval.ms": c.processedIntervalMs = interval(key, value); break;
                case "lags.interval.ms": c.lagsIntervalMs = interval(key, value); break;
                case "process.interval.ms": c.processIntervalMs = interval(key, value); break;
                case "bare": c.bare = bool(key, value); break;
                case "close.leave.group": c.closeLeaveGroup = bool(key, value); break;
                case "secrets.file": c.addSecrets(value); break;
                case "connect.timeout.ms": c.connectTimeoutMs = interval(key, value); break;
                default:
                    throw new AssertionError(name);
            }
        }
        c.check(props);
        return c;
    }

    /**
     * Reads the secrets file (StreamsConfig properties that hold secrets:
     * sasl.jaas.config, keys, store passwords) into the StreamsConfig
     * properties and deletes it at once, so a secret lives on disk only
     * from the launch until now. Errors name the file and the key, never
     * a value.
     */
    private void addSecrets(String path) throws ConfigError {
        Properties secrets = new Properties();
        java.nio.file.Path file = java.nio.file.Paths.get(path);
        try (java.io.Reader r = java.nio.file.Files.newBufferedReader(file, java.nio.charset.StandardCharsets.UTF_8)) {
            secrets.load(r);
        } catch (java.io.IOException | IllegalArgumentException e) {
            throw new ConfigError("reading the secrets file " + path + ": " + e.getClass().getSimpleName());
        } finally {
            try {
                java.nio.file.Files.deleteIfExists(file);
            } catch (java.io.IOException e) {
                // the Go side deletes it when the process ends
            }
        }
        for (String key : secrets.stringPropertyNames()) {
            if (key.startsWith(P)) {
                throw new ConfigError("the secrets file holds StreamsConfig properties only, not " + key);
            }
            streams.setProperty(key, secrets.getProperty(key));
        }
    }

    /** The changelog topic Kafka Streams keeps the store in. */
    String changelogTopic() {
        return streams.getProperty(StreamsConfig.APPLICATION_ID_CONFIG) + "-" + store + "-changelog";
    }

    /**
     * The checks of a parsed configuration that span keys: what is
     * required, what goes together, and the RocksDB options' setter.
     */
    private void check(Properties props) throws ConfigError {
        if (instanceId == null) {
            throw new ConfigError("restorebench.instance.id is required");
        }
        if (inputTopic == null) {
            throw new ConfigError("restorebench.input.topic is required");
        }
        if (outputTopic != null && topology != Topology.LEDGER) {
            throw new ConfigError("restorebench.output.topic is for the ledger topology only");
        }
        try {
            rocksdb = RocksOptions.parse(props);
        } catch (IllegalArgumentException e) {
            throw new ConfigError(e.getMessage());
        }
        if (!rocksdb.isEmpty()) {
            if (streams.containsKey(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG)) {
                throw new ConfigError("restorebench.rocksdb.* and " + StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG + " cannot both be set");
            }
            streams.setProperty(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG, RocksConfigSetter.class.getName());
        }
        checkMetrics();
        leaveOnCloseSet = Compat.applyLeaveOnClose(streams, closeLeaveGroup);
        for (String required : new String[] {StreamsConfig.APPLICATION_ID_CONFIG, StreamsConfig.BOOTSTRAP_SERVERS_CONFIG}) {
            if (streams.getProperty(required, "").isBlank()) {
                throw new ConfigError(required + " is required");
            }
        }
    }

    /**
     * Sampling needs the pollers (off in bare mode) and their interval
     * (restorebench.process.interval.ms, which it shares); when asked, the
     * recording level becomes DEBUG unless the configuration names one.
     */
    private void checkMetrics() throws ConfigError {
        if (!metrics) {
            return;
        }
        if (bare) {
            throw new ConfigError(MetricsSampler.KEY + "=true samples through the pollers, which restorebench.bare=true turns off");
        }
        if (processIntervalMs == 0) {
            throw new ConfigError(MetricsSampler.KEY + "=true samples at restorebench.process.interval.ms, which is 0 (never)");
        }
        metricsLevelSet = MetricsSampler.applyRecordingLevel(streams);
    }

    private static boolean bool(String key, String value) throws ConfigError {
        switch (value.toLowerCase(Locale.ROOT)) {
            case "true": return true;
            case "false": return false;
            default: throw new ConfigError(key + "=" + value + ": must be true or false");
        }
    }

    private static long interval(String key, String value) throws ConfigError {
        try {
            long v = Long.parseLong(value);
            if (v >= 0) {
                return v;
            }
        } catch (NumberFormatException e) {
            // fall through
        }
        throw new ConfigError(key + "=" + value + ": must be a whole number of milliseconds >= 0 (0 = never)");
    }
}
