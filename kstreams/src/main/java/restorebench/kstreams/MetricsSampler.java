package restorebench.kstreams;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;

import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.streams.StreamsConfig;

/**
 * Samples Kafka Streams' own restore metrics through KafkaStreams#metrics()
 * for the `metrics` event (PROTOCOL.md), under Kafka's names (group, name,
 * tags), so the Go side can set them beside what it measures from the
 * restore listeners. Which metrics, as Kafka Streams 4.4 registers them:
 *
 * <ul>
 * <li>group {@value #STATE_UPDATER_GROUP} (one set per state updater
 * thread, tag thread-id; recorded at INFO): the restore rate and call rate,
 * the task counts and the time ratios;</li>
 * <li>group {@value #TASK_GROUP} (tags thread-id, task-id): restore-total,
 * restore-rate, update-total, update-rate (recorded at DEBUG only) and
 * restore-remaining-records-total (INFO).</li>
 * </ul>
 *
 * Sampling is asked with restorebench.metrics=true; the driver then sets
 * metrics.recording.level=DEBUG unless the configuration names a level
 * itself, and every event says which level ran and whether the driver set
 * it, since DEBUG also turns on RocksDB's statistics and so is not free.
 */
final class MetricsSampler {
    /** The driver key that asks for sampling. */
    static final String KEY = DriverConfig.P + "metrics";
    static final String STATE_UPDATER_GROUP = "stream-state-updater-metrics";
    static final String TASK_GROUP = "stream-task-metrics";

    /** The state updater's metrics sampled (all it registers in 4.4). */
    static final Set<String> STATE_UPDATER_METRICS = Set.of(
            "restore-records-rate", "restore-call-rate",
            "active-restoring-tasks", "standby-updating-tasks", "active-paused-tasks", "standby-paused-tasks",
            "idle-ratio", "active-restore-ratio", "standby-update-ratio", "checkpoint-ratio");

    /** The task-level restore and standby-update metrics sampled. */
    static final Set<String> TASK_METRICS = Set.of(
            "restore-total", "restore-rate", "update-total", "update-rate", "restore-remaining-records-total");

    private static final Comparator<Map<String, Object>> ORDER = Comparator
            .comparing((Map<String, Object> m) -> (String) m.get("group"))
            .thenComparing(m -> (String) m.get("name"))
            .thenComparing(m -> m.get("tags").toString());

    private final Supplier<Map<MetricName, ? extends Metric>> metrics;
    private final Events events;
    /** What every event repeats: the metrics configuration that ran. */
    private final Map<String, Object> header;

    MetricsSampler(Supplier<Map<MetricName, ? extends Metric>> metrics, Events events, DriverConfig config) {
        this.metrics = metrics;
        this.events = events;
        this.header = header(config);
    }

    /**
     * Sets metrics.recording.level=DEBUG in the StreamsConfig properties
     * unless they name a level (the user's choice wins); returns whether it
     * set it. restore-rate and update-rate are recorded at DEBUG only.
     */
    static boolean applyRecordingLevel(Properties streams) {
        String level = streams.getProperty(StreamsConfig.METRICS_RECORDING_LEVEL_CONFIG, "");
        if (!level.isBlank()) {
            return false;
        }
        streams.setProperty(StreamsConfig.METRICS_RECORDING_LEVEL_CONFIG, "DEBUG");
        return true;
    }

    /**
     * The effective metrics settings (StreamsConfig's defaults where unset):
     * the recording level, whether the driver set it, and the window Kafka's
     * rates are averaged over (metrics.num.samples windows of
     * metrics.sample.window.ms each).
     */
    static Map<String, Object> header(DriverConfig config) {
        StreamsConfig sc = new StreamsConfig(config.streams);
        return Json.obj(
                "recording_level", sc.getString(StreamsConfig.METRICS_RECORDING_LEVEL_CONFIG).toUpperCase(Locale.ROOT),
                "recording_level_set", config.metricsLevelSet,
                "sample_window_ms", sc.getLong(StreamsConfig.METRICS_SAMPLE_WINDOW_MS_CONFIG),
                "num_samples", sc.getInt(StreamsConfig.METRICS_NUM_SAMPLES_CONFIG));
    }

    /** Emits one `metrics` event with the metrics' current values. */
    void emit() {
        Map<String, Object> fields = new java.util.LinkedHashMap<>(header);
        fields.put("metrics", select(metrics.get()));
        events.emit("metrics", fields);
    }

    /**
     * The sampled metrics among all the client's, each as {group, name,
     * tags, value}, ordered by group, name and tags so that two samples
     * list them alike. A value that is not a number is left out; a
     * non-finite one is written as null.
     */
    static List<Map<String, Object>> select(Map<MetricName, ? extends Metric> all) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Map.Entry<MetricName, ? extends Metric> e : all.entrySet()) {
            MetricName n = e.getKey();
            if (!sampled(n)) {
                continue;
            }
            Object v = e.getValue().metricValue();
            if (!(v instanceof Number)) {
                continue;
            }
            out.add(Json.obj("group", n.group(), "name", n.name(), "tags", new TreeMap<>(n.tags()),
                    "value", ((Number) v).doubleValue()));
        }
        out.sort(ORDER);
        return out;
    }

    /** Whether a metric is one of those sampled. */
    static boolean sampled(MetricName n) {
        switch (n.group()) {
            case STATE_UPDATER_GROUP:
                return STATE_UPDATER_METRICS.contains(n.name());
            case TASK_GROUP:
                return TASK_METRICS.contains(n.name());
            default:
                return false;
        }
    }
}
