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

    enum Topology { KV, LEDGER, TABLE }

    enum StoreType { ROCKSDB, TIMESTAMPED, MEMORY }

    static final String P = "restorebench.";

    private static final Set<String> KEYS = Set.of(
            "instance.id", "topology", "store", "store.type", "input.topic", "output.topic",
            "tasks.interval.ms", "processed.interval.ms", "lags.interval.ms", "process.interval.ms", "bare",
            "close.leave.group", "secrets.file", "connect.timeout.ms",
            "store.kind", "store.retention.ms", "store.window.size.ms", "store.segment.interval.ms",
            "store.keys");

    String instanceId;
    Topology topology = Topology.KV;
    String store = "balances";
    StoreType storeType = StoreType.ROCKSDB;
    /** The store's kind (restorebench.store.kind, {@link StoreKinds}): key-value unless set. */
    StoreKindDef storeKind = KeyValueStores.KIND;
    /**
     * A window or session store's retention period and window size (a
     * session store's sessions fall in windows of it), milliseconds (0 =
     * unset).
     */
    long retentionMs;
    long windowSizeMs;
    /**
     * A persistent window store's segment interval, milliseconds; 0 (the
     * default) is Kafka Streams' own, max(retention / 2, 60 s).
     */
    long segmentIntervalMs;
    /**
     * A versioned store's key space (restorebench.store.keys): the fill's
     * key count, keys "k" and the id in 15 digits; 0 = unset.
     */
    long storeKeys;
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
    /** The API layer (restorebench.api.*, see {@link ApiSettings}); off by default. */
    final ApiSettings api = new ApiSettings();
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
            if (key.startsWith(ApiSettings.PREFIX)) {
                c.api.set(key, value);
                continue;
            }
            if (key.equals(MetricsSampler.KEY)) {
                c.metrics = !value.isEmpty() && bool(key, value);
                continue;
            }
            String name = key.substring(P.length());
            if (!KEYS.contains(name)) {
                throw new ConfigError("unknown driver key " + key + " (known: restorebench." + String.join(", restorebench.", new java.util.TreeSet<>(KEYS)) + ", " + MetricsSampler.KEY + ", restorebench.api.*, restorebench.rocksdb.*)");
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
                        case "table": c.topology = Topology.TABLE; break;
                        default: throw new ConfigError(key + "=" + value + ": must be kv, ledger or table");
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
                case "store.kind": c.storeKind = StoreKinds.of(key, value); break;
                case "store.retention.ms": c.retentionMs = interval(key, value); break;
                case "store.window.size.ms": c.windowSizeMs = interval(key, value); break;
                case "store.segment.interval.ms": c.segmentIntervalMs = interval(key, value); break;
                case "store.keys": c.storeKeys = interval(key, value); break;
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

    /**
     * The changelog topic Kafka Streams keeps the store in: the table
     * topology's input topic itself (source-topic reuse), else the one
     * Kafka Streams names after the store.
     */
    String changelogTopic() {
        if (topology == Topology.TABLE) {
            return inputTopic;
        }
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
        if (topology == Topology.TABLE) {
            TableTopology.requireSourceReuse(streams);
        }
        checkStoreKind();
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
        api.check(this);
        leaveOnCloseSet = Compat.applyLeaveOnClose(streams, closeLeaveGroup);
        for (String required : new String[] {StreamsConfig.APPLICATION_ID_CONFIG, StreamsConfig.BOOTSTRAP_SERVERS_CONFIG}) {
            if (streams.getProperty(required, "").isBlank()) {
                throw new ConfigError(required + " is required");
            }
        }
    }

    /**
     * The store's settings are its kind's to check ({@link StoreKindDef#check}),
     * with the shared refusals below: a kind takes the settings of its own
     * store and no other's.
     */
    private void checkStoreKind() throws ConfigError {
        storeKind.check(this);
    }

    /** The kind as its setting reads: restorebench.store.kind=NAME. */
    String kindName() {
        return P + "store.kind=" + storeKind.key();
    }

    /** Refuses restorebench.store.keys, which only a versioned store takes (its key space). */
    void refuseStoreKeys() throws ConfigError {
        if (storeKeys != 0) {
            throw new ConfigError(P + "store.keys is for " + P + "store.kind=versioned-key-value only, not " + storeKind.key());
        }
    }

    /** Refuses the window settings, which only window and session stores take. */
    void refuseWindowSettings() throws ConfigError {
        if (retentionMs != 0 || windowSizeMs != 0 || segmentIntervalMs != 0) {
            throw new ConfigError(P + "store.retention.ms, store.window.size.ms and store.segment.interval.ms are for " + P + "store.kind=window, timestamped-window or session only, not " + storeKind.key());
        }
    }

    /** Refuses another topology than kv, which builds every kind but the table's. */
    void requireKvTopology() throws ConfigError {
        if (topology != Topology.KV) {
            throw new ConfigError(kindName() + " is built by the kv topology only, not " + topology.name().toLowerCase(Locale.ROOT));
        }
    }

    /**
     * What a window or session store needs: no store keys, a store type
     * rocksdb or memory, a retention and window size above 0, and the
     * retention at least the window (shorter says why not, after the
     * window's size). Its kind checks the topology.
     */
    void requireWindowedStore(String shorter) throws ConfigError {
        refuseStoreKeys();
        refuseTimestampedType();
        if (windowSizeMs <= 0 || retentionMs <= 0) {
            throw new ConfigError(kindName() + " needs " + P + "store.retention.ms and " + P + "store.window.size.ms above 0");
        }
        if (retentionMs < windowSizeMs) {
            throw new ConfigError(P + "store.retention.ms=" + retentionMs + " is shorter than the window (" + windowSizeMs + " ms)" + shorter);
        }
    }

    /** Refuses store.type=timestamped, a key-value store's type, beside another kind. */
    void refuseTimestampedType() throws ConfigError {
        if (storeType == StoreType.TIMESTAMPED) {
            throw new ConfigError(kindName() + " cannot be combined with " + P + "store.type=timestamped (a key-value store's); the type is rocksdb or memory");
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
