package restorebench.kstreams;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintStream;
import java.io.Reader;

/**
 * The --digest-vectors mode: for each line KEYHEX&lt;TAB&gt;VALUEHEX prints
 * KEYHEX&lt;TAB&gt;VALUEHEX&lt;TAB&gt;HASH16HEX, then
 * digest&lt;TAB&gt;SUM16HEX&lt;TAB&gt;keys&lt;TAB&gt;N&lt;TAB&gt;live_bytes&lt;TAB&gt;B
 * for all lines as one partition. Go's tests compare this output with
 * loadgen.EntryHash, so the two digests cannot drift apart unnoticed.
 * Blank lines are skipped; an empty VALUEHEX is a live, empty value.
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
            if (f.length != 2) {
                throw new IllegalArgumentException("line " + n + ": want KEYHEX<TAB>VALUEHEX, got " + f.length + " fields");
            }
            byte[] key;
            byte[] value;
            try {
                key = Digest.fromHex(f[0]);
                value = Digest.fromHex(f[1]);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("line " + n + ": " + e.getMessage(), e);
            }
            d.add(key, value);
            out.print(f[0] + "\t" + f[1] + "\t" + Digest.hex16(Digest.entryHash(key, value)) + "\n");
        }
        out.print("digest\t" + d.hex() + "\tkeys\t" + d.keys() + "\tlive_bytes\t" + d.liveBytes() + "\n");
        out.flush();
    }
}
