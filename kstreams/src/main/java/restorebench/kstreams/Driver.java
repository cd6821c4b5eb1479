package restorebench.kstreams;

import java.io.BufferedReader;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.FileDescriptor;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.Reader;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;

/**
 * One Kafka Streams instance per process, driven by restorebench (see
 * kstreams/PROTOCOL.md): reads CONFIG.properties, builds the kv, ledger or
 * table topology, starts KafkaStreams with listeners that report its lifecycle as
 * JSON events on stdout, and executes commands read from stdin (digest,
 * digest all, entries PARTITION PATH, balances PATH, stop) on the main thread, one at a time.
 *
 * Exit codes: 0 after `stop` (or the end of stdin), 2 after the client failed
 * (uncaught exception or a failed start), 3 for a bad configuration.
 *
 * Also: `Driver --digest-vectors FILE` prints the digest of test vectors (see
 * {@link DigestVectors}).
 */
public final class Driver {
    static final int EXIT_OK = 0;
    static final int EXIT_FAILED = 2;
    static final int EXIT_CONFIG = 3;

    /**
     * Put on the command queue by the state listener when the client reaches
     * ERROR; recognised by identity, so no stdin line can be mistaken for it.
     */
    @SuppressWarnings("StringOperationCanBeSimplified")
    private static final String FAILED = new String("<failed>");
    private static final String STOP = "stop";
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(60);

    private final DriverConfig config;
    private final Events events;
    private final BlockingQueue<String> commands = new LinkedBlockingQueue<>();
    private volatile boolean failed;
    /** The API layer, when restorebench.api.port asks for one. */
    private ApiServer api;

    private Driver(DriverConfig config, Events events) {
        this.config = config;
        this.events = events;
    }

