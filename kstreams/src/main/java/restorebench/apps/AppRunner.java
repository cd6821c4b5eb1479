package restorebench.apps;

import java.util.Properties;
import java.util.concurrent.CountDownLatch;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;

/**
 * What the applications in this package share, as a user's application
 * would write it: the command line (bootstrap servers, application.id,
 * state.dir, input topic), the configuration (one stream thread, the
 * record cache off so that every update reaches the changelog), the
 * restore listener, and start until SIGTERM, then close.
 */
final class AppRunner {
    private AppRunner() {}

    /** The command line's fields. */
    record Args(String bootstrap, String applicationId, String stateDir, String input) {}

    static Args parse(String app, String[] args) {
        if (args.length != 4) {
            System.err.println("usage: java -cp <classpath> restorebench.apps." + app
                    + " <bootstrap servers> <application.id> <state.dir> <input topic>");
            System.exit(2);
        }
        return new Args(args[0], args[1], args[2], args[3]);
    }

    static Properties properties(Args a) {
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, a.applicationId());
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, a.bootstrap());
        p.put(StreamsConfig.STATE_DIR_CONFIG, a.stateDir());
        p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
        // No record cache: every update is written to the store and its
        // changelog (statestore.cache.max.bytes, Kafka Streams 3.4+).
        p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0L);
        // A restarted instance rejoins without waiting out the default 45 s
        // for the member that closed (a closing dynamic member stays in the
        // group until its session expires).
        p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 6000);
        p.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 2000);
        // Any Streams or client property given as a JVM system property
        // -Dstreams.KEY=VALUE (e.g. -Dstreams.num.standby.replicas=1), as a
        // deployment's configuration would add it; it wins over the above.
        for (String name : System.getProperties().stringPropertyNames()) {
            if (name.startsWith("streams.")) {
                p.put(name.substring("streams.".length()), System.getProperty(name));
            }
        }
        return p;
    }

    /** Runs the topology until SIGTERM (or a fatal error), then closes it. */
    static void run(Topology topology, Properties props) throws InterruptedException {
        RestoreLines lines = new RestoreLines(System.out);
        KafkaStreams streams = new KafkaStreams(topology, props);
        streams.setGlobalStateRestoreListener(lines);
        streams.setStateListener(lines);
        TaskLines tasks = new TaskLines(streams, lines);
        tasks.start();
        CountDownLatch stopped = new CountDownLatch(1);
        streams.setUncaughtExceptionHandler(e -> {
            System.err.println("fatal: " + e);
            e.printStackTrace();
            stopped.countDown();
            return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        });
        CountDownLatch closed = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            streams.close();
            lines.closed();
            closed.countDown();
        }, "shutdown"));
        streams.start();
        stopped.await();
        // A fatal error: close and exit non-zero (the hook then finds it closed).
        streams.close();
        System.exit(1);
    }
}
