package restorebench.kstreams;

import java.util.concurrent.ConcurrentHashMap;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.processor.StandbyUpdateListener;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.apache.kafka.streams.processor.TaskId;

/**
 * Where each local store partition's restore or standby update stands, for
 * the API layer's answers ({@link ApiServer}): restoring, restored, standby
 * or suspended, and the changelog offset its last batch reached. It wraps
 * the driver's event listeners (null in bare mode) and passes every
 * callback on to them, since Kafka Streams takes one restore listener and
 * one standby listener per client.
 */
final class StoreProgress implements StateRestoreListener, StandbyUpdateListener {
    /** A store partition's state, as answers name it. */
    static final String RESTORING = "restoring";
    static final String RESTORED = "restored";
    static final String STANDBY = "standby";
    static final String SUSPENDED = "suspended";

    /** One store partition's state and the changelog offset it reached (-1: not known). */
    static final class Position {
        final String state;
        final long offset;

        Position(String state, long offset) {
            this.state = state;
            this.offset = offset;
        }
    }

    private static final Position UNKNOWN = new Position("", -1);

    private final StoreListeners delegate;
    private final ConcurrentHashMap<Integer, Position> positions = new ConcurrentHashMap<>();

    StoreProgress(StoreListeners delegate) {
        this.delegate = delegate;
    }

    /** The partition's position; state "" and offset -1 when no callback named it yet. */
    Position of(int partition) {
        return positions.getOrDefault(partition, UNKNOWN);
    }

    private void set(TopicPartition tp, String state, long offset) {
        positions.compute(tp.partition(), (p, old) -> new Position(state, offset >= 0 ? offset : old == null ? -1 : old.offset));
    }

    @Override
    public void onRestoreStart(TopicPartition tp, String store, long startOffset, long endOffset) {
        set(tp, RESTORING, startOffset);
        if (delegate != null) {
            delegate.onRestoreStart(tp, store, startOffset, endOffset);
        }
    }

    @Override
    public void onBatchRestored(TopicPartition tp, String store, long batchEndOffset, long records) {
        set(tp, RESTORING, batchEndOffset + 1);
        if (delegate != null) {
            delegate.onBatchRestored(tp, store, batchEndOffset, records);
        }
    }

    @Override
    public void onRestoreEnd(TopicPartition tp, String store, long restored) {
        set(tp, RESTORED, -1);
        if (delegate != null) {
            delegate.onRestoreEnd(tp, store, restored);
        }
    }

    @Override
    public void onRestoreSuspended(TopicPartition tp, String store, long restored) {
        set(tp, SUSPENDED, -1);
        if (delegate != null) {
            delegate.onRestoreSuspended(tp, store, restored);
        }
    }

    @Override
    public void onUpdateStart(TopicPartition tp, String store, long startOffset) {
        set(tp, STANDBY, startOffset);
        if (delegate != null) {
            delegate.onUpdateStart(tp, store, startOffset);
        }
    }

    @Override
    public void onBatchLoaded(TopicPartition tp, String store, TaskId task, long batchEndOffset, long records, long endOffset) {
        set(tp, STANDBY, batchEndOffset + 1);
        if (delegate != null) {
            delegate.onBatchLoaded(tp, store, task, batchEndOffset, records, endOffset);
        }
    }

    @Override
    public void onUpdateSuspended(TopicPartition tp, String store, long storeOffset, long endOffset, SuspendReason reason) {
        set(tp, SUSPENDED, storeOffset);
        if (delegate != null) {
            delegate.onUpdateSuspended(tp, store, storeOffset, endOffset, reason);
        }
    }
}
