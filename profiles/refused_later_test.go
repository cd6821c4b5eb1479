package profiles

import (
	"strings"
	"testing"
)

// TestProfilesRefuseWhatFailsLater: settings that pass validation but fail
// once a run reaches the broker or the Kafka Streams driver (after the
// fill, for every case) are refused when the profile is read, the error
// naming the field and why: a timed fill stamping records further ahead
// of now than Kafka accepts (INVALID_TIMESTAMP from the broker), and a
// streams key the driver sets itself beside queries.
func TestProfilesRefuseWhatFailsLater(t *testing.T) {
	const ks = "fill: {records: 100, keys: 10}\nrestore: {engine: kafka-streams}\n"
	for _, tc := range []struct {
		name, yaml string
		want       []string // every one in the error; none: accepted
	}{
		{"window time_range of the largest duration",
			"fill: {records: 100, keys: 10, store_kind: window, time_range: 2562047h}\n",
			[]string{"line 1: fill.time_range: 2562047h0m0s stamps the last record 2318-", "INVALID_TIMESTAMP", "message.timestamp.after.max.ms"}},
		{"window time_range and retention of the largest duration",
			"fill: {records: 100, keys: 10, store_kind: window, retention: 2562047h, time_range: 2562047h}\n",
			[]string{"fill.time_range:", "INVALID_TIMESTAMP"}},
		{"timestamped time_range ten years on",
			"fill: {records: 100, keys: 10, store_kind: timestamped-key-value, time_range: 87600h}\n",
			[]string{"fill.time_range: 87600h0m0s", "INVALID_TIMESTAMP"}},
		{"versioned time_range ten years on",
			"fill: {records: 100, keys: 10, store_kind: versioned-key-value, time_range: 87600h}\n",
			[]string{"fill.time_range: 87600h0m0s"}},
		{"session ends past the bound by window_size alone",
			"fill: {records: 100, keys: 10, store_kind: session, time_range: 1h, window_size: 2562047h, retention: 2562047h}\n",
			[]string{"fill.window_size: 2562047h0m0s after time_range 1h0m0s", "INVALID_TIMESTAMP"}},
		{"a store-kind sweep's window fill",
			"fill: {records: 100, keys: 10, time_range: 87600h}\nstore_kinds: [timestamped-key-value, window]\n",
			[]string{"time_range: 87600h0m0s"}},
		{"a window fill within the past", "fill: {records: 100, keys: 10, store_kind: window, time_range: 2h, retention: 2562047h}\n", nil},
		{"a session fill within the past", "fill: {records: 100, keys: 10, store_kind: session, time_range: 2h}\n", nil},

		{"application.server beside queries in the case",
			ks + "cases:\n  - name: a\n    queries: {rate: 100}\n    streams: {application.server: 'localhost:8080'}\n",
			[]string{"line 6: cases[0].streams.application.server: must not be set beside queries", "API layer"}},
		{"application.server in restore, queries in a case",
			"fill: {records: 100, keys: 10}\nrestore: {engine: kafka-streams, streams: {application.server: 'h:1'}}\ncases:\n  - name: a\n    scenario: warm\n    queries: {}\n",
			[]string{"cases[0].streams.application.server: must not be set beside queries"}},
		{"application.server beside a failover's queries",
			ks + "cases:\n  - name: f\n    scenario: failover\n    queries: {rate: 10}\n    streams: {application.server: 'h:1'}\n",
			[]string{"streams.application.server: must not be set beside queries"}},
		{"application.server without queries", ks + "cases:\n  - name: a\n    streams: {application.server: 'h:1'}\n", nil},
	} {
		_, err := Parse([]byte(tc.yaml), "p.yaml")
		if tc.want == nil {
			if err != nil {
				t.Errorf("%s: %v, want it accepted", tc.name, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: accepted, want an error naming %q", tc.name, tc.want)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not name %q", tc.name, err, w)
			}
		}
	}
}
