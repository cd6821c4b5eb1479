package restorebench.kstreams;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

/** A range's caps are counted while it is gathered, and its entries kept as compact text. */
class RangeCapsTest {
    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void theEntryOverTheCapStopsTheGathering() {
        RangeQueries.Gathered g = new RangeQueries.Gathered(new RangeQueries.Caps(3, 1 << 20), (byte) ',');
        int added = 0;
        for (int i = 0; i < 1000; i++) {
            if (!g.add(new byte[] {(byte) i}, new byte[] {1, 2}, 7)) {
                break;
            }
            added++;
        }
        assertEquals(3, added);
        assertEquals(3, g.count);
        assertEquals(4, g.read);
        assertEquals("entries", g.over);
        assertEquals("{\"key\":\"00\",\"value\":\"0102\",\"partition\":7},{\"key\":\"01\",\"value\":\"0102\",\"partition\":7},"
                + "{\"key\":\"02\",\"value\":\"0102\",\"partition\":7}", g.entries.toString());
    }

    @Test
    void bytesAreCountedAsEntriesAreAdded() {
        // Each entry is {"key":"61","value":"<200 hex digits>","partition":0}: 237 bytes, 238 with its separator.
        RangeQueries.Gathered g = new RangeQueries.Gathered(new RangeQueries.Caps(1_000_000, 1024), (byte) '\n');
        int added = 0;
        while (g.add(b("a"), new byte[100], 0)) {
            added++;
        }
        assertEquals(4, added);
        assertEquals("bytes", g.over);
        assertTrue(g.entries.size() <= 1024, "kept " + g.entries.size() + " bytes");
        assertEquals(5, g.read);
    }

    @Test
    void splicedLinesCountToo() {
        RangeQueries.Gathered g = new RangeQueries.Gathered(new RangeQueries.Caps(2, 1 << 20), (byte) ',');
        assertTrue(g.addLine("{\"key\":\"00\",\"value\":\"\",\"partition\":1}"));
        assertTrue(g.add(new byte[] {1}, new byte[0], 2));
        assertNull(g.over);
        assertFalse(g.addLine("{\"key\":\"02\",\"value\":\"\",\"partition\":1}"));
        assertEquals("entries", g.over);
        assertEquals("{\"key\":\"00\",\"value\":\"\",\"partition\":1},{\"key\":\"01\",\"value\":\"\",\"partition\":2}", g.entries.toString());
    }

    @Test
    void aForwardLowersTheCapsNeverRaisesThem() {
        RangeQueries.Caps c = new RangeQueries.Caps(10_000, 4 << 20);
        assertEquals(new RangeQueries.Caps(10_000, 4 << 20), c.lowered(-1, -1));
        assertEquals(new RangeQueries.Caps(10_000, 4 << 20), c.lowered(1_000_000, 1L << 40));
        assertEquals(new RangeQueries.Caps(0, 100), c.lowered(0, 100));
    }

    @Test
    void chunksGrowWithoutCopyingAndTruncate() {
        Chunks c = new Chunks();
        StringBuilder want = new StringBuilder();
        for (int i = 0; i < 50_000; i++) {
            String s = Integer.toString(i % 97);
            c.append(s);
            want.append(s);
        }
        assertEquals(want.length(), c.size());
        assertEquals(want.toString(), c.toString());
        c.truncate(3000);
        assertEquals(want.substring(0, 3000), c.toString());
        c.truncate(1024);
        assertEquals(want.substring(0, 1024), c.toString());
        c.appendHex(new byte[] {(byte) 0xc0, (byte) 0xff, (byte) 0xee});
        assertEquals(want.substring(0, 1024) + "c0ffee", c.toString());
        c.truncate(0);
        assertEquals("", c.toString());
        c.append((byte) 'x');
        assertEquals("x", c.toString());
    }
}
