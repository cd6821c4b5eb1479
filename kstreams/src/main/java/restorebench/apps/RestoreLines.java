package restorebench.apps;

import java.io.PrintStream;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.processor.StateRestoreListener;

/**
 * The restore listener of the user-style applications in this package (used
 * only by restorebench's integration tests, which compare restorebench's
 * answer with what such an application's own restore takes). It prints one
 * line to stdout per onRestoreStart and onRestoreEnd, and one per state
 * change of the client, each a word naming the event followed by
 * space-separated key=value fields:
 *
 * <pre>
 * restore-start store=S topic=T partition=P start_offset=A end_offset=B epoch_ms=M nano_time=N
 * restore-end store=S topic=T partition=P restored=R epoch_ms=M nano_time=N
 * restore-suspended store=S topic=T partition=P restored=R epoch_ms=M nano_time=N
 * state from=OLD to=NEW epoch_ms=M nano_time=N
 * tasks state=S consumers=C1,C2 active=T1,T2 standby=T3 epoch_ms=M nano_time=N
 * closed epoch_ms=M nano_time=N
 * </pre>
 *
 * nano_time is System.nanoTime() in this JVM: a restore's duration is the
 * difference of two lines' nano_time. Names hold no spaces (Kafka topic and
 * store names cannot). Lines are written whole under one lock and flushed.
 */
final class RestoreLines implements StateRestoreListener, KafkaStreams.StateListener {
    private final PrintStream out;

    RestoreLines(PrintStream out) {
        this.out = out;
    }

    @Override
    public void onRestoreStart(TopicPartition tp, String store, long startOffset, long endOffset) {
        line("restore-start store=" + store + " topic=" + tp.topic() + " partition=" + tp.partition()
                + " start_offset=" + startOffset + " end_offset=" + endOffset);
    }

    @Override
    public void onBatchRestored(TopicPartition tp, String store, long batchEndOffset, long records) {
        // Only the start and the end are printed: one line per batch would
        // cost the restore it measures.
    }

    @Override
    public void onRestoreEnd(TopicPartition tp, String store, long restored) {
        line("restore-end store=" + store + " topic=" + tp.topic() + " partition=" + tp.partition() + " restored=" + restored);
    }

    @Override
    public void onRestoreSuspended(TopicPartition tp, String store, long restored) {
        line("restore-suspended store=" + store + " topic=" + tp.topic() + " partition=" + tp.partition() + " restored=" + restored);
    }

    @Override
    public void onChange(KafkaStreams.State newState, KafkaStreams.State oldState) {
        line("state from=" + oldState + " to=" + newState);
    }

    void closed() {
        line("closed");
    }

    void line(String s) {
        long nano = System.nanoTime();
        long ms = System.currentTimeMillis();
        synchronized (out) {
            out.println(s + " epoch_ms=" + ms + " nano_time=" + nano);
            out.flush();
        }
    }
}
