package restorebench.kstreams;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.LagInfo;
import org.apache.kafka.streams.TaskMetadata;
import org.apache.kafka.streams.ThreadMetadata;
import org.apache.kafka.streams.processor.TaskId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The timers behind the `tasks`, `lags`, `processed`, `process` and
 * `metrics` (at the process interval, when asked) events,
 * each on its own daemon thread so a slow one (allLocalStorePartitionLags asks
 * the broker for end offsets) never delays another. An interval of 0 turns a
 * poller off; none run in bare mode. A failing poll is logged and retried at
 * the next tick (e.g. metadata is not available while the client starts).
 */
final class Pollers {
    private static final Logger LOG = LoggerFactory.getLogger(Pollers.class);
    private static final Comparator<TaskId> TASK_ORDER =
            Comparator.comparingInt(TaskId::subtopology).thenComparingInt(TaskId::partition);

    private final KafkaStreams streams;
    private final Events events;
    private final ProcessedTracker tracker;
    private final ProcessStats stats;
    private final List<ScheduledExecutorService> executors = new ArrayList<>();
    private String lastTasks; // guarded by `this`

    Pollers(KafkaStreams streams, Events events, ProcessedTracker tracker, ProcessStats stats) {
        this.streams = streams;
        this.events = events;
        this.tracker = tracker;
        this.stats = stats;
    }

    /** Starts the pollers whose interval is not 0. */
    void start(DriverConfig c) {
        schedule("tasks", c.tasksIntervalMs, this::pollTasks);
        schedule("lags", c.lagsIntervalMs, this::pollLags);
        schedule("processed", c.processedIntervalMs, this::emitProcessed);
        schedule("process", c.processIntervalMs, this::emitProcess);
        if (c.metrics) {
            schedule("metrics", c.processIntervalMs, new MetricsSampler(streams::metrics, events, c)::emit);
        }
    }

    private void schedule(String name, long intervalMs, Runnable r) {
        if (intervalMs <= 0) {
            return;
        }
        AtomicInteger n = new AtomicInteger();
        ThreadFactory tf = run -> {
            Thread t = new Thread(run, "restorebench-" + name + (n.getAndIncrement() == 0 ? "" : "-" + n.get()));
            t.setDaemon(true);
            return t;
        };
        ScheduledExecutorService ex = Executors.newSingleThreadScheduledExecutor(tf);
        ex.scheduleWithFixedDelay(() -> {
            try {
                r.run();
            } catch (Throwable t) {
                LOG.debug("{} poll failed: {}", name, t.toString());
            }
        }, 0, intervalMs, TimeUnit.MILLISECONDS);
        executors.add(ex);
    }

    /** Stops every poller and waits (briefly) for a running poll to finish. */
    void stop() {
        for (ScheduledExecutorService ex : executors) {
            ex.shutdownNow();
        }
        for (ScheduledExecutorService ex : executors) {
            try {
                ex.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Emits `tasks` when the thread/task assignment differs from the last one emitted. */
    void pollTasks() {
        List<Map<String, Object>> threads = threads(streams);
        String canon = Json.toJson(threads);
        synchronized (this) {
            if (canon.equals(lastTasks)) {
                return;
            }
            lastTasks = canon;
        }
        events.emit("tasks", Json.obj("threads", threads));
    }

    /**
     * The local threads in canonical form: sorted by name, each with its state
     * and its active and standby task ids sorted.
     */
    List<Map<String, Object>> threads(KafkaStreams streams) {
        List<ThreadMetadata> ts = new ArrayList<>(streams.metadataForLocalThreads());
        ts.sort(Comparator.comparing(ThreadMetadata::threadName));
        List<Map<String, Object>> out = new ArrayList<>(ts.size());
        for (ThreadMetadata t : ts) {
            if (stats != null && !stats.hasStreamThreadPrefix()) {
                stats.setStreamThreadPrefix(clientIdOf(t.threadName()));
            }
            out.add(Json.obj("name", t.threadName(), "state", t.threadState(),
                    "active", taskIds(t.activeTasks()), "standby", taskIds(t.standbyTasks())));
        }
        return out;
    }

    private static List<String> taskIds(Iterable<TaskMetadata> tasks) {
        List<TaskId> ids = new ArrayList<>();
        for (TaskMetadata m : tasks) {
            ids.add(m.taskId());
        }
        ids.sort(TASK_ORDER);
        List<String> out = new ArrayList<>(ids.size());
        for (TaskId id : ids) {
            out.add(id.toString());
        }
        return out;
    }

    /** The client id in a stream thread name "CLIENTID-StreamThread-N", or null. */
    static String clientIdOf(String threadName) {
        int i = threadName.lastIndexOf("-StreamThread-");
        return i > 0 ? threadName.substring(0, i) : null;
    }

    /** Emits `lags` from allLocalStorePartitionLags(), sorted by store and partition. */
    void pollLags() {
        Map<String, Map<Integer, LagInfo>> all = streams.allLocalStorePartitionLags();
        List<Map<String, Object>> lags = new ArrayList<>();
        for (Map.Entry<String, Map<Integer, LagInfo>> s : new TreeMap<>(all).entrySet()) {
            for (Map.Entry<Integer, LagInfo> p : new TreeMap<>(s.getValue()).entrySet()) {
                LagInfo l = p.getValue();
                lags.add(Json.obj("store", s.getKey(), "partition", p.getKey(),
                        "current_offset", l.currentOffsetPosition(), "end_offset", l.endOffsetPosition(),
                        "lag", l.offsetLag()));
            }
        }
        events.emit("lags", Json.obj("lags", lags));
    }

    /** Emits `processed` when records were processed since the last one. */
    void emitProcessed() {
        if (tracker == null) {
            return;
        }
        List<Map<String, Object>> parts = tracker.drain();
        if (!parts.isEmpty()) {
            events.emit("processed", Json.obj("partitions", parts));
        }
    }

    /** Emits `process`. */
    void emitProcess() {
        if (!stats.hasStreamThreadPrefix()) {
            try {
                threads(streams); // learns the client id from the thread names
            } catch (RuntimeException e) {
                // not yet known
            }
        }
        Map<String, Object> sample = stats.sample();
        Map<String, Object> rocks = RocksMemory.of(streams.metrics());
        if (rocks != null) {
            sample.put("rocksdb", rocks);
        }
        events.emit("process", sample);
    }
}
