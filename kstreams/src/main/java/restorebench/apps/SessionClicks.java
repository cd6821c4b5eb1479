package restorebench.apps;

import java.time.Duration;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.SessionWindows;
import org.apache.kafka.streams.state.SessionStore;

/**
 * Clicks per user session, as a user writes it: click events keyed by user
 * (String key, the page clicked as a String value, event time the record's
 * timestamp), grouped by user (no repartition), counted per session of
 * activity (sessions closed by five minutes without a click, an hour's
 * grace) in the session store "clicks-per-session", kept two hours (the
 * DSL's session-windowed count(): a session store, changelog
 * &lt;application.id&gt;-clicks-per-session-changelog, keys the user plus
 * the session's end and start, 8-byte Long values; a click that extends or
 * merges sessions deletes the old ones, a tombstone each, and writes the
 * merged one).
 *
 * Usage: java -cp &lt;driver classpath&gt; restorebench.apps.SessionClicks
 * &lt;bootstrap&gt; &lt;application.id&gt; &lt;state.dir&gt; &lt;input topic&gt;
 */
public final class SessionClicks {
    /** The store the counts are materialized in. */
    public static final String STORE = "clicks-per-session";

    private SessionClicks() {}

    public static void main(String[] argv) throws InterruptedException {
        AppRunner.Args args = AppRunner.parse("SessionClicks", argv);
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream(args.input(), Consumed.with(Serdes.String(), Serdes.String()))
                .groupByKey(Grouped.with(Serdes.String(), Serdes.String()))
                .windowedBy(SessionWindows.ofInactivityGapAndGrace(Duration.ofMinutes(5), Duration.ofHours(1)))
                .count(Materialized.<String, Long, SessionStore<Bytes, byte[]>>as(STORE)
                        .withKeySerde(Serdes.String())
                        .withValueSerde(Serdes.Long())
                        .withRetention(Duration.ofHours(2)));
        AppRunner.run(builder.build(), AppRunner.properties(args));
    }
}
