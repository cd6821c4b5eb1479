package restorebench.kstreams;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * An append-only byte buffer in chunks (1 KiB at first, doubling to 64
 * KiB), for a range's answer: growing it never copies what it holds, so
 * an answer of N bytes takes about N bytes of heap, and it is written out
 * as it is, with no String or byte[] of the whole.
 */
final class Chunks {
    private static final int FIRST = 1 << 10;
    private static final int LARGEST = 64 << 10;
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    private final List<byte[]> full = new ArrayList<>();
    private byte[] cur = new byte[FIRST];
    private int pos;
    private long size;

    /** The bytes appended. */
    long size() {
        return size;
    }

    void append(byte b) {
        if (pos == cur.length) {
            full.add(cur);
            cur = new byte[Math.min(cur.length * 2, LARGEST)];
            pos = 0;
        }
        cur[pos++] = b;
        size++;
    }

    void append(byte[] b) {
        for (int i = 0; i < b.length; ) {
            if (pos == cur.length) {
                full.add(cur);
                cur = new byte[Math.min(cur.length * 2, LARGEST)];
                pos = 0;
            }
            int n = Math.min(b.length - i, cur.length - pos);
            System.arraycopy(b, i, cur, pos, n);
            pos += n;
            i += n;
            size += n;
        }
    }

    /** Appends s as UTF-8. */
    void append(String s) {
        append(s.getBytes(StandardCharsets.UTF_8));
    }

    /** Appends b in lowercase hex, two digits a byte (as {@link Digest#toHex}). */
    void appendHex(byte[] b) {
        for (byte x : b) {
            append(HEX[(x >> 4) & 0xf]);
            append(HEX[x & 0xf]);
        }
    }

    /** Drops everything appended after the first n bytes (a mark taken with {@link #size}). */
    void truncate(long n) {
        if (n < 0 || n > size) {
            throw new IllegalArgumentException("truncate to " + n + " of " + size + " bytes");
        }
        long drop = size - n;
        while (drop > pos) {
            drop -= pos;
            size -= pos;
            cur = full.remove(full.size() - 1);
            pos = cur.length;
        }
        pos -= (int) drop;
        size -= drop;
    }

    void writeTo(OutputStream out) throws IOException {
        for (byte[] c : full) {
            out.write(c);
        }
        out.write(cur, 0, pos);
    }

    @Override
    public String toString() {
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream((int) Math.min(size, Integer.MAX_VALUE));
        try {
            writeTo(b);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return b.toString(StandardCharsets.UTF_8);
    }
}
