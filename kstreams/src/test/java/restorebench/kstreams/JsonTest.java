package restorebench.kstreams;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.Test;

class JsonTest {
    @Test
    void escapes() {
        assertEquals("\"a\\\"b\\\\c\\n\\r\\t\\b\\f\\u0001\\u001f\\u007f\\u2028é\"",
                Json.toJson("a\"b\\c\n\r\t\b\f\u0001\u001f\u007f\u2028é"));
    }

    @Test
    void values() {
        assertEquals("{\"s\":\"x\",\"n\":-3,\"l\":12345678901,\"b\":true,\"z\":null,\"d\":1.5,\"nan\":null,"
                        + "\"a\":[1,\"2\",[]],\"o\":{\"k\":false}}",
                Json.toJson(Json.obj("s", "x", "n", -3, "l", 12345678901L, "b", true, "z", null, "d", 1.5,
                        "nan", Double.NaN, "a", List.of(1, "2", List.of()), "o", Json.obj("k", false))));
    }
}
