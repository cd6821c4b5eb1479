package restorebench.kstreams;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;

import org.apache.kafka.common.utils.Bytes;
import org.junit.jupiter.api.Test;

class TopicPartitionerTest {
    private static Bytes key(String k) {
        return Bytes.wrap(k.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Keys land where the Go fill placed them over 4 partitions
     * (loadgen.PartitionFor), whatever count Kafka Streams passes: under
     * group.protocol=streams it passed 2 for these and its own routing
     * named partitions 0 and 1.
     */
    @Test
    void routesByTheTopicsCountNotKafkaStreams() {
        TopicPartitioner p = new TopicPartitioner(4);
        for (int passed : new int[] {2, 3, 4}) {
            assertEquals(Optional.of(Set.of(2)), p.partitions("in", key("k000000000004935"), null, passed));
            assertEquals(Optional.of(Set.of(3)), p.partitions("in", key("k000000000003301"), null, passed));
            assertEquals(Integer.valueOf(3), p.partition("in", key("k000000000002520"), null, passed));
        }
    }

    @Test
    void partitionsSetting() throws Exception {
        Properties p = new Properties();
        p.setProperty("restorebench.instance.id", "i0");
        p.setProperty("restorebench.input.topic", "in");
        p.setProperty("application.id", "app");
        p.setProperty("bootstrap.servers", "127.0.0.1:9092");
        p.setProperty("restorebench.api.port", "0");
        assertEquals(0, DriverConfig.parse(p).api.partitions);
        p.setProperty("restorebench.api.partitions", "4");
        assertEquals(4, DriverConfig.parse(p).api.partitions);
        p.setProperty("restorebench.api.partitions", "-1");
        String msg = org.junit.jupiter.api.Assertions.assertThrows(DriverConfig.ConfigError.class, () -> DriverConfig.parse(p)).getMessage();
        assertTrue(msg.contains("restorebench.api.partitions=-1"), msg);
    }
}
