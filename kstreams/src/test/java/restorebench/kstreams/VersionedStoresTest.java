package restorebench.kstreams;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.Properties;

import org.apache.kafka.streams.TopologyDescription;
import org.apache.kafka.streams.state.internals.RocksDbVersionedKeyValueBytesStoreSupplier;
import org.junit.jupiter.api.Test;

class VersionedStoresTest {
    private static Properties versioned() {
        Properties p = new Properties();
        p.setProperty("restorebench.instance.id", "i0");
        p.setProperty("restorebench.input.topic", "in");
        p.setProperty("application.id", "app");
        p.setProperty("bootstrap.servers", "127.0.0.1:9092");
        p.setProperty("restorebench.store.kind", "versioned-key-value");
        p.setProperty("restorebench.store.retention.ms", "1200000");
        p.setProperty("restorebench.store.keys", "300");
        return p;
    }

    /** Go's loadgen.AppendVersionedDigestKey/Value and EntryHash give these (testdata/digest_vectors_versioned.tsv). */
    @Test
    void versionEntriesMatchGo() {
        byte[] k1 = Digest.fromHex("6b303030303030303030303030303031");
        byte[] key = Digest.versionedKey(k1, 1767225600000L);
        byte[] value = Digest.versionedValue(Long.MAX_VALUE, Digest.fromHex("76616c7565"));
        assertEquals("6b3030303030303030303030303030310000019b76daa800", Digest.toHex(key));
        assertEquals("7fffffffffffffff76616c7565", Digest.toHex(value));
        assertEquals("6429cf7c1e174f21", Digest.hex16(Digest.entryHash(key, value)));
    }

    @Test
    void vectorsModeVersioned() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        DigestVectors.run(new StringReader("versioned-key-value\t\t1767225600123\t9223372036854775807\t78\n"), new PrintStream(out, true, StandardCharsets.UTF_8));
        String want = "versioned-key-value\t\t1767225600123\t9223372036854775807\t78\t0000019b76daa87b\t7fffffffffffffff78\t9c79155e421b4660\n"
                + "digest\t9c79155e421b4660\tkeys\t1\tlive_bytes\t17\n";
        assertEquals(want, out.toString(StandardCharsets.UTF_8));
    }

    /** The kv topology builds a logged versioned store of the history retention, Kafka Streams' default segments unless set. */
    @Test
    void buildsAVersionedStore() throws Exception {
        DriverConfig c = DriverConfig.parse(versioned());
        assertEquals(VersionedStores.KIND, c.storeKind);
        assertEquals(300, c.storeKeys);
        assertEquals(1_200_000, VersionedStores.supplier(c).historyRetentionMs());
        assertEquals(100_000, segmentInterval(c)); // a twelfth of 20 min
        assertTrue(VersionedStores.builder(c).loggingEnabled());
        TopologyDescription d = KvTopology.build(c, null).describe();
        assertTrue(d.toString().contains("stores: [balances]"), d.toString());
        Properties p = versioned();
        p.setProperty("restorebench.store.segment.interval.ms", "60000");
        assertEquals(60_000, segmentInterval(DriverConfig.parse(p)));
    }

    /** The supplier's segment interval: Stores' factories build a RocksDbVersionedKeyValueBytesStoreSupplier. */
    private static long segmentInterval(DriverConfig c) {
        return ((RocksDbVersionedKeyValueBytesStoreSupplier) VersionedStores.supplier(c)).segmentIntervalMs();
    }

    @Test
    void refusesWhatKafkaStreamsCannotBuild() {
        String[][] cases = {
            {"restorebench.store.type=memory", "no in-memory versioned store"},
            {"restorebench.store.retention.ms=0", "needs restorebench.store.retention.ms"},
            {"restorebench.store.keys=0", "needs restorebench.store.keys"},
            {"restorebench.store.window.size.ms=1000", "for store.kind=window only"},
            {"restorebench.topology=table", "kv topology only"},
        };
        for (String[] tc : cases) {
            Properties p = versioned();
            String[] f = tc[0].split("=", 2);
            p.setProperty(f[0], f[1]);
            DriverConfig.ConfigError e = assertThrows(DriverConfig.ConfigError.class, () -> DriverConfig.parse(p), tc[0]);
            assertTrue(e.getMessage().contains(tc[1]), tc[0] + ": " + e.getMessage());
        }
        Properties kv = versioned();
        kv.remove("restorebench.store.kind");
        kv.remove("restorebench.store.retention.ms");
        DriverConfig.ConfigError e = assertThrows(DriverConfig.ConfigError.class, () -> DriverConfig.parse(kv));
        assertTrue(e.getMessage().contains("store.keys is for"), e.getMessage());
    }
}
