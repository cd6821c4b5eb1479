package restorebench.kstreams;

import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The event stream on stdout: one JSON object per line, flushed per line.
 * Events come from several threads (stream threads, the state updater, the
 * pollers, the command loop), so writing is serialized here; a line is built
 * outside the lock and written whole. Every event carries ev, instance,
 * mono_ns (System.nanoTime(), CLOCK_MONOTONIC on Linux, so comparable between
 * processes on one host) and wall_ms. After {@link #close()} nothing more is
 * written, so `stopped` is always the last line.
 */
final class Events {
    private final OutputStream out;
    private final Object lock = new Object();
    private volatile String instance;
    private boolean closed;

    Events(OutputStream out, String instance) {
        this.out = out;
        this.instance = instance == null ? "" : instance;
    }

    /** Sets the instance id once the config has been read. */
    void setInstance(String instance) {
        this.instance = instance == null ? "" : instance;
    }

    /** Writes one event, timestamped now. */
    void emit(String ev, Map<String, ?> fields) {
        emitAt(ev, System.nanoTime(), fields);
    }

    /** Writes one event with the given monotonic time (wall_ms is now). */
    void emitAt(String ev, long monoNs, Map<String, ?> fields) {
        long wall = System.currentTimeMillis();
        StringBuilder sb = new StringBuilder(128);
        sb.append("{\"ev\":");
        Json.string(sb, ev);
        sb.append(",\"instance\":");
        Json.string(sb, instance);
        sb.append(",\"mono_ns\":").append(monoNs);
        sb.append(",\"wall_ms\":").append(wall);
        if (fields != null) {
            for (Map.Entry<String, ?> e : fields.entrySet()) {
                sb.append(',');
                Json.string(sb, e.getKey());
                sb.append(':');
                Json.write(sb, e.getValue());
            }
        }
        sb.append("}\n");
        byte[] line = sb.toString().getBytes(StandardCharsets.UTF_8);
        synchronized (lock) {
            if (closed) {
                return;
            }
            try {
                out.write(line);
                out.flush();
            } catch (java.io.IOException e) {
                // The reader went away; stdin's end will stop the instance.
            }
        }
    }

    /** Emits an `error` event for a failure at `where`. */
    void error(String where, Throwable t) {
        emit("error", Json.obj("message", describe(t), "where", where, "stack", stackTrace(t)));
    }

    /** Emits an `error` event without an exception. */
    void error(String where, String message) {
        emit("error", Json.obj("message", message, "where", where, "stack", ""));
    }

    /** Writes nothing more after this (the last event has been written). */
    void close() {
        synchronized (lock) {
            closed = true;
            try {
                out.flush();
            } catch (java.io.IOException e) {
                // nothing to do
            }
        }
    }

    /** The exception and its root cause in one line. */
    static String describe(Throwable t) {
        String s = t.toString();
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        if (root != t) {
            s += " (caused by " + root + ")";
        }
        return s;
    }

    static String stackTrace(Throwable t) {
        StringWriter w = new StringWriter();
        t.printStackTrace(new PrintWriter(w));
        return w.toString();
    }
}
