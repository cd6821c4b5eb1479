package fleet

import (
	"strings"
	"testing"
	"time"

	"github.com/restorebench/restorebench/config"
)

// TestSettingsOfTakesSessionTimeoutAsKafkaStreams checks that the session
// timeout a rolling restart is judged against is the main consumer's as
// Kafka Streams takes it: main.consumer. over consumer. over unprefixed,
// Kafka's 45 s when none is set, and an error naming the key set.
func TestSettingsOfTakesSessionTimeoutAsKafkaStreams(t *testing.T) {
	cases := []struct {
		streams map[string]string
		want    time.Duration
	}{
		{nil, 45 * time.Second},
		{map[string]string{"session.timeout.ms": "10000"}, 10 * time.Second},
		{map[string]string{"consumer.session.timeout.ms": "12000", "session.timeout.ms": "10000"}, 12 * time.Second},
		{map[string]string{"main.consumer.session.timeout.ms": "6000", "consumer.session.timeout.ms": "12000"}, 6 * time.Second},
	}
	for _, tc := range cases {
		s, err := SettingsOf(config.Case{Threads: 1, Streams: tc.streams})
		if err != nil || s.Session != tc.want {
			t.Errorf("streams %v: session %v, %v; want %v", tc.streams, s.Session, err, tc.want)
		}
	}
	_, err := SettingsOf(config.Case{Threads: 1, Streams: map[string]string{"main.consumer.session.timeout.ms": "soon"}})
	if err == nil || !strings.Contains(err.Error(), "streams.main.consumer.session.timeout.ms") {
		t.Errorf("a bad main.consumer.session.timeout.ms: %v, want an error naming it", err)
	}
}
