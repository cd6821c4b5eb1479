package restorebench.kstreams;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiFunction;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsMetadata;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.HostInfo;

/**
 * The API layer's range queries (PROTOCOL.md, "The API layer"):
 * `GET /range/FROMHEX/TOHEX[?stale=true]` answers every entry of the store
 * with a key from FROM to TO, both included, over all of its partitions,
 * as an application's API layer gathers a range: its own partitions
 * through ReadOnlyKeyValueStore.range (active ones; with stale reads
 * standby and restoring ones too), the others from the instances
 * KafkaStreams.streamsMetadataForStore names as holding them (active
 * first; with stale reads, then standbys). A range some partition of which
 * no copy could serve is refused (503) naming the partitions missing, never
 * answered in part. A forwarded range (`forwarded=ID&partitions=P,...`)
 * answers only the asked partitions this instance may serve, in a plain
 * form the asking instance splices: a first line `partitions P,...`, then
 * a line per partition's copy object, then an entry object a line. Every
 * answer names, per partition, the copy that gave it (`copies`: instance,
 * active or standby, its state and offset), so a missing key is judged by
 * whether its copy may lag.
 */
final class RangeQueries {
    /** The most entries one range answers: beyond it the range is refused as too wide. */
    static final int MAX_ENTRIES = 10_000;

    private final KafkaStreams streams;
    private final DriverConfig config;
    private final StoreProgress progress;
    private final LocalLookup local;
    private final HostInfo self;
    /** Sends a path-and-query to an instance: its status and body (503 when unreachable). */
    private final BiFunction<HostInfo, String, ApiServer.Answer> send;

    RangeQueries(KafkaStreams streams, DriverConfig config, StoreProgress progress, LocalLookup local, HostInfo self,
                 BiFunction<HostInfo, String, ApiServer.Answer> send) {
        this.streams = streams;
        this.config = config;
        this.progress = progress;
        this.local = local;
        this.self = self;
        this.send = send;
    }

    /** What was gathered so far: entry objects (JSON text) and the partitions they cover. */
    private static final class Gathered {
        final List<String> entries = new ArrayList<>();
        final List<String> copies = new ArrayList<>();
        final Set<Integer> covered = new TreeSet<>();
    }

    /** A forwarded range: the asked partitions this instance may serve, spliceable. */
    ApiServer.Answer forwarded(String fromHex, String toHex, byte[] from, byte[] to, boolean stale, Set<Integer> asked) {
        Gathered g = new Gathered();
        gatherLocal(from, to, stale, asked, g);
        StringBuilder sb = new StringBuilder("partitions ");
        sb.append(String.join(",", g.covered.stream().map(String::valueOf).toList())).append('\n');
        for (String c : g.copies) {
            sb.append(c).append('\n');
        }
        for (String e : g.entries) {
            sb.append(e).append('\n');
        }
        return new ApiServer.Answer(200, sb.toString());
    }

    /** A range asked of this instance: every partition, gathered or refused. */
    ApiServer.Answer range(String fromHex, String toHex, byte[] from, byte[] to, boolean stale) {
        Map<HostInfo, Set<Integer>> holders;
        try {
            holders = holders(stale);
        } catch (IllegalStateException | org.apache.kafka.streams.errors.StreamsException e) {
            return refused(List.of(), Events.describe(e));
        }
        Set<Integer> all = new TreeSet<>();
        holders.values().forEach(all::addAll);
        if (all.isEmpty()) {
            return refused(List.of(), "no metadata for the store (the group is rebalancing)");
        }
        Gathered g = new Gathered();
        gatherLocal(from, to, stale, all, g);
        for (Map.Entry<HostInfo, Set<Integer>> h : holders.entrySet()) {
            Set<Integer> want = new TreeSet<>(h.getValue());
            want.removeAll(g.covered);
            if (h.getKey().equals(self) || want.isEmpty()) {
                continue;
            }
            gatherFrom(h.getKey(), fromHex, toHex, stale, want, g);
        }
        Set<Integer> missing = new TreeSet<>(all);
        missing.removeAll(g.covered);
        if (!missing.isEmpty()) {
            return refused(new ArrayList<>(g.covered), "no copy of partitions " + missing + " could serve the range");
        }
        if (g.entries.size() > MAX_ENTRIES) {
            return new ApiServer.Answer(400, Json.toJson(Json.obj("error", "the range holds over " + MAX_ENTRIES + " entries; ask a narrower one")));
        }
        StringBuilder sb = new StringBuilder(64 + 128 * g.entries.size());
        sb.append("{\"instance\":");
        Json.string(sb, config.instanceId);
        sb.append(",\"partitions\":").append(Json.toJson(new ArrayList<>(g.covered)));
        sb.append(",\"copies\":[").append(String.join(",", g.copies)).append("],\"entries\":[");
        sb.append(String.join(",", g.entries)).append("]}");
        return new ApiServer.Answer(200, sb.toString());
    }

