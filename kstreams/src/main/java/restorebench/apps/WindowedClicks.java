package restorebench.apps;

import java.time.Duration;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.state.WindowStore;

/**
 * Clicks per page per minute, as a user writes it: click events keyed by
 * user (String key, the page clicked as a String value, event time the
 * record's timestamp), re-keyed by page (a repartition topic), counted in
 * one-minute tumbling windows with an hour's grace (a backlog of an hour's
 * clicks, its input partitions read one ahead of the other, drops none as
 * late) in the window store "clicks-per-page", kept two hours (the DSL's
 * windowed count(): a
 * timestamped window store, changelog
 * &lt;application.id&gt;-clicks-per-page-changelog, keys the page plus the
 * window start and a sequence number, 8-byte Long values).
 *
 * Usage: java -cp &lt;driver classpath&gt; restorebench.apps.WindowedClicks
 * &lt;bootstrap&gt; &lt;application.id&gt; &lt;state.dir&gt; &lt;input topic&gt;
 */
public final class WindowedClicks {
    /** The store the counts are materialized in. */
    public static final String STORE = "clicks-per-page";

    private WindowedClicks() {}

    public static void main(String[] argv) throws InterruptedException {
        AppRunner.Args args = AppRunner.parse("WindowedClicks", argv);
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream(args.input(), Consumed.with(Serdes.String(), Serdes.String()))
                .groupBy((user, page) -> page, Grouped.with(Serdes.String(), Serdes.String()))
                .windowedBy(TimeWindows.ofSizeAndGrace(Duration.ofMinutes(1), Duration.ofHours(1)))
                .count(Materialized.<String, Long, WindowStore<Bytes, byte[]>>as(STORE)
                        .withKeySerde(Serdes.String())
                        .withValueSerde(Serdes.Long())
                        .withRetention(Duration.ofHours(2)));
        AppRunner.run(builder.build(), AppRunner.properties(args));
    }
}
