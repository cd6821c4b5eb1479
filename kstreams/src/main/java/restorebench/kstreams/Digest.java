package restorebench.kstreams;

/**
 * The digest of one partition's store, bit-identical to Go's
 * loadgen.Digest / loadgen.EntryHash: each live (key, value) pair is hashed
 * with FNV-1a 64 over the key length (4 bytes big-endian), the key and the
 * value, finished with the splitmix64 avalanche; the partition's digest is the
 * sum of the hashes modulo 2^64 (Java's long arithmetic wraps exactly so), so
 * it does not depend on iteration order. Not thread-safe.
 */
final class Digest {
    private static final long FNV_OFFSET = 0xcbf29ce484222325L;
    private static final long FNV_PRIME = 0x100000001b3L;

    private long sum;
    private long keys;
    private long liveBytes;

    /** Folds one live pair (an empty value is live; a deleted key is absent). */
    void add(byte[] key, byte[] value) {
        sum += entryHash(key, value);
        keys++;
        liveBytes += key.length + value.length;
    }

    long sum() { return sum; }
    long keys() { return keys; }
    long liveBytes() { return liveBytes; }

    /** The digest as 16 lower-case hex digits, like Go's Digest.String. */
    String hex() { return hex16(sum); }

    /**
     * A timestamped store's entry value as it is digested: the timestamp (8
     * bytes, big-endian) and then the value, the layout the store keeps
     * (Go's loadgen.AppendTimestamped).
     */
    static byte[] timestampedValue(long timestamp, byte[] value) {
        return java.nio.ByteBuffer.allocate(8 + value.length).putLong(timestamp).put(value).array();
    }

    /**
     * A window store's entry key as it is digested: the record key and the
     * window start (8 bytes, big-endian), the changelog key without its
     * sequence number (Go's loadgen.WindowDigestKey).
     */
    static byte[] windowKey(byte[] key, long windowStart) {
        return java.nio.ByteBuffer.allocate(key.length + 8).put(key).putLong(windowStart).array();
    }

    /**
     * A versioned store's version key as it is digested: the record key and
     * the version's validFrom (8 bytes, big-endian), Go's
     * loadgen.AppendVersionedDigestKey.
     */
    static byte[] versionedKey(byte[] key, long validFrom) {
        return java.nio.ByteBuffer.allocate(key.length + 8).put(key).putLong(validFrom).array();
    }

    /**
     * A versioned store's version value as it is digested: its validTo (8
     * bytes, big-endian; Long.MAX_VALUE for a key's latest version, which
     * has none) and then the value, Go's loadgen.AppendVersionedDigestValue.
     */
    static byte[] versionedValue(long validTo, byte[] value) {
        return java.nio.ByteBuffer.allocate(8 + value.length).putLong(validTo).put(value).array();
    }

    /** loadgen.EntryHash. */
    static long entryHash(byte[] key, byte[] value) {
        long h = FNV_OFFSET;
        int n = key.length;
        h = (h ^ ((n >>> 24) & 0xff)) * FNV_PRIME;
        h = (h ^ ((n >>> 16) & 0xff)) * FNV_PRIME;
        h = (h ^ ((n >>> 8) & 0xff)) * FNV_PRIME;
        h = (h ^ (n & 0xff)) * FNV_PRIME;
        for (byte b : key) {
            h = (h ^ (b & 0xff)) * FNV_PRIME;
        }
        for (byte b : value) {
            h = (h ^ (b & 0xff)) * FNV_PRIME;
        }
        long z = h;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** v as 16 hex digits, zero-padded, unsigned. */
    static String hex16(long v) {
        String s = Long.toHexString(v);
        return "0000000000000000".substring(s.length()) + s;
    }

    /** Lower-case hex of bytes. */
    static String toHex(byte[] b) {
        StringBuilder sb = new StringBuilder(b.length * 2);
        for (byte x : b) {
            sb.append(Character.forDigit((x >> 4) & 0xf, 16)).append(Character.forDigit(x & 0xf, 16));
        }
        return sb.toString();
    }

    /** Bytes of a hex string (either case); throws on odd length or a non-hex digit. */
    static byte[] fromHex(String s) {
        if (s.length() % 2 != 0) {
            throw new IllegalArgumentException("odd-length hex string: " + s.length() + " digits");
        }
        byte[] b = new byte[s.length() / 2];
        for (int i = 0; i < b.length; i++) {
            int hi = Character.digit(s.charAt(2 * i), 16);
            int lo = Character.digit(s.charAt(2 * i + 1), 16);
            if (hi < 0 || lo < 0) {
                throw new IllegalArgumentException("not a hex digit at position " + (2 * i));
            }
            b[i] = (byte) ((hi << 4) | lo);
        }
        return b;
    }
}
