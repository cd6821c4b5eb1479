package restorebench.kstreams;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

/** Digest vectors computed with Go's loadgen.EntryHash (from testdata/digest_vectors.tsv). */
class DigestTest {
    @Test
    void entryHashMatchesGo() {
        assertEquals("2753892a614e6925", hash("61", ""));           // empty value is live
        assertEquals("6f22c6a0bba08d22", hash("00", "00"));
        assertEquals("a10f1627126e62f8", hash("ff", "ff"));
        assertEquals("2277e1372dba526e", hash("", "78"));           // empty key
        assertEquals("6001f4de79d18305", hash("68656c6c6f", "776f726c64"));
        assertEquals("4bb4175ca20fd7c2", hash("6163636f756e742d303030303031", "00000000000027100000000000000003"));
    }

    /** Store-kind vectors from testdata/digest_vectors_kinds.tsv, hashed by Go's layouts. */
    @Test
    void storeKindEntriesMatchGo() {
        byte[] k1 = Digest.fromHex("6b303030303030303030303030303031");
        byte[] value = Digest.fromHex("76616c7565");
        assertEquals("9486d8e11af1ca66", Digest.hex16(Digest.entryHash(k1, Digest.timestampedValue(1767225600000L, value))));
        assertEquals("81bb7b2af4cb79cf", Digest.hex16(Digest.entryHash(Digest.fromHex("00"), Digest.timestampedValue(Long.MAX_VALUE, Digest.fromHex("ff00")))));
        assertEquals("5e8210248bec196c", Digest.hex16(Digest.entryHash(Digest.windowKey(k1, 1767225600000L), value)));
        assertEquals("1940d3e57df390ab", Digest.hex16(Digest.entryHash(Digest.windowKey(new byte[0], 0), Digest.fromHex("78"))));
        assertEquals("0000000000000001" + "00", Digest.toHex(Digest.timestampedValue(1, Digest.fromHex("00"))));
        assertEquals("ff" + "0000019b76daa800", Digest.toHex(Digest.windowKey(Digest.fromHex("ff"), 1767225600000L)));
    }

    @Test
    void vectorsModeStoreKinds() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        DigestVectors.run(new StringReader("window\t\t0\t78\n"), new PrintStream(out, true, StandardCharsets.UTF_8));
        String want = "window\t\t0\t78\t0000000000000000\t78\t1940d3e57df390ab\n"
                + "digest\t1940d3e57df390ab\tkeys\t1\tlive_bytes\t9\n";
        assertEquals(want, out.toString(StandardCharsets.UTF_8));
    }

    @Test
    void longKeyLengthPrefix() {
        StringBuilder k = new StringBuilder();
        for (int i = 0; i < 300; i++) {
            k.append(String.format("%02x", i % 256));
        }
        assertEquals("608eec57742d5e5b", hash(k.toString(), "76"));
    }

    @Test
    void partitionDigestIsSumOfHashes() {
        Digest d = new Digest();
        d.add(Digest.fromHex("61"), new byte[0]);
        d.add(Digest.fromHex("00"), Digest.fromHex("00"));
        assertEquals(2, d.keys());
        assertEquals(3, d.liveBytes());
        assertEquals(Digest.hex16(0x2753892a614e6925L + 0x6f22c6a0bba08d22L), d.hex());
    }

    @Test
    void vectorsMode() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        DigestVectors.run(new StringReader("61\t\n\n00\t00\n"), new PrintStream(out, true, StandardCharsets.UTF_8));
        String want = "61\t\t2753892a614e6925\n00\t00\t6f22c6a0bba08d22\n"
                + "digest\t" + Digest.hex16(0x2753892a614e6925L + 0x6f22c6a0bba08d22L) + "\tkeys\t2\tlive_bytes\t3\n";
        assertEquals(want, out.toString(StandardCharsets.UTF_8));
    }

    @Test
    void hex16Pads() {
        assertEquals("0000000000000001", Digest.hex16(1));
        assertEquals("ffffffffffffffff", Digest.hex16(-1));
    }

    private static String hash(String keyHex, String valueHex) {
        return Digest.hex16(Digest.entryHash(Digest.fromHex(keyHex), Digest.fromHex(valueHex)));
    }
}
