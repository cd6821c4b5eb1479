package restorebench.kstreams;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.junit.jupiter.api.Test;

class MetricsSamplerTest {
    private static Properties base() {
        Properties p = new Properties();
        p.setProperty("restorebench.instance.id", "i0");
        p.setProperty("restorebench.input.topic", "in");
        p.setProperty("application.id", "app");
        p.setProperty("bootstrap.servers", "127.0.0.1:9092");
        return p;
    }

    private static void put(Map<MetricName, Metric> m, String group, String name, Map<String, String> tags, Object value) {
        MetricName n = new MetricName(name, group, "", tags);
        m.put(n, new FakeMetric(n, value));
    }

    /** Only the restore metrics of the state updater and the tasks, by Kafka's names, in a fixed order. */
    @Test
    void selectsTheRestoreMetricsInOrder() {
        Map<MetricName, Metric> all = new LinkedHashMap<>();
        Map<String, String> task1 = new LinkedHashMap<>();
        task1.put("thread-id", "app-1-StreamThread-1");
        task1.put("task-id", "0_1");
        put(all, "stream-task-metrics", "restore-total", task1, 1000.0);
        put(all, "stream-task-metrics", "restore-total", Map.of("thread-id", "app-1-StreamThread-1", "task-id", "0_0"), 500.0);
        put(all, "stream-task-metrics", "process-rate", task1, 9.0); // not a restore metric
        put(all, "stream-state-updater-metrics", "restore-records-rate", Map.of("thread-id", "app-1-StateUpdater-1"), 1234.5);
        put(all, "stream-state-updater-metrics", "idle-ratio", Map.of("thread-id", "app-1-StateUpdater-1"), Double.NaN);
        put(all, "stream-state-updater-metrics", "active-restoring-tasks", Map.of("thread-id", "app-1-StateUpdater-1"), 2L);
        put(all, "stream-state-updater-metrics", "active-restoring-tasks-text", Map.of(), "x");
        put(all, "consumer-fetch-manager-metrics", "records-consumed-rate", Map.of(), 7.0);
        put(all, "stream-state-updater-metrics", "standby-updating-tasks", Map.of(), "not a number");

        List<Map<String, Object>> got = MetricsSampler.select(all);
        assertEquals(5, got.size(), got.toString());
        assertEquals("stream-state-updater-metrics", got.get(0).get("group"));
        assertEquals("active-restoring-tasks", got.get(0).get("name"));
        assertEquals(2.0, got.get(0).get("value"));
        assertEquals("idle-ratio", got.get(1).get("name"));
        assertEquals("restore-records-rate", got.get(2).get("name"));
        // Tasks by their tags: 0_0 before 0_1; tags sorted by name.
        assertEquals("{task-id=0_0, thread-id=app-1-StreamThread-1}", got.get(3).get("tags").toString());
        assertEquals(500.0, got.get(3).get("value"));
        assertEquals("{task-id=0_1, thread-id=app-1-StreamThread-1}", got.get(4).get("tags").toString());
        // As an event: a non-finite value is null, tags an object.
        String json = Json.toJson(got.get(1));
        assertEquals("{\"group\":\"stream-state-updater-metrics\",\"name\":\"idle-ratio\",\"tags\":{\"thread-id\":\"app-1-StateUpdater-1\"},\"value\":null}", json);
    }

    /** Asking for sampling sets DEBUG and says so; a level the user names wins. */
    @Test
    void recordingLevel() throws Exception {
        Properties p = base();
        p.setProperty("restorebench.metrics", "true");
        DriverConfig c = DriverConfig.parse(p);
        assertTrue(c.metrics);
        assertTrue(c.metricsLevelSet);
        assertEquals("DEBUG", c.streams.getProperty("metrics.recording.level"));
        assertNull(c.streams.getProperty("restorebench.metrics")); // a driver key, not StreamsConfig's
        Map<String, Object> h = MetricsSampler.header(c);
        assertEquals("DEBUG", h.get("recording_level"));
        assertEquals(true, h.get("recording_level_set"));
        assertEquals(30000L, h.get("sample_window_ms")); // StreamsConfig's defaults
        assertEquals(2, h.get("num_samples"));

        p.setProperty("metrics.recording.level", "INFO");
        p.setProperty("metrics.sample.window.ms", "1000");
        c = DriverConfig.parse(p);
        assertFalse(c.metricsLevelSet);
        h = MetricsSampler.header(c);
        assertEquals("INFO", h.get("recording_level"));
        assertEquals(false, h.get("recording_level_set"));
        assertEquals(1000L, h.get("sample_window_ms"));

        // Not asked: the level stays Kafka Streams' default (unset).
        c = DriverConfig.parse(base());
        assertFalse(c.metrics);
        assertNull(c.streams.getProperty("metrics.recording.level"));
    }

    @Test
    void errors() {
        for (String[][] kvs : new String[][][] {
                {{"restorebench.metrics", "yes"}},
                {{"restorebench.metrics", "true"}, {"restorebench.bare", "true"}},
                {{"restorebench.metrics", "true"}, {"restorebench.process.interval.ms", "0"}},
        }) {
            Properties p = base();
            for (String[] kv : kvs) {
                p.setProperty(kv[0], kv[1]);
            }
            assertThrows(DriverConfig.ConfigError.class, () -> DriverConfig.parse(p), p.toString());
        }
    }
}
