package restorebench.kstreams;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A minimal JSON writer for the driver's events, so the driver needs no JSON
 * library. It writes null, strings, booleans, numbers, maps (as objects, in
 * their iteration order) and iterables or object arrays (as arrays). Anything
 * else is written as its toString() string. Non-finite doubles become null,
 * since JSON has no NaN or infinity.
 */
final class Json {
    private Json() {}

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    /** An ordered object from alternating names and values: obj("a", 1, "b", "x"). */
    static Map<String, Object> obj(Object... namesAndValues) {
        if (namesAndValues.length % 2 != 0) {
            throw new IllegalArgumentException("Json.obj needs name/value pairs");
        }
        Map<String, Object> m = new LinkedHashMap<>(namesAndValues.length);
        for (int i = 0; i < namesAndValues.length; i += 2) {
            m.put((String) namesAndValues[i], namesAndValues[i + 1]);
        }
        return m;
    }

    /** The JSON text of one value. */
    static String toJson(Object v) {
        StringBuilder sb = new StringBuilder();
        write(sb, v);
        return sb.toString();
    }

    /** Appends the JSON text of v to sb. */
    static void write(StringBuilder sb, Object v) {
        if (v == null) {
            sb.append("null");
        } else if (v instanceof CharSequence) {
            string(sb, v.toString());
        } else if (v instanceof Boolean) {
            sb.append(((Boolean) v).booleanValue() ? "true" : "false");
        } else if (v instanceof Double || v instanceof Float) {
            double d = ((Number) v).doubleValue();
            if (Double.isFinite(d)) {
                sb.append(d);
            } else {
                sb.append("null");
            }
        } else if (v instanceof Number) {
            sb.append(v.toString());
        } else if (v instanceof Map) {
            sb.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                if (!first) {
                    sb.append(',');
                }
                first = false;
                string(sb, String.valueOf(e.getKey()));
                sb.append(':');
                write(sb, e.getValue());
            }
            sb.append('}');
        } else if (v instanceof Iterable) {
            sb.append('[');
            boolean first = true;
            for (Object o : (Iterable<?>) v) {
                if (!first) {
                    sb.append(',');
                }
                first = false;
                write(sb, o);
            }
            sb.append(']');
        } else if (v instanceof Object[]) {
            sb.append('[');
            Object[] a = (Object[]) v;
            for (int i = 0; i < a.length; i++) {
                if (i > 0) {
                    sb.append(',');
                }
                write(sb, a[i]);
            }
            sb.append(']');
        } else {
            string(sb, v.toString());
        }
    }

    /**
     * Appends s as a JSON string: quote, backslash and control characters are
     * escaped (\n, \r, \t, \b, \f by name, the rest as \\uXXXX), as are U+2028
     * and U+2029 so the line stays one line for any reader; everything else is
     * kept as is (the stream is UTF-8).
     */
    static void string(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"': sb.append("\\\""); break;
                case '\\': sb.append("\\\\"); break;
                case '\n': sb.append("\\n"); break;
                case '\r': sb.append("\\r"); break;
                case '\t': sb.append("\\t"); break;
                case '\b': sb.append("\\b"); break;
                case '\f': sb.append("\\f"); break;
                default:
                    if (c < 0x20 || c == 0x7f || c == '\u2028' || c == '\u2029') {
                        sb.append("\\u")
                                .append(HEX[(c >> 12) & 0xf]).append(HEX[(c >> 8) & 0xf])
                                .append(HEX[(c >> 4) & 0xf]).append(HEX[c & 0xf]);
                    } else {
                        sb.append(c);
                    }
            }
        }
        sb.append('"');
    }
}
