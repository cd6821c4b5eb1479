package restorebench.kstreams;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintStream;
import java.io.Reader;

/**
 * The --digest-vectors mode: for each line KEYHEX&lt;TAB&gt;VALUEHEX prints
 * KEYHEX&lt;TAB&gt;VALUEHEX&lt;TAB&gt;HASH16HEX; for each line
 * KIND&lt;TAB&gt;KEYHEX&lt;TAB&gt;TIME&lt;TAB&gt;VALUEHEX (KIND timestamped-key-value:
 * TIME is the record timestamp; window: the window start) it digests the
 * entry as the store of that kind is read, and prints the line, the digested
 * key and value and the hash:
 * KIND&lt;TAB&gt;KEYHEX&lt;TAB&gt;TIME&lt;TAB&gt;VALUEHEX&lt;TAB&gt;ENTRYKEYHEX&lt;TAB&gt;ENTRYVALUEHEX&lt;TAB&gt;HASH16HEX;
 * for each line session&lt;TAB&gt;KEYHEX&lt;TAB&gt;START&lt;TAB&gt;END&lt;TAB&gt;VALUEHEX
 * (a session's record key, start and end) likewise ({@link #session}).
 * Then digest&lt;TAB&gt;SUM16HEX&lt;TAB&gt;keys&lt;TAB&gt;N&lt;TAB&gt;live_bytes&lt;TAB&gt;B
 * for all lines as one partition. A versioned store's line has five
 * fields, versioned-key-value&lt;TAB&gt;KEYHEX&lt;TAB&gt;VALIDFROM&lt;TAB&gt;VALIDTO&lt;TAB&gt;VALUEHEX,
 * and prints eight the same way; so does a timestamped window store's,
 * timestamped-window&lt;TAB&gt;KEYHEX&lt;TAB&gt;WINDOWSTART&lt;TAB&gt;TIMESTAMP&lt;TAB&gt;VALUEHEX
 * (the window start and the record's timestamp the value is kept behind,
 * digested as {@link StoreQueries} reads the store). Go's tests compare this output with
 * loadgen.EntryHash (and, for the kinds, loadgen's store layouts), so the
 * two digests cannot drift apart unnoticed. Blank lines are skipped; an
 * empty VALUEHEX is a live, empty value.
 */
final class DigestVectors {
    private DigestVectors() {}

    /** Reads vectors from in and writes the result to out; throws on a malformed line. */
    static void run(Reader in, PrintStream out) throws IOException {
        BufferedReader r = new BufferedReader(in);
        Digest d = new Digest();
        String line;
        int n = 0;
        while ((line = r.readLine()) != null) {
            n++;
            if (line.isBlank()) {
                continue;
            }
            String[] f = line.split("\t", -1);
            try {
                out.print(vector(f, d) + "\n");
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("line " + n + ": " + e.getMessage(), e);
            }
        }
        out.print("digest\t" + d.hex() + "\tkeys\t" + d.keys() + "\tlive_bytes\t" + d.liveBytes() + "\n");
        out.flush();
    }

    /**
     * A versioned store's line, versioned-key-value&lt;TAB&gt;KEYHEX&lt;TAB&gt;VALIDFROM&lt;TAB&gt;VALIDTO&lt;TAB&gt;VALUEHEX
     * (VALIDTO 9223372036854775807 for a latest version): the line, the
     * digested key and value and the hash, its entry added to d.
     */
    private static String versionedVector(String[] f, Digest d) {
        byte[] key = Digest.versionedKey(Digest.fromHex(f[1]), millis(f[2]));
        byte[] value = Digest.versionedValue(millis(f[3]), Digest.fromHex(f[4]));
        return digested(f, key, value, d);
    }

    /**
     * A timestamped window store's line, timestamped-window&lt;TAB&gt;KEYHEX&lt;TAB&gt;WINDOWSTART&lt;TAB&gt;TIMESTAMP&lt;TAB&gt;VALUEHEX:
     * the line, the digested key (record key and window start) and value
     * (the timestamp before the value) and the hash, its entry added to d.
     */
    private static String timestampedWindowVector(String[] f, Digest d) {
        byte[] key = Digest.windowKey(Digest.fromHex(f[1]), millis(f[2]));
        byte[] value = Digest.timestampedValue(millis(f[3]), Digest.fromHex(f[4]));
        return digested(f, key, value, d);
    }

    /**
     * A kind's line as printed: the line, the digested key and value and
     * their hash; the entry added to d.
     */
    private static String digested(String[] f, byte[] key, byte[] value, Digest d) {
        d.add(key, value);
        return String.join("\t", f) + "\t" + Digest.toHex(key) + "\t" + Digest.toHex(value) + "\t" + Digest.hex16(Digest.entryHash(key, value));
    }

    /** A TIME field: a whole number of milliseconds. */
    private static long millis(String s) {
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("TIME " + s + " is not a whole number of milliseconds");
        }
    }

    /** One line's output, its entry added to d. */
    private static String vector(String[] f, Digest d) {
        if (f.length == 5 && f[0].equals("session")) {
            return session(f, d);
        }
        if (f.length == 2) {
            byte[] key = Digest.fromHex(f[0]);
            byte[] value = Digest.fromHex(f[1]);
            d.add(key, value);
            return f[0] + "\t" + f[1] + "\t" + Digest.hex16(Digest.entryHash(key, value));
        }
        if (f.length == 5 && f[0].equals("versioned-key-value")) {
            return versionedVector(f, d);
        }
        if (f.length == 5 && f[0].equals("timestamped-window")) {
            return timestampedWindowVector(f, d);
        }
        if (f.length != 4) {
            throw new IllegalArgumentException("want KEYHEX<TAB>VALUEHEX or KIND<TAB>KEYHEX<TAB>TIME<TAB>VALUEHEX, got " + f.length + " fields");
        }
        byte[] key = Digest.fromHex(f[1]);
        byte[] value = Digest.fromHex(f[3]);
        long time = millis(f[2]);
        switch (f[0]) {
            case "timestamped-key-value":
                value = Digest.timestampedValue(time, value);
                break;
            case "window":
                key = Digest.windowKey(key, time);
                break;
            default:
                throw new IllegalArgumentException("KIND " + f[0] + " is not timestamped-key-value or window");
        }
        return digested(f, key, value, d);
    }

    /**
     * A session line's output: the line, then the session's digest key
     * (SessionStores.digestKey: record key, end, start), its value and the
     * hash; the entry added to d.
     */
    private static String session(String[] f, Digest d) {
        byte[] key = SessionStores.digestKey(Digest.fromHex(f[1]), millis(f[2]), millis(f[3]));
        byte[] value = Digest.fromHex(f[4]);
        return digested(f, key, value, d);
    }
}
