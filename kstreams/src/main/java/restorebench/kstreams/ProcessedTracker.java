package restorebench.kstreams;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.kafka.common.TopicPartition;

/**
 * Counts the records the topology processes, per input partition, between two
 * `processed` events: how many, the last offset, and the monotonic times of
 * the first and last. A processor records into the {@link Part} of its
 * partition (each partition is processed by one stream thread at a time, so
 * the per-part lock is uncontended except against the draining poller).
 */
final class ProcessedTracker {
    /** One input partition's counters since the last drain. */
    static final class Part {
        final String topic;
        final int partition;
        private long records;
        private long lastOffset = -1;
        private long firstNs;
        private long lastNs;

        Part(String topic, int partition) {
            this.topic = topic;
            this.partition = partition;
        }

        /** Records one processed record at offset, now. */
        synchronized void record(long offset) {
            long now = System.nanoTime();
            if (records == 0) {
                firstNs = now;
            }
            records++;
            lastNs = now;
            if (offset >= 0) {
                lastOffset = offset;
            }
        }

        /** The counters as an event entry (null when nothing was processed), then reset. */
        synchronized Map<String, Object> drain() {
            if (records == 0) {
                return null;
            }
            Map<String, Object> m = Json.obj("topic", topic, "partition", partition, "records", records,
                    "last_offset", lastOffset, "first_mono_ns", firstNs, "last_mono_ns", lastNs);
            records = 0;
            return m;
        }
    }

    private final ConcurrentHashMap<TopicPartition, Part> parts = new ConcurrentHashMap<>();

    /** The counters of one input partition. */
    Part part(String topic, int partition) {
        return parts.computeIfAbsent(new TopicPartition(topic, partition), tp -> new Part(tp.topic(), tp.partition()));
    }

    /** Every partition with records since the last drain, sorted, and resets them. */
    List<Map<String, Object>> drain() {
        List<Part> ps = new ArrayList<>(parts.values());
        ps.sort(Comparator.comparing((Part p) -> p.topic).thenComparingInt(p -> p.partition));
        List<Map<String, Object>> out = new ArrayList<>();
        for (Part p : ps) {
            Map<String, Object> m = p.drain();
            if (m != null) {
                out.add(m);
            }
        }
        return out;
    }

    /**
     * Finds the Part for the record being processed, caching the last one so
     * the common case (a processor instance sees one partition) costs no lookup.
     */
    static final class Cursor {
        private final ProcessedTracker tracker;
        private Part last;

        Cursor(ProcessedTracker tracker) {
            this.tracker = tracker;
        }

        void record(String topic, int partition, long offset) {
            Part p = last;
            if (p == null || p.partition != partition || !p.topic.equals(topic)) {
                p = tracker.part(topic, partition);
                last = p;
            }
            p.record(offset);
        }
    }
}
