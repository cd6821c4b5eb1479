package restorebench.kstreams;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Map;

/**
 * The `process` event: the process's CPU time, resident set size and used
 * heap, and how the CPU time splits between Kafka Streams' threads, the JIT
 * compilers, the garbage collector and everything else. The split reads
 * utime+stime of every live thread from /proc/self/task/TID/stat and sorts
 * threads by their kernel name (comm, the first 15 characters of the Java
 * thread name); `other` is the rest of cpu_ns, so the four add up to it (and
 * threads that have exited count there). Linux only; elsewhere the split and
 * rss are 0.
 */
final class ProcessStats {
    /** USER_HZ: Linux reports thread times in clock ticks of 1/100 s on every architecture it runs Java on. */
    static final long CLK_TCK = 100;
    private static final long NS_PER_TICK = 1_000_000_000L / CLK_TCK;

    /** Where a thread's CPU time goes. */
    enum Kind { STREAM, JIT, GC, OTHER }

    private final com.sun.management.OperatingSystemMXBean os;
    private volatile String streamPrefix;

    ProcessStats() {
        java.lang.management.OperatingSystemMXBean b = ManagementFactory.getOperatingSystemMXBean();
        os = b instanceof com.sun.management.OperatingSystemMXBean ? (com.sun.management.OperatingSystemMXBean) b : null;
    }

    /**
     * Sets the Kafka Streams client id (the stream thread name up to
     * "-StreamThread-N"): every thread Kafka Streams names after it (stream
     * threads, the state updater, the cleaner) counts as stream.
     */
    void setStreamThreadPrefix(String clientId) {
        if (clientId != null && !clientId.isEmpty()) {
            String p = clientId + "-";
            streamPrefix = p.length() > 15 ? p.substring(0, 15) : p;
        }
    }

    boolean hasStreamThreadPrefix() {
        return streamPrefix != null;
    }

    /** Classifies a thread by its kernel name. */
    Kind classify(String comm) {
        String p = streamPrefix;
        if (comm.contains("StreamThread") || comm.contains("StateUpdater") || (p != null && comm.startsWith(p))) {
            return Kind.STREAM;
        }
        if (comm.contains("CompilerThre") || comm.contains("Compiler")) {
            return Kind.JIT;
        }
        if (comm.startsWith("GC Thread") || comm.startsWith("G1 ") || comm.equals("VM Thread")
                || comm.startsWith("ZWorker") || comm.startsWith("ZDriver") || comm.startsWith("ZDirector")
                || comm.startsWith("Shenandoah") || comm.startsWith("GC ")) {
            return Kind.GC;
        }
        return Kind.OTHER;
    }

    /** The `process` event's fields, measured now. */
    Map<String, Object> sample() {
        long cpu = os != null ? os.getProcessCpuTime() : -1;
        long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        long rss = rssBytes();
        long[] split = new long[Kind.values().length];
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Paths.get("/proc/self/task"))) {
            for (Path t : tasks) {
                String stat;
                try {
                    stat = new String(Files.readAllBytes(t.resolve("stat")), StandardCharsets.UTF_8);
                } catch (IOException e) {
                    continue; // the thread exited
                }
                int open = stat.indexOf('(');
                int close = stat.lastIndexOf(')');
                if (open < 0 || close < open) {
                    continue;
                }
                String comm = stat.substring(open + 1, close);
                // Fields after "(comm) ": state is field 3, utime 14, stime 15.
                String[] f = stat.substring(close + 2).split(" ");
                if (f.length < 13) {
                    continue;
                }
                long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
                split[classify(comm).ordinal()] += ticks * NS_PER_TICK;
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or /proc unreadable: no split
        }
        long named = split[Kind.STREAM.ordinal()] + split[Kind.JIT.ordinal()] + split[Kind.GC.ordinal()];
        long other = cpu >= 0 ? Math.max(0, cpu - named) : split[Kind.OTHER.ordinal()];
        return Json.obj(
                "cpu_ns", cpu,
                "rss_bytes", rss,
                "heap_used_bytes", heap,
                "cpu_split_ns", Json.obj(
                        "stream", split[Kind.STREAM.ordinal()],
                        "jit", split[Kind.JIT.ordinal()],
                        "gc", split[Kind.GC.ordinal()],
                        "other", other));
    }

    /** VmRSS from /proc/self/status, in bytes (0 when unknown). */
    static long rssBytes() {
        try {
            for (String line : Files.readAllLines(Paths.get("/proc/self/status"), StandardCharsets.UTF_8)) {
                if (line.startsWith("VmRSS:")) {
                    String[] f = line.substring(6).trim().split("\\s+");
                    long v = Long.parseLong(f[0]);
                    return f.length > 1 && f[1].equalsIgnoreCase("kB") ? v * 1024 : v;
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux
        }
        return 0;
    }
}
