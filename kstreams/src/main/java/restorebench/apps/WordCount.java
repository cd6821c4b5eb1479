package restorebench.apps;

import java.util.Arrays;
import java.util.Locale;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * A word count, as a user writes it: lines of text (String keys and values)
 * split into words, grouped by word (a repartition topic) and counted in
 * the store "word-counts" (the DSL's count(): a timestamped key-value store,
 * changelog &lt;application.id&gt;-word-counts-changelog of String keys and
 * 8-byte Long values).
 *
 * Usage: java -cp &lt;driver classpath&gt; restorebench.apps.WordCount
 * &lt;bootstrap&gt; &lt;application.id&gt; &lt;state.dir&gt; &lt;input topic&gt;
 */
public final class WordCount {
    /** The store the counts are materialized in. */
    public static final String STORE = "word-counts";

    private WordCount() {}

    public static void main(String[] argv) throws InterruptedException {
        AppRunner.Args args = AppRunner.parse("WordCount", argv);
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream(args.input(), Consumed.with(Serdes.String(), Serdes.String()))
                .flatMapValues(line -> Arrays.asList(line.toLowerCase(Locale.ROOT).split("\\W+")))
                .filter((key, word) -> !word.isEmpty())
                .groupBy((key, word) -> word, Grouped.with(Serdes.String(), Serdes.String()))
                .count(Materialized.<String, Long, KeyValueStore<Bytes, byte[]>>as(STORE)
                        .withKeySerde(Serdes.String())
                        .withValueSerde(Serdes.Long()));
        AppRunner.run(builder.build(), AppRunner.properties(args));
    }
}