    /**
     * Each instance's partitions of the store it may be asked for, active
     * holders first (insertion order), then, with stale reads, standby
     * holders: an instance holding a partition both ways is asked once.
     */
    private Map<HostInfo, Set<Integer>> holders(boolean stale) {
        Collection<StreamsMetadata> md = streams.streamsMetadataForStore(config.store);
        Map<HostInfo, Set<Integer>> out = new LinkedHashMap<>();
        for (StreamsMetadata m : md) {
            out.computeIfAbsent(m.hostInfo(), k -> new TreeSet<>()).addAll(partitionsOf(m.topicPartitions()));
        }
        if (stale) {
            for (StreamsMetadata m : md) {
                out.computeIfAbsent(m.hostInfo(), k -> new TreeSet<>()).addAll(partitionsOf(m.standbyTopicPartitions()));
            }
        }
        return out;
    }

    private static Set<Integer> partitionsOf(Set<TopicPartition> tps) {
        Set<Integer> ps = new TreeSet<>();
        for (TopicPartition tp : tps) {
            ps.add(tp.partition());
        }
        return ps;
    }

    /** Adds this instance's servable partitions among asked to g. */
    private void gatherLocal(byte[] from, byte[] to, boolean stale, Set<Integer> asked, Gathered g) {
        Set<Integer> actives = new TreeSet<>();
        Set<Integer> mine = new TreeSet<>();
        for (org.apache.kafka.streams.ThreadMetadata t : streams.metadataForLocalThreads()) {
            t.activeTasks().forEach(m -> actives.add(m.taskId().partition()));
            if (stale) {
                t.standbyTasks().forEach(m -> mine.add(m.taskId().partition()));
            }
        }
        mine.addAll(actives);
        mine.retainAll(asked);
        for (int p : mine) {
            boolean active = actives.contains(p);
            StoreProgress.Position pos = progress.of(p);
            List<String> part = new ArrayList<>();
            try {
                local.range(p, from, to, stale, (k, v) -> part.add(Json.toJson(Json.obj(
                        "key", Digest.toHex(k), "value", Digest.toHex(v), "partition", p))));
            } catch (InvalidStateStoreException e) {
                continue; // not servable now (migrating, restoring without stale reads): another copy may be
            }
            g.entries.addAll(part);
            g.copies.add(Json.toJson(Json.obj("partition", p, "instance", config.instanceId, "copy", active ? "active" : "standby",
                    "state", pos.state.isEmpty() ? "unknown" : pos.state, "offset", pos.offset)));
            g.covered.add(p);
        }
    }

    /** Asks instance h for partitions want of the range and splices its answer into g. */
    private void gatherFrom(HostInfo h, String fromHex, String toHex, boolean stale, Set<Integer> want, Gathered g) {
        String parts = String.join(",", want.stream().map(String::valueOf).toList());
        ApiServer.Answer a = send.apply(h, "/range/" + fromHex + "/" + toHex + "?forwarded=" + config.instanceId
                + "&partitions=" + parts + (stale ? "&stale=true" : ""));
        if (a.status != 200 || !a.body.startsWith("partitions ")) {
            return;
        }
        String[] lines = a.body.split("\n");
        int n = 0;
        for (String p : lines[0].substring("partitions ".length()).split(",")) {
            if (!p.isBlank()) {
                n++;
                g.covered.add(Integer.parseInt(p.strip())); // only asked ones: forwarded() keeps to them
            }
        }
        for (int i = 1; i < lines.length; i++) {
            if (!lines[i].isBlank()) {
                (i <= n ? g.copies : g.entries).add(lines[i]);
            }
        }
    }

    private ApiServer.Answer refused(List<Integer> covered, String reason) {
        return new ApiServer.Answer(503, Json.toJson(Json.obj("refused", true, "reason", reason,
                "instance", config.instanceId, "partitions", covered)));
    }
}
