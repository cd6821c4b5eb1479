package restorebench.kstreams;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.function.Supplier;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.errors.StreamsException;
import org.apache.kafka.streams.state.HostInfo;

/**
 * The instance's API layer, as a real application puts one in front of
 * its stores (PROTOCOL.md, "The API layer"): `GET /kv/KEYHEX[?stale=true]`
 * answers one key's lookup as a JSON object. The instance asks
 * KafkaStreams.queryMetadataForKey which instance owns the key's
 * partition; it answers from its own store when it is the active host (or,
 * with stale=true, a standby host), and otherwise forwards the lookup to
 * the active host (with stale=true, then to each standby host if that one
 * refuses or cannot be reached), saying so in `forwarded_by`. A store
 * that cannot serve (restoring without stale reads, no metadata during a
 * rebalance, an owner that cannot be reached) is refused with HTTP 503;
 * with stale=true and restorebench.api.retry.ms set, only after retrying
 * that long (a migrating task, a rebalance: Kafka Streams' documented
 * advice for InvalidStateStoreException), and every answer that waited
 * says how many retries and milliseconds it took (`retries`, `waited_ms`).
 * `GET /range/FROMHEX/TOHEX[?stale=true]` answers a key range over every
 * partition ({@link RangeQueries}), retried likewise, bounded in entries
 * and bytes while it is gathered; at most restorebench.api.range.concurrency
 * ranges are gathered at once, and as many forwarded ranges answered at
 * once (apart, so that two instances forwarding to each other never wait
 * on each other's permits): one beyond is refused at once with HTTP 429.
 * Built on the JDK's own HTTP server and client: no dependency.
 */
final class ApiServer {
    /** The header-free marker of a forwarded lookup, so it is never forwarded twice. */
    private static final String FORWARDED = "forwarded";
    private static final Duration FORWARD_TIMEOUT = Duration.ofSeconds(2);
    private static final String NODELAY = "sun.net.httpserver.nodelay";

    private final HttpServer server;
    private final HostInfo self;
    private final DriverConfig config;
    private final ExecutorService pool;
    private final HttpClient client;
    private volatile KafkaStreams streams;
    private volatile StoreProgress progress;
    private volatile LocalLookup local;
    private volatile RangeQueries ranges;
    /** Permits for ranges asked of this instance, and for forwarded ones. */
    private final Semaphore rangePermits;
    private final Semaphore forwardedRangePermits;