    public static void main(String[] args) {
        if (args.length == 2 && args[0].equals("--digest-vectors")) {
            System.exit(digestVectors(args[1]));
        }
        // stdout carries events only: anything else that prints to System.out
        // goes to stderr from here on.
        OutputStream stdout = new FileOutputStream(FileDescriptor.out);
        System.setOut(new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8));
        Events events = new Events(stdout, "");
        if (args.length != 1 || args[0].startsWith("-")) {
            System.err.println("usage: java -cp '.cache/kstreams/lib/*' restorebench.kstreams.Driver CONFIG.properties\n"
                    + "       java -cp '.cache/kstreams/lib/*' restorebench.kstreams.Driver --digest-vectors FILE");
            events.error("config", "usage: Driver CONFIG.properties | --digest-vectors FILE");
            System.exit(EXIT_CONFIG);
        }
        Properties props = new Properties();
        try (Reader r = new InputStreamReader(new FileInputStream(args[0]), StandardCharsets.UTF_8)) {
            props.load(r);
        } catch (IOException | IllegalArgumentException e) {
            events.error("config", "reading " + args[0] + ": " + e);
            System.exit(EXIT_CONFIG);
        }
        events.setInstance(props.getProperty(DriverConfig.P + "instance.id", "").trim());
        DriverConfig config;
        try {
            config = DriverConfig.parse(props);
        } catch (DriverConfig.ConfigError e) {
            events.error("config", e.getMessage());
            System.exit(EXIT_CONFIG);
            return;
        }
        events.setInstance(config.instanceId);
        if (config.connectTimeoutMs > 0) {
            String why = ConnectCheck.check(config.streams, config.connectTimeoutMs);
            if (why != null) {
                events.error("connect", why);
                events.close();
                System.exit(EXIT_FAILED);
            }
        }
        int code = new Driver(config, events).run();
        events.close();
        System.exit(code);
    }

    private static int digestVectors(String file) {
        try (Reader r = Files.newBufferedReader(Paths.get(file), StandardCharsets.UTF_8)) {
            DigestVectors.run(r, new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8));
            return EXIT_OK;
        } catch (IOException | IllegalArgumentException e) {
            System.err.println("--digest-vectors " + file + ": " + e.getMessage());
            return EXIT_CONFIG;
        }
    }

    /** Runs the instance until stop or failure; returns the exit code. */
    private int run() {
        hello();
        // No counting at all when nothing would report it.
        ProcessedTracker tracker = config.bare || config.processedIntervalMs == 0 ? null : new ProcessedTracker();
        if (config.api.enabled()) {
            try {
                api = ApiServer.bind(config, events);
            } catch (java.io.IOException e) {
                events.error("api", e);
                return EXIT_FAILED;
            }
        }
        KafkaStreams streams;
        try {
            Topology topology = buildTopology(tracker);
            streams = new KafkaStreams(topology, config.streams);
        } catch (RuntimeException e) {
            // ConfigException and friends: StreamsConfig refused the properties.
            events.error("config", e);
            return EXIT_CONFIG;
        }
        streams.setStateListener((to, from) -> {
            events.emit("state", Json.obj("from", from.name(), "to", to.name()));
            if (to == KafkaStreams.State.ERROR) {
                commands.offer(FAILED);
            }
        });
        streams.setUncaughtExceptionHandler(e -> {
            failed = true;
            events.error("uncaught", e);
            return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        });
        Pollers pollers = null;
        StoreProgress progress = null;
        if (!config.bare) {
            StoreListeners listeners = new StoreListeners(events);
            // The API layer's answers name each partition's restore state:
            // only then do the callbacks go through StoreProgress.
            progress = api == null ? null : new StoreProgress(listeners);
            streams.setGlobalStateRestoreListener(progress == null ? listeners : progress);
            streams.setStandbyUpdateListener(progress == null ? listeners : progress);
            pollers = new Pollers(streams, events, tracker, new ProcessStats());
        }
        startStdinReader();
        try {
            streams.start();
        } catch (RuntimeException e) {
            failed = true;
            events.error("start", e);
            return shutdown(streams, pollers, EXIT_FAILED);
        }
        if (pollers != null) {
            pollers.start(config);
        }
        if (api != null) {
            api.start(streams, progress);
        }
        StoreQueries queries = new StoreQueries(streams, config, events);
        while (true) {
            String line;
            try {
                line = commands.take();
            } catch (InterruptedException e) {
                line = STOP;
            }
            if (line == FAILED) { // identity, see FAILED
                return shutdown(streams, pollers, EXIT_FAILED);
            }
            String cmd = line.trim();
            if (cmd.isEmpty()) {
                continue;
            }
            String[] words = cmd.split("\\s+", 2);
            try {
                switch (words[0].toLowerCase(Locale.ROOT)) {
                    case "stop":
                        return shutdown(streams, pollers, failed ? EXIT_FAILED : EXIT_OK);
                    case "digest":
                        if (words.length == 1) {
                            queries.digest(false);
                        } else if (words[1].trim().equals("all")) {
                            queries.digest(true);
                        } else {
                            events.error("command", "unknown digest scope: " + cmd + " (digest | digest all)");
                        }
                        break;
                    case "balances":
                        if (words.length < 2 || words[1].isBlank()) {
                            events.error("command", "balances needs a PATH");
                        } else {
                            queries.balances(words[1].trim());
                        }
                        break;
                    case "entries": {
                        String[] args = words.length < 2 ? new String[0] : words[1].trim().split("\\s+", 2);
                        if (args.length < 2) {
                            events.error("command", "entries needs a PARTITION and a PATH");
                        } else {
                            queries.entries(Integer.parseInt(args[0]), args[1]);
                        }
                        break;
                    }
                    default:
                        events.error("command", "unknown command: " + cmd + " (digest, digest all, entries PARTITION PATH, balances PATH, stop)");
                }
            } catch (Exception e) {
                events.error(words[0].toLowerCase(Locale.ROOT), e);
            }
        }
    }

    /**
     * Closes the client (60 s at most; a clean close writes the checkpoints;
     * after `stop` it also leaves the consumer group unless
     * restorebench.close.leave.group=false),
     * stops the pollers, flushes the last processed counts and emits
     * `stopped`, the last event.
     */
    private int shutdown(KafkaStreams streams, Pollers pollers, int code) {
        if (api != null) {
            api.stop(); // no lookup reaches a closing client
        }
        long t0 = System.nanoTime();
        boolean closed;
        try {
            // Leave the group on a requested stop (unless
            // restorebench.close.leave.group=false): Kafka Streams otherwise
            // stays a member until session.timeout.ms expires, and the next
            // instance of the same application.id would wait that long in
            // REBALANCING. Staying is what a static member's rolling restart needs.
            Boolean leave = code == EXIT_OK ? config.closeLeaveGroup : null;
            closed = Compat.close(streams, CLOSE_TIMEOUT, leave);
        } catch (RuntimeException e) {
            events.error("close", e);
            closed = false;
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        if (pollers != null) {
            pollers.stop();
            pollers.emitProcessed();
        }
        boolean clean = closed && !failed && code == EXIT_OK;
        events.emit("stopped", Json.obj("clean", clean, "seconds", seconds));
        events.close();
        return code;
    }

    /** Builds the configured topology; tracker is null in bare mode. */
    private Topology buildTopology(ProcessedTracker tracker) {
        switch (config.topology) {
            case LEDGER:
                return LedgerTopology.build(config, tracker);
            case TABLE:
                return TableTopology.build(config);
            case KV:
            default:
                return KvTopology.build(config, tracker);
        }
    }

    /** Reads stdin into the command queue; its end is `stop`. */
    private void startStdinReader() {
        Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    commands.offer(line);
                }
            } catch (IOException e) {
                // treated as the end of stdin
            }
            commands.offer(STOP);
        }, "restorebench-stdin");
        t.setDaemon(true);
        t.start();
    }

    private void hello() {
        List<String> gcs = new ArrayList<>();
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            gcs.add(gc.getName());
        }
        events.emit("hello", Json.obj(
                "pid", ProcessHandle.current().pid(),
                "kafka_streams_version", Compat.kafkaStreamsVersion(),
                "kafka_clients_version", Compat.kafkaClientsVersion(),
                "compat", Compat.inUse(config),
                "java_version", System.getProperty("java.version"),
                "jvm_args", ManagementFactory.getRuntimeMXBean().getInputArguments(),
                "max_heap_bytes", Runtime.getRuntime().maxMemory(),
                "gc", gcs,
                "topology", config.topology.name().toLowerCase(Locale.ROOT),
                "store", config.store,
                "bare", config.bare));
    }
}
