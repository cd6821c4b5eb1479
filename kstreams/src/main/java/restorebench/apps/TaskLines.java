package restorebench.apps;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.TaskMetadata;
import org.apache.kafka.streams.ThreadMetadata;

/**
 * Prints which tasks this instance holds, as the instance itself reports
 * them (KafkaStreams#metadataForLocalThreads), whenever that changes:
 * checked every 250 ms on a daemon thread, one line
 *
 * <pre>
 * tasks state=S consumers=C1,C2 active=T1,T2 standby=T3 epoch_ms=M nano_time=N
 * </pre>
 *
 * S is the client's state, C its stream threads' consumer client ids, T
 * task ids as Kafka Streams writes them (1_2), sorted; an empty list is "-".
 * Used by restorebench's integration tests to check what `restorebench
 * audit` reads from the group against what the instances say.
 */
final class TaskLines extends Thread {
    private final KafkaStreams streams;
    private final RestoreLines out;

    TaskLines(KafkaStreams streams, RestoreLines out) {
        super("task-lines");
        setDaemon(true);
        this.streams = streams;
        this.out = out;
    }

    @Override
    public void run() {
        String last = "";
        while (true) {
            try {
                Thread.sleep(250);
                KafkaStreams.State state = streams.state();
                if (state == KafkaStreams.State.CREATED) {
                    continue;
                }
                if (!state.isRunningOrRebalancing()) {
                    return;
                }
                TreeSet<String> active = new TreeSet<>();
                TreeSet<String> standby = new TreeSet<>();
                List<String> consumers = new ArrayList<>();
                for (ThreadMetadata t : streams.metadataForLocalThreads()) {
                    consumers.add(t.consumerClientId());
                    for (TaskMetadata m : t.activeTasks()) {
                        active.add(m.taskId().toString());
                    }
                    for (TaskMetadata m : t.standbyTasks()) {
                        standby.add(m.taskId().toString());
                    }
                }
                consumers.sort(null);
                String s = "tasks state=" + state + " consumers=" + join(consumers)
                        + " active=" + join(active) + " standby=" + join(standby);
                if (!s.equals(last)) {
                    out.line(s);
                    last = s;
                }
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                // A client closing under the check: the next one tells.
            }
        }
    }

    private static String join(Iterable<String> xs) {
        String s = String.join(",", xs);
        return s.isEmpty() ? "-" : s;
    }
}
