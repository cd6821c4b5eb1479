package verify

import (
	"strings"
	"testing"
)

func TestFirstDifferenceNamesTheLowestKeyAndWhatIsWrong(t *testing.T) {
	topic := map[string]uint64{"a": 1, "b": 2, "c": 3, "d": 4}
	for _, tc := range []struct {
		name     string
		restored map[string]uint64
		want     string
	}{
		{"same", map[string]uint64{"a": 1, "b": 2, "c": 3, "d": 4}, ""},
		{"wrong value", map[string]uint64{"a": 1, "b": 9, "c": 3, "d": 4}, `partition 3: 1 key(s) differ; the first, key "b": the store holds another value`},
		{"missing", map[string]uint64{"a": 1, "b": 2, "d": 4}, `1 key(s) differ; the first, key "c": in the topic, missing from the store`},
		{"extra and wrong", map[string]uint64{"a": 1, "b": 2, "c": 3, "d": 5, "\x00\x01": 7}, `2 key(s) differ; the first, key 0x0001: in the store, not live in the topic`},
	} {
		got := FirstDifference(3, topic, tc.restored)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want it to contain %q", tc.name, got, tc.want)
		}
	}
}
