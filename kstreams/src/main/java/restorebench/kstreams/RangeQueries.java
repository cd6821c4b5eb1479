package restorebench.kstreams;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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
 *
 * A range is bounded while it is gathered, not after: entries are counted
 * (restorebench.api.range.max.entries) and their text measured
 * (restorebench.api.range.max.bytes) as each is read, and the first entry
 * over either cap stops the store's iterator and refuses the range (400,
 * `too_wide`). A range asks each other instance only for what its caps
 * leave (`max_entries`, `max_bytes`), which a forwarded range obeys (never
 * more than its own caps) and the asking instance checks again as it
 * splices. The entries are kept as text in {@link Chunks} and written out
 * from there, so a range's heap is about its answer's size.
 */
final class RangeQueries {
    private static final byte[] KEY = "{\"key\":\"".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] VALUE = "\",\"value\":\"".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] PARTITION = "\",\"partition\":".getBytes(StandardCharsets.US_ASCII);
    /** The bytes of an entry object besides its key's and value's hex and its partition's digits. */
    private static final int ENTRY_FIXED = KEY.length + VALUE.length + PARTITION.length + 1;
    private static final Pattern READ = Pattern.compile("\"read\":(\\d+)");
    /** The most of a refused forward's body read (its reason). */
    private static final int ERROR_BODY = 64 << 10;

    private final KafkaStreams streams;
    private final DriverConfig config;
    private final StoreProgress progress;
    private final LocalLookup local;
    private final HostInfo self;
    private final HttpClient client;
    private final Duration timeout;

    RangeQueries(KafkaStreams streams, DriverConfig config, StoreProgress progress, LocalLookup local, HostInfo self,
                 HttpClient client, Duration timeout) {
        this.streams = streams;
        this.config = config;
        this.progress = progress;
        this.local = local;
        this.self = self;
        this.client = client;
        this.timeout = timeout;
    }

    /** The most entries, and bytes of entry text, a range may answer. */
    record Caps(long entries, long bytes) {
        /** The configured caps. */
        static Caps of(ApiSettings s) {
            return new Caps(s.rangeMaxEntries, s.rangeMaxBytes);
        }

        /** These caps lowered to a forward's max_entries and max_bytes (negative: not given). */
        Caps lowered(long maxEntries, long maxBytes) {
            return new Caps(maxEntries < 0 ? entries : Math.min(entries, maxEntries), maxBytes < 0 ? bytes : Math.min(bytes, maxBytes));
        }
    }

    /**
     * What a range gathered so far: its entries as text, each after sep
     * (',' inside the answer's JSON array, the first without it; '\n' after
     * each in a forwarded answer), the copies and partitions they cover, and
     * the cap it went over, if any.
     */
    static final class Gathered {
        final Caps caps;
        final byte sep;
        final Chunks entries = new Chunks();
        final List<String> copies = new ArrayList<>();
        final Set<Integer> covered = new TreeSet<>();
        /** Why an instance asked for partitions did not give them. */
        final List<String> notes = new ArrayList<>();
        /** Entries kept. */
        long count;
        /** Entries read, the one over a cap included, and those a forward read before it went over. */
        long read;
        /** The cap the range went over: "entries" or "bytes"; null while within both. */
        String over;

        Gathered(Caps caps, byte sep) {
            this.caps = caps;
            this.sep = sep;
        }

        /** Adds one entry of partition p; false (and over set) when it is over a cap. */
        boolean add(byte[] key, byte[] value, int p) {
            read++;
            String digits = Integer.toString(p);
            if (!fits(ENTRY_FIXED + 2L * key.length + 2L * value.length + digits.length())) {
                return false;
            }
            before();
            entries.append(KEY);
            entries.appendHex(key);
            entries.append(VALUE);
            entries.appendHex(value);
            entries.append(PARTITION);
            entries.append(digits);
            entries.append((byte) '}');
            after();
            return true;
        }

        /** Adds one entry object a forward answered; false (and over set) when it is over a cap. */
        boolean addLine(String line) {
            read++;
            byte[] b = line.getBytes(StandardCharsets.UTF_8);
            if (!fits(b.length)) {
                return false;
            }
            before();
            entries.append(b);
            after();
            return true;
        }

        private boolean fits(long len) {
            if (count >= caps.entries) {
                over = "entries";
                return false;
            }
            if (entries.size() + len + 1 > caps.bytes) {
                over = "bytes";
                return false;
            }
            return true;
        }

        private void before() {
            if (sep == ',' && count > 0) {
                entries.append(sep);
            }
        }

        private void after() {
            if (sep == '\n') {
                entries.append(sep);
            }
            count++;
        }
    }

    /**
     * A forwarded range: the asked partitions this instance may serve,
     * spliceable, within caps (the forward's, never over this instance's).
     */
    ApiServer.Answer forwarded(byte[] from, byte[] to, boolean stale, Set<Integer> asked, Caps caps) {
        Gathered g = new Gathered(caps, (byte) '\n');
        gatherLocal(from, to, stale, asked, g);
        if (g.over != null) {
            return tooWide(g);
        }
        StringBuilder sb = new StringBuilder("partitions ");
        sb.append(String.join(",", g.covered.stream().map(String::valueOf).toList())).append('\n');
        for (String c : g.copies) {
            sb.append(c).append('\n');
        }
        return new ApiServer.Answer(200, sb.toString(), g.entries);
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
        Gathered g = new Gathered(Caps.of(config.api), (byte) ',');
        gatherLocal(from, to, stale, all, g);
        for (Map.Entry<HostInfo, Set<Integer>> h : holders.entrySet()) {
            Set<Integer> want = new TreeSet<>(h.getValue());
            want.removeAll(g.covered);
            if (g.over != null || h.getKey().equals(self) || want.isEmpty()) {
                continue;
            }
            String broken = gatherFrom(h.getKey(), fromHex, toHex, stale, want, g);
            if (broken != null) {
                return refused(new ArrayList<>(g.covered), broken);
            }
        }
        if (g.over != null) {
            return tooWide(g);
        }
        Set<Integer> missing = new TreeSet<>(all);
        missing.removeAll(g.covered);
        if (!missing.isEmpty()) {
            return refused(new ArrayList<>(g.covered), "no copy of partitions " + missing + " could serve the range"
                    + (g.notes.isEmpty() ? "" : " (" + String.join("; ", g.notes) + ")"));
        }
        StringBuilder sb = new StringBuilder(256);
        sb.append("{\"instance\":");
        Json.string(sb, config.instanceId);
        sb.append(",\"partitions\":").append(Json.toJson(new ArrayList<>(g.covered)));
        sb.append(",\"copies\":[").append(String.join(",", g.copies)).append("],\"entries\":[");
        g.entries.append("]}");
        return new ApiServer.Answer(200, sb.toString(), g.entries);
    }

    /** The refusal of a range over a cap, naming it and how many entries were read. */
    private ApiServer.Answer tooWide(Gathered g) {
        String why = g.over.equals("entries")
                ? "the range holds over " + g.caps.entries + " entries (" + ApiSettings.RANGE_MAX_ENTRIES + "); ask a narrower one"
                : "the range's entries take over " + g.caps.bytes + " bytes (" + ApiSettings.RANGE_MAX_BYTES + "); ask a narrower one";
        return new ApiServer.Answer(400, Json.toJson(Json.obj("error", why, "too_wide", true, "over", g.over,
                "max_entries", g.caps.entries, "max_bytes", g.caps.bytes, "read", g.read, "instance", config.instanceId)));
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

    /** Adds this instance's servable partitions among asked to g, until g is over a cap. */
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
            long mark = g.entries.size(), count = g.count;
            try {
                local.range(p, from, to, stale, (k, v) -> g.add(k, v, p));
            } catch (InvalidStateStoreException e) {
                // not servable now (migrating, restoring without stale reads): another copy may be
                g.entries.truncate(mark);
                g.count = count;
                continue;
            }
            if (g.over != null) {
                return;
            }
            g.copies.add(Json.toJson(Json.obj("partition", p, "instance", config.instanceId, "copy", active ? "active" : "standby",
                    "state", pos.state.isEmpty() ? "unknown" : pos.state, "offset", pos.offset)));
            g.covered.add(p);
        }
    }

    /**
     * Asks instance h for partitions want of the range, within what g's
     * caps leave, and splices its answer into g as it reads it (stopping
     * at the first entry over a cap). A partition it does not give stays
     * missing, with a note why; a non-null return is an answer that broke
     * off mid-way, which leaves g unusable.
     */
    private String gatherFrom(HostInfo h, String fromHex, String toHex, boolean stale, Set<Integer> want, Gathered g) {
        String parts = String.join(",", want.stream().map(String::valueOf).toList());
        URI uri = URI.create("http://" + h.host() + ":" + h.port() + "/range/" + fromHex + "/" + toHex
                + "?forwarded=" + config.instanceId + "&partitions=" + parts
                + "&max_entries=" + (g.caps.entries - g.count) + "&max_bytes=" + Math.max(0, g.caps.bytes - g.entries.size())
                + (stale ? "&stale=true" : ""));
        HttpResponse<InputStream> r;
        try {
            r = client.send(HttpRequest.newBuilder(uri).timeout(timeout).GET().build(), HttpResponse.BodyHandlers.ofInputStream());
        } catch (IOException e) {
            g.notes.add("owner " + h + " unreachable: " + Events.describe(e));
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            g.notes.add("interrupted");
            return null;
        }
        try (InputStream in = r.body()) {
            if (r.statusCode() != 200) {
                String body = new String(in.readNBytes(ERROR_BODY), StandardCharsets.UTF_8);
                if (r.statusCode() == 400 && body.contains("\"too_wide\":true")) {
                    Matcher m = READ.matcher(body);
                    g.read += m.find() ? Long.parseLong(m.group(1)) : 1;
                    g.over = body.contains("\"over\":\"bytes\"") ? "bytes" : "entries";
                } else {
                    g.notes.add(h + " answered HTTP " + r.statusCode() + ": " + body.strip());
                }
                return null;
            }
            BufferedReader rd = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            String first = rd.readLine();
            if (first == null || !first.startsWith("partitions ")) {
                g.notes.add(h + " answered no partitions line");
                return null;
            }
            List<Integer> ps = new ArrayList<>();
            for (String p : first.substring("partitions ".length()).split(",")) {
                if (!p.isBlank()) {
                    ps.add(Integer.parseInt(p.strip()));
                }
            }
            List<String> copies = new ArrayList<>();
            for (int i = 0; i < ps.size(); i++) {
                String c = rd.readLine();
                if (c == null) {
                    return h + "'s answer broke off in its copies";
                }
                copies.add(c);
            }
            for (String line = rd.readLine(); line != null; line = rd.readLine()) {
                if (!line.isBlank() && !g.addLine(line)) {
                    return null; // over a cap: the range is refused as too wide
                }
            }
            for (int p : ps) {
                if (!want.contains(p)) {
                    return h + " answered partition " + p + ", which it was not asked for";
                }
            }
            g.covered.addAll(ps);
            g.copies.addAll(copies);
            return null;
        } catch (IOException | NumberFormatException e) {
            return h + "'s answer broke off: " + Events.describe(e);
        }
    }

    private ApiServer.Answer refused(List<Integer> covered, String reason) {
        return new ApiServer.Answer(503, Json.toJson(Json.obj("refused", true, "reason", reason,
                "instance", config.instanceId, "partitions", covered)));
    }
}
