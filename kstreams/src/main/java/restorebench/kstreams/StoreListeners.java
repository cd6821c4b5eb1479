package restorebench.kstreams;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.processor.StandbyUpdateListener;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.apache.kafka.streams.processor.TaskId;

/**
 * Turns Kafka Streams' restore and standby callbacks into restore_* and
 * standby_* events. Kafka Streams calls these from the thread that does the
 * work (the state updater thread, or a stream thread), at the moment it
 * happens, so mono_ns is the time of the callback. Not installed in bare mode.
 */
final class StoreListeners implements StateRestoreListener, StandbyUpdateListener {
    private final Events events;

    StoreListeners(Events events) {
        this.events = events;
    }

    @Override
    public void onRestoreStart(TopicPartition tp, String store, long startOffset, long endOffset) {
        events.emit("restore_start", Json.obj("store", store, "topic", tp.topic(), "partition", tp.partition(),
                "start_offset", startOffset, "end_offset", endOffset));
    }

    @Override
    public void onBatchRestored(TopicPartition tp, String store, long batchEndOffset, long records) {
        events.emit("restore_batch", Json.obj("store", store, "topic", tp.topic(), "partition", tp.partition(),
                "batch_end_offset", batchEndOffset, "records", records));
    }

    @Override
    public void onRestoreEnd(TopicPartition tp, String store, long restored) {
        events.emit("restore_end", Json.obj("store", store, "topic", tp.topic(), "partition", tp.partition(),
                "restored", restored));
    }

    @Override
    public void onRestoreSuspended(TopicPartition tp, String store, long restored) {
        events.emit("restore_suspended", Json.obj("store", store, "topic", tp.topic(), "partition", tp.partition(),
                "restored", restored));
    }

    @Override
    public void onUpdateStart(TopicPartition tp, String store, long startOffset) {
        events.emit("standby_start", Json.obj("store", store, "topic", tp.topic(), "partition", tp.partition(),
                "start_offset", startOffset));
    }

    @Override
    public void onBatchLoaded(TopicPartition tp, String store, TaskId task, long batchEndOffset, long records, long endOffset) {
        events.emit("standby_batch", Json.obj("store", store, "topic", tp.topic(), "partition", tp.partition(),
                "task", task.toString(), "batch_end_offset", batchEndOffset, "records", records, "end_offset", endOffset));
    }

    @Override
    public void onUpdateSuspended(TopicPartition tp, String store, long storeOffset, long endOffset, SuspendReason reason) {
        events.emit("standby_suspended", Json.obj("store", store, "topic", tp.topic(), "partition", tp.partition(),
                "store_offset", storeOffset, "end_offset", endOffset, "reason", reason.name()));
    }
}
