package restorebench.kstreams;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Properties;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.junit.jupiter.api.Test;

/**
 * Without stale reads a partition answers only while this client's restore
 * listener has it restored: Kafka Streams itself checks only the stream
 * thread's state, so a store not yet initialized, restoring again after a
 * revival, or handed back after a suspension must be refused here, before
 * any store is asked (the client below is never started: the refusal
 * comes first).
 */
class LocalLookupTest {
    private static DriverConfig config() throws Exception {
        Properties p = new Properties();
        p.setProperty("restorebench.instance.id", "i0");
        p.setProperty("restorebench.input.topic", "in");
        p.setProperty("application.id", "app");
        p.setProperty("bootstrap.servers", "127.0.0.1:9092");
        return DriverConfig.parse(p);
    }

    private static String refusal(LocalLookup l, int partition) {
        return assertThrows(InvalidStateStoreException.class, () -> l.get(partition, new byte[] {1}, false)).getMessage();
    }

    @Test
    void nonStaleReadsRefuseAStoreThatIsNotRestored() throws Exception {
        StoreProgress progress = new StoreProgress(null);
        LocalLookup l = new LocalLookup(null, config(), progress);
        TopicPartition tp = new TopicPartition("app-store-changelog", 3);
        assertTrue(refusal(l, 3).contains("not yet initialized"), refusal(l, 3));
        progress.onRestoreStart(tp, "store", 0, 100);
        assertTrue(refusal(l, 3).contains("is restoring"), refusal(l, 3));
        progress.onRestoreSuspended(tp, "store", 40);
        assertTrue(refusal(l, 3).contains("is suspended"), refusal(l, 3));
        // Another partition's restore says nothing of this one.
        progress.onRestoreEnd(new TopicPartition("app-store-changelog", 1), "store", 10);
        assertTrue(refusal(l, 3).contains("is suspended"), refusal(l, 3));
    }
}
