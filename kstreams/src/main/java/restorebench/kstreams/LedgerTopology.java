package restorebench.kstreams;

import java.nio.ByteBuffer;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The ledger topology (account balances): input.topic carries
 * transactions, key = account id (UTF-8), value = 16 bytes big-endian
 * (transaction id, amount in minor units). groupByKey().aggregate(...) keeps
 * per account 16 bytes: balance, then the count of transactions applied, in
 * a DSL-materialized (timestamped) store named `store`, whose changelog holds
 * exactly those 16 bytes. The key is not changed, so there is no repartition
 * and the topology is one sub-topology (task 0_P owns store partition P).
 * Outside bare mode a key-preserving step in front counts processed records.
 */
final class LedgerTopology {
    private LedgerTopology() {}

    /** Bytes of a transaction value and of a balance value. */
    static final int VALUE_BYTES = 16;

    /** Builds the topology; tracker is null in bare mode. */
    static Topology build(DriverConfig c, ProcessedTracker tracker) {
        StreamsBuilder b = new StreamsBuilder();
        KStream<String, byte[]> tx = b.stream(c.inputTopic, Consumed.with(Serdes.String(), Serdes.ByteArray()));
        if (tracker != null) {
            tx = tx.processValues(() -> new Track(tracker), Named.as("ledger-track"));
        }
        var balances = tx.groupByKey().aggregate(
                () -> new byte[VALUE_BYTES],
                LedgerTopology::apply,
                Named.as("ledger-aggregate"),
                Materialized.<String, byte[], KeyValueStore<Bytes, byte[]>>as(c.store)
                        .withKeySerde(Serdes.String())
                        .withValueSerde(Serdes.ByteArray()));
        if (c.outputTopic != null) {
            balances.toStream(Named.as("ledger-balances")).to(c.outputTopic, Produced.with(Serdes.String(), Serdes.ByteArray()));
        }
        return b.build();
    }

    /** Applies one transaction to an account's balance value. */
    static byte[] apply(String account, byte[] tx, byte[] balance) {
        if (tx.length != VALUE_BYTES) {
            throw new IllegalArgumentException("ledger: transaction for account " + account + " has "
                    + tx.length + " value bytes, want " + VALUE_BYTES + " (transaction id, amount)");
        }
        long amount = ByteBuffer.wrap(tx).getLong(8);
        ByteBuffer old = ByteBuffer.wrap(balance);
        return ByteBuffer.allocate(VALUE_BYTES)
                .putLong(old.getLong(0) + amount)
                .putLong(old.getLong(8) + 1)
                .array();
    }

    /** The balance and the transaction count of a balance value. */
    static long[] decode(byte[] balance) {
        if (balance.length != VALUE_BYTES) {
            throw new IllegalArgumentException("ledger: balance value has " + balance.length + " bytes, want " + VALUE_BYTES);
        }
        ByteBuffer bb = ByteBuffer.wrap(balance);
        return new long[] {bb.getLong(0), bb.getLong(8)};
    }

    /** Forwards every record unchanged, counting it for `processed` events. */
    private static final class Track implements FixedKeyProcessor<String, byte[], byte[]> {
        private final ProcessedTracker.Cursor cursor;
        private FixedKeyProcessorContext<String, byte[]> context;

        Track(ProcessedTracker tracker) {
            this.cursor = new ProcessedTracker.Cursor(tracker);
        }

        @Override
        public void init(FixedKeyProcessorContext<String, byte[]> context) {
            this.context = context;
        }

        @Override
        public void process(FixedKeyRecord<String, byte[]> r) {
            RecordMetadata m = context.recordMetadata().orElse(null);
            if (m != null) {
                cursor.record(m.topic(), m.partition(), m.offset());
            }
            context.forward(r);
        }
    }
}
