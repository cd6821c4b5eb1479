package restorebench.kstreams;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.Properties;

import org.apache.kafka.streams.kstream.internals.SessionWindow;
import org.apache.kafka.streams.state.internals.RocksDbSessionBytesStoreSupplier;
import org.junit.jupiter.api.Test;

/** The session store kind: its config, factories, sessions and digest, against Go's values. */
class SessionStoresTest {
    private static Properties session() {
        Properties p = new Properties();
        p.setProperty("restorebench.instance.id", "i0");
        p.setProperty("restorebench.input.topic", "in");
        p.setProperty("application.id", "app");
        p.setProperty("bootstrap.servers", "127.0.0.1:9092");
        p.setProperty("restorebench.store.kind", "session");
        p.setProperty("restorebench.store.retention.ms", "3750000");
        p.setProperty("restorebench.store.window.size.ms", "300000");
        return p;
    }

    @Test
    void buildsKafkaStreamsSessionStores() throws Exception {
        DriverConfig c = DriverConfig.parse(session());
        assertEquals(SessionStores.KIND, c.storeKind);
        assertInstanceOf(RocksDbSessionBytesStoreSupplier.class, SessionStores.supplier(c));
        assertEquals(1_875_000, SessionStores.supplier(c).segmentIntervalMs()); // max(retention / 2, 60 s)
        assertEquals(3_750_000, SessionStores.supplier(c).retentionPeriod());
        Properties m = session();
        m.setProperty("restorebench.store.type", "memory");
        DriverConfig mc = DriverConfig.parse(m);
        assertEquals("in-memory-session", SessionStores.supplier(mc).metricsScope());
    }

    /** Go's loadgen.SessionLength and AppendSessionKey give the same sessions and keys. */
    @Test
    void sessionsAndDigestKeysMatchGo() {
        byte[] k1 = Digest.fromHex("6b303030303030303030303030303031");
        assertEquals(149_999, SessionStores.sessionLength(k1, 300_000));
        assertEquals(299_999, SessionStores.sessionLength(Digest.fromHex("ff"), 300_000));
        assertEquals(74_999, SessionStores.sessionLength(new byte[0], 300_000));
        assertEquals(0, SessionStores.sessionLength(Digest.fromHex("82"), 1));
        SessionWindow s = SessionStores.sessionOf(k1, 1_767_225_899_999L, 300_000);
        assertEquals(1_767_225_600_000L, s.start());
        assertEquals(1_767_225_749_999L, s.end());
        // A record stamped with its session's end falls in the same session.
        assertEquals(s, SessionStores.sessionOf(k1, s.end(), 300_000));
        byte[] key = SessionStores.digestKey(k1, 1_767_225_600_000L, 1_767_225_674_999L);
        assertEquals("6b303030303030303030303030303031" + "0000019b76dbccf7" + "0000019b76daa800", Digest.toHex(key));
        assertEquals("35fe87eacee54d9e", Digest.hex16(Digest.entryHash(key, Digest.fromHex("76616c7565"))));
    }

    @Test
    void vectorsModeSessions() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        DigestVectors.run(new StringReader("session\t\t0\t0\t78\n"), new PrintStream(out, true, StandardCharsets.UTF_8));
        String want = "session\t\t0\t0\t78\t00000000000000000000000000000000\t78\ta86de3542f080e5b\n"
                + "digest\ta86de3542f080e5b\tkeys\t1\tlive_bytes\t17\n";
        assertEquals(want, out.toString(StandardCharsets.UTF_8));
    }

    @Test
    void refusesWhatASessionStoreCannotBe() {
        String[][] cases = {
            {"restorebench.store.window.size.ms=0", "needs restorebench.store.retention.ms"},
            {"restorebench.store.retention.ms=1000", "shorter than the window"},
            {"restorebench.store.segment.interval.ms=60000", "session stores take none"},
        };
        for (String[] tc : cases) {
            Properties p = session();
            String[] f = tc[0].split("=", 2);
            p.setProperty(f[0], f[1]);
            DriverConfig.ConfigError e = assertThrows(DriverConfig.ConfigError.class, () -> DriverConfig.parse(p), tc[0]);
            assertTrue(e.getMessage().contains(tc[1]), tc[0] + ": " + e.getMessage());
        }
    }
}
