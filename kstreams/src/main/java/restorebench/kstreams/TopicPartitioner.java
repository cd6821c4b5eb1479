package restorebench.kstreams;

import java.util.Optional;
import java.util.Set;

import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.streams.processor.StreamPartitioner;

/**
 * Routes a lookup's key as the fill's producer placed it: Kafka's murmur2
 * of the key bytes modulo the source topic's partition count, given once
 * (restorebench.api.partitions), not the count Kafka Streams passes in.
 * Kafka Streams passes the partitions its group metadata names; under
 * group.protocol=streams that is only the partitions some member holds
 * active, fewer than the topic's while a task moves, so its own routing
 * names the wrong partition then (PROTOCOL.md, "The API layer"). Both
 * methods are written, without @Override, so that the class builds
 * against every Kafka Streams version the driver supports: 3.x declares
 * partition abstract, 4.x partitions.
 */
final class TopicPartitioner implements StreamPartitioner<Bytes, Void> {
    private final int partitions;

    TopicPartitioner(int partitions) {
        this.partitions = partitions;
    }

    /** The key's partition; numPartitions, Kafka Streams' count, is ignored. */
    public Integer partition(String topic, Bytes key, Void value, int numPartitions) {
        return Utils.toPositive(Utils.murmur2(key.get())) % partitions;
    }

    /** The key's one partition, as {@link #partition}. */
    public Optional<Set<Integer>> partitions(String topic, Bytes key, Void value, int numPartitions) {
        return Optional.of(Set.of(partition(topic, key, value, numPartitions)));
    }
}
