package restorebench.kstreams;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Properties;

import org.junit.jupiter.api.Test;

class ApiSettingsTest {
    private static Properties base() {
        Properties p = new Properties();
        p.setProperty("restorebench.instance.id", "i0");
        p.setProperty("restorebench.input.topic", "in");
        p.setProperty("application.id", "app");
        p.setProperty("bootstrap.servers", "127.0.0.1:9092");
        return p;
    }

    private static String refused(Properties p) {
        return assertThrows(DriverConfig.ConfigError.class, () -> DriverConfig.parse(p)).getMessage();
    }

    @Test
    void offByDefaultAndNotPassedToStreams() throws Exception {
        DriverConfig c = DriverConfig.parse(base());
        assertFalse(c.api.enabled());
        Properties p = base();
        p.setProperty("restorebench.api.port", "0");
        c = DriverConfig.parse(p);
        assertTrue(c.api.enabled());
        assertEquals(0, c.api.port);
        assertEquals("127.0.0.1", c.api.host);
        // application.server is set only once the port is bound.
        assertNull(c.streams.getProperty("application.server"));
        assertNull(c.streams.getProperty("restorebench.api.port"));
    }

    @Test
    void refusals() {
        Properties p = base();
        p.setProperty("restorebench.api.port", "70000");
        assertTrue(refused(p).contains("restorebench.api.port=70000"));
        p = base();
        p.setProperty("restorebench.api.prot", "0");
        assertTrue(refused(p).contains("unknown driver key restorebench.api.prot"));
        p = base();
        p.setProperty("restorebench.api.port", "0");
        p.setProperty("application.server", "h:1");
        assertTrue(refused(p).contains("application.server is set by the driver"));
        p = base();
        p.setProperty("restorebench.api.port", "0");
        p.setProperty("restorebench.bare", "true");
        assertTrue(refused(p).contains("restorebench.bare=true"));
        p = base();
        p.setProperty("restorebench.api.port", "0");
        p.setProperty("restorebench.topology", "ledger");
        assertTrue(refused(p).contains("not the ledger's"));
    }

    @Test
    void retryIsOffByDefaultAndBounded() throws Exception {
        Properties p = base();
        p.setProperty("restorebench.api.port", "0");
        assertEquals(0, DriverConfig.parse(p).api.retryMs);
        p.setProperty("restorebench.api.retry.ms", "1500");
        assertEquals(1500, DriverConfig.parse(p).api.retryMs);
        p.setProperty("restorebench.api.retry.ms", "5000");
        assertTrue(refused(p).contains("restorebench.api.retry.ms=5000: must be 0 to 4000 ms"));
        p.setProperty("restorebench.api.retry.ms", "soon");
        assertTrue(refused(p).contains("restorebench.api.retry.ms=soon"));
    }

    @Test
    void rangeLimitsHaveDefaultsAndBounds() throws Exception {
        Properties p = base();
        p.setProperty("restorebench.api.port", "0");
        ApiSettings s = DriverConfig.parse(p).api;
        assertEquals(10_000, s.rangeMaxEntries);
        assertEquals(4L << 20, s.rangeMaxBytes);
        assertEquals(4, s.rangeConcurrency);
        p.setProperty("restorebench.api.range.max.entries", "500");
        p.setProperty("restorebench.api.range.max.bytes", "64KiB");
        p.setProperty("restorebench.api.range.concurrency", "2");
        s = DriverConfig.parse(p).api;
        assertEquals(500, s.rangeMaxEntries);
        assertEquals(64 << 10, s.rangeMaxBytes);
        assertEquals(2, s.rangeConcurrency);
        p.setProperty("restorebench.api.range.max.entries", "0");
        assertTrue(refused(p).contains("restorebench.api.range.max.entries=0: must be 1 to 1000000 entries"));
        p.setProperty("restorebench.api.range.max.entries", "500");
        p.setProperty("restorebench.api.range.max.bytes", "2GiB");
        assertTrue(refused(p).contains("restorebench.api.range.max.bytes=2GiB: must be 1KiB to 1GiB"));
        p.setProperty("restorebench.api.range.max.bytes", "lots");
        assertTrue(refused(p).contains("restorebench.api.range.max.bytes=lots"));
        p.setProperty("restorebench.api.range.max.bytes", "1MiB");
        p.setProperty("restorebench.api.range.concurrency", "x");
        assertTrue(refused(p).contains("restorebench.api.range.concurrency=x: must be 1 to 256"));
    }

    @Test
    void prependPutsTheFieldFirstAndKeepsTheRest() {
        assertEquals("{\"retries\":3,\"found\":true}", ApiServer.prepend("{\"found\":true}", "retries", 3));
        assertEquals("{\"forwarded_by\":\"i1\"}", ApiServer.prepend(" {} ", "forwarded_by", "i1"));
        assertEquals("{\"error\":\"owner answered oops\",\"forwarded_by\":\"i1\"}", ApiServer.prepend("oops", "forwarded_by", "i1"));
    }
}