    private ApiServer(HttpServer server, HostInfo self, DriverConfig config) {
        this.server = server;
        this.self = self;
        this.config = config;
        // A thread per lookup in flight, not a fixed pool: a lookup waiting
        // on its forward holds its thread, and two instances forwarding to
        // each other with every thread of both waiting would starve the
        // forwarded lookups each needs answered (the client bounds how
        // many are in flight).
        this.pool = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "restorebench-api");
            t.setDaemon(true);
            return t;
        });
        this.client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(FORWARD_TIMEOUT).build();
        this.rangePermits = new Semaphore(config.api.rangeConcurrency);
        this.forwardedRangePermits = new Semaphore(config.api.rangeConcurrency);
    }

    /**
     * Binds the server (before Kafka Streams is built, so that the port
     * chosen for restorebench.api.port=0 can go into application.server)
     * and emits the `api` event naming the address.
     */
    static ApiServer bind(DriverConfig config, Events events) throws IOException {
        ApiSettings s = config.api;
        // The JDK server writes a reply's headers and body apart; with
        // Nagle's algorithm on, the body then waits for the client's
        // delayed ACK (about 40 ms on Linux). Read once, when the first
        // server is made, so set before it; a -D flag still wins.
        if (System.getProperty(NODELAY) == null) {
            System.setProperty(NODELAY, "true");
        }
        HttpServer server = HttpServer.create(new InetSocketAddress(s.host, s.port), 256);
        HostInfo self = new HostInfo(s.host, server.getAddress().getPort());
        config.streams.setProperty(StreamsConfig.APPLICATION_SERVER_CONFIG, self.host() + ":" + self.port());
        events.emit("api", Json.obj("host", self.host(), "port", self.port()));
        return new ApiServer(server, self, config);
    }

    /** Starts serving the started client's stores; progress tracks their restores. */
    void start(KafkaStreams streams, StoreProgress progress) {
        this.streams = streams;
        this.progress = progress;
        this.local = new LocalLookup(streams, config, progress);
        this.ranges = new RangeQueries(streams, config, progress, local, self, client, FORWARD_TIMEOUT);
        server.setExecutor(pool);
        server.createContext("/kv/", this::handle);
        server.createContext("/range/", this::handleRange);
        server.start();
    }

    /** Stops serving at once (before the client closes). */
    void stop() {
        server.stop(0);
        pool.shutdownNow();
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            String hex = ex.getRequestURI().getPath().substring("/kv/".length());
            byte[] key = decodeKey(hex);
            String query = ex.getRequestURI().getRawQuery();
            boolean stale = hasParam(query, "stale=true");
            boolean forwarded = hasParam(query, FORWARDED + "=");
            if (key == null || !"GET".equals(ex.getRequestMethod())) {
                reply(ex, 400, Json.toJson(Json.obj("error", "GET /kv/KEYHEX[?stale=true], the key in hex")));
                return;
            }
            respond(ex, null, stale && !forwarded, () -> lookup(hex, key, stale, forwarded));
        } catch (RuntimeException e) {
            reply(ex, 500, Json.toJson(Json.obj("error", Events.describe(e))));
        }
    }

    /**
     * `GET /range/FROMHEX/TOHEX[?stale=true]` ({@link RangeQueries}), for
     * key-value and timestamped key-value stores, each holding a permit
     * (of the forwarded ones for a forwarded range) until its answer is
     * written.
     */
    private void handleRange(HttpExchange ex) throws IOException {
        try (ex) {
            String[] hex = ex.getRequestURI().getPath().substring("/range/".length()).split("/", -1);
            byte[] from = hex.length == 2 ? decodeKey(hex[0]) : null;
            byte[] to = hex.length == 2 ? decodeKey(hex[1]) : null;
            String query = ex.getRequestURI().getRawQuery();
            boolean stale = hasParam(query, "stale=true");
            if (from == null || to == null || !"GET".equals(ex.getRequestMethod())) {
                reply(ex, 400, Json.toJson(Json.obj("error", "GET /range/FROMHEX/TOHEX[?stale=true], both keys in hex")));
                return;
            }
            if (hasParam(query, FORWARDED + "=")) {
                RangeQueries.Caps caps = RangeQueries.Caps.of(config.api).lowered(longParam(query, "max_entries"), longParam(query, "max_bytes"));
                java.util.Set<Integer> asked = partitionsParam(query);
                respond(ex, forwardedRangePermits, false, () -> ranges.forwarded(from, to, stale, asked, caps));
            } else {
                respond(ex, rangePermits, stale, () -> ranges.range(hex[0], hex[1], from, to, stale));
            }
        } catch (RuntimeException e) {
            reply(ex, 500, Json.toJson(Json.obj("error", Events.describe(e))));
        }
    }

    /** The partitions=P,... parameter of a forwarded range (empty when absent or bad). */
    private static java.util.Set<Integer> partitionsParam(String query) {
        java.util.Set<Integer> ps = new java.util.TreeSet<>();
        for (String p : query.split("&")) {
            if (p.startsWith("partitions=")) {
                for (String n : p.substring("partitions=".length()).split(",")) {
                    try {
                        ps.add(Integer.parseInt(n));
                    } catch (NumberFormatException e) {
                        // a bad number asks for nothing
                    }
                }
            }
        }
        return ps;
    }

    /** The query parameter NAME=N's N, -1 when absent or not a number of 0 or more. */
    private static long longParam(String query, String name) {
        for (String p : query.split("&")) {
            if (p.startsWith(name + "=")) {
                try {
                    return Math.max(-1, Long.parseLong(p.substring(name.length() + 1)));
                } catch (NumberFormatException e) {
                    return -1;
                }
            }
        }
        return -1;
    }

    /** A status and a body: body (JSON, or a forwarded range's head), then tail when there is one. */
    static final class Answer {
        final int status;
        final String body;
        /** The rest of the body (a range's entries), written out as it is; null for none. */
        final Chunks tail;
        /** Set when the instance asked could not be reached: body is the reason, not JSON. */
        final boolean unreachable;

        Answer(int status, String body) {
            this(status, body, null, false);
        }

        Answer(int status, String body, Chunks tail) {
            this(status, body, tail, false);
        }

        private Answer(int status, String body, Chunks tail, boolean unreachable) {
            this.status = status;
            this.body = body;
            this.tail = tail;
            this.unreachable = unreachable;
        }

        static Answer unreachable(String reason) {
            return new Answer(503, reason, null, true);
        }
    }

    /**
     * Asks and writes the answer. Each attempt holds one of permits (when
     * not null) from before it asks until its answer is written, and is
     * refused with 429 when none is free. With retry (a stale lookup or
     * range), an attempt refused (503, or 429) is retried while no copy
     * serves it, up to restorebench.api.retry.ms: 10 ms apart at first,
     * doubling to 100 ms, holding no permit while it waits. Only the
     * instance asked retries (a forwarded lookup answers at once), so the
     * waits never nest.
     */
    private void respond(HttpExchange ex, Semaphore permits, boolean retry, Supplier<Answer> ask) throws IOException {
        long start = System.nanoTime();
        long deadline = retry ? start + config.api.retryMs * 1_000_000L : start;
        long backoffMs = 10;
        for (int retries = 0; ; retries++) {
            boolean held = permits != null && permits.tryAcquire();
            try {
                Answer a = permits == null || held ? ask.get() : tooMany(permits == forwardedRangePermits);
                long now = System.nanoTime();
                boolean again = (a.status == 503 || a.status == 429) && now + backoffMs * 1_000_000L <= deadline;
                if (!again || Thread.currentThread().isInterrupted()) {
                    reply(ex, retries == 0 ? a
                            : new Answer(a.status, prepend(prepend(a.body, "waited_ms", (now - start) / 1_000_000L), "retries", retries), a.tail));
                    return;
                }
            } finally {
                if (held) {
                    permits.release();
                }
            }
            try {
                Thread.sleep(backoffMs);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            backoffMs = Math.min(backoffMs * 2, 100);
        }
    }

    /** The refusal of a range beyond restorebench.api.range.concurrency. */
    private Answer tooMany(boolean forwarded) {
        int n = config.api.rangeConcurrency;
        return new Answer(429, Json.toJson(Json.obj("refused", true,
                "reason", "too many ranges at once: this instance " + (forwarded ? "answers " + n + " forwarded ranges" : "gathers " + n + " ranges")
                        + " at a time (" + ApiSettings.RANGE_CONCURRENCY + "); retry later",
                "limit", n, "instance", config.instanceId, "partitions", List.of())));
    }

    /** Routes one lookup: answered here, forwarded, or refused. */
    private Answer lookup(String hex, byte[] key, boolean stale, boolean forwarded) {
        KeyQueryMetadata m;
        try {
            m = config.api.partitions > 0
                    ? streams.queryMetadataForKey(config.store, Bytes.wrap(key), new TopicPartitioner(config.api.partitions))
                    : streams.queryMetadataForKey(config.store, Bytes.wrap(key), Serdes.Bytes().serializer());
        } catch (IllegalStateException | StreamsException e) {
            return refused(-1, Events.describe(e)); // not started, or no longer running or rebalancing
        }
        if (m == null || KeyQueryMetadata.NOT_AVAILABLE.equals(m) || m.activeHost().port() < 0) {
            return refused(-1, "no metadata for the key (the group is rebalancing)");
        }
        boolean active = self.equals(m.activeHost());
        if (active || (stale && m.standbyHosts().contains(self))) {
            return answerHere(m.partition(), key, stale, active);
        }
        if (forwarded) {
            return refused(m.partition(), "forwarded here, but this instance holds no copy of partition " + m.partition() + " it may serve");
        }
        List<HostInfo> owners = new ArrayList<>();
        owners.add(m.activeHost());
        if (stale) {
            owners.addAll(m.standbyHosts());
        }
        return forward(hex, stale, m.partition(), owners);
    }

    /** Answers from this instance's own store partition. */
    private Answer answerHere(int partition, byte[] key, boolean stale, boolean active) {
        StoreProgress.Position pos = progress.of(partition);
        byte[] v;
        try {
            v = local.get(partition, key, stale);
        } catch (InvalidStateStoreException e) {
            return refused(partition, Events.describe(e));
        }
        return new Answer(200, Json.toJson(Json.obj(
                "found", v != null, "value", v == null ? null : Digest.toHex(v),
                "instance", config.instanceId, "copy", active ? "active" : "standby",
                "state", pos.state.isEmpty() ? "unknown" : pos.state, "partition", partition, "offset", pos.offset)));
    }

    /**
     * Forwards the lookup to each owner in turn until one answers (any
     * status but 503 ends it), marking the answer forwarded_by this instance.
     */
    private Answer forward(String hex, boolean stale, int partition, List<HostInfo> owners) {
        Answer last = refused(partition, "no owner of partition " + partition + " could be reached");
        for (HostInfo h : owners) {
            Answer a = get(h, "/kv/" + hex + "?" + FORWARDED + "=" + config.instanceId + (stale ? "&stale=true" : ""));
            last = a.unreachable ? refused(partition, a.body) : new Answer(a.status, prepend(a.body, "forwarded_by", config.instanceId));
            if (a.status != 503) {
                return last;
            }
        }
        return last;
    }

    /**
     * GETs pathAndQuery from instance h's API layer (2 s at most): its
     * status and body, or 503 marked unreachable with the reason as body.
     */
    private Answer get(HostInfo h, String pathAndQuery) {
        URI uri = URI.create("http://" + h.host() + ":" + h.port() + pathAndQuery);
        try {
            HttpResponse<String> r = client.send(HttpRequest.newBuilder(uri).timeout(FORWARD_TIMEOUT).GET().build(),
                    HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            return new Answer(r.statusCode(), r.body());
        } catch (IOException e) {
            return Answer.unreachable("owner " + h + " unreachable: " + Events.describe(e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Answer.unreachable("interrupted");
        }
    }

    /**
     * The JSON object body with field first (a forward's forwarded_by, a
     * retried lookup's retries and waited_ms); a body that is not an
     * object becomes an error naming it.
     */
    static String prepend(String body, String field, Object value) {
        String b = body.strip();
        if (!b.startsWith("{")) {
            return Json.toJson(Json.obj("error", "owner answered " + b, field, value));
        }
        String head = Json.toJson(Json.obj(field, value)); // {"field":value}
        StringBuilder sb = new StringBuilder(b.length() + head.length()).append(head, 0, head.length() - 1);
        String rest = b.substring(1).strip();
        return sb.append(rest.equals("}") ? "" : ",").append(rest).toString();
    }

    private Answer refused(int partition, String reason) {
        return new Answer(503, Json.toJson(Json.obj("refused", true, "reason", reason,
                "instance", config.instanceId, "partition", partition)));
    }

    /** The key's bytes, null for a path that is not hex. */
    private static byte[] decodeKey(String hex) {
        try {
            return Digest.fromHex(hex);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static boolean hasParam(String query, String prefix) {
        if (query == null) {
            return false;
        }
        for (String p : query.split("&")) {
            if (p.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    private static void reply(HttpExchange ex, int status, String body) throws IOException {
        reply(ex, new Answer(status, body));
    }

    private static void reply(HttpExchange ex, Answer a) throws IOException {
        byte[] b = a.body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        if (a.status == 429) {
            ex.getResponseHeaders().set("Retry-After", "1");
        }
        ex.sendResponseHeaders(a.status, b.length + (a.tail == null ? 0 : a.tail.size()));
        try (OutputStream out = ex.getResponseBody()) {
            out.write(b);
            if (a.tail != null) {
                a.tail.writeTo(out);
            }
        }
    }
}
