package config

import (
	"strings"
	"testing"
	"time"

	"github.com/restorebench/restorebench/loadgen"
)

// TestTimedFillEndsWithinWhatKafkaAccepts holds a timed fill's last
// timestamp against the clock: Kafka refuses a record stamped more than
// message.timestamp.after.max.ms (1 h by default) ahead of now, so with
// the clock 10 h after the fills' first event time a time_range of 11 h is
// the most accepted, and a session fill's last end adds its window.
func TestTimedFillEndsWithinWhatKafkaAccepts(t *testing.T) {
	defer func(f func() time.Time) { timeNow = f }(timeNow)
	timeNow = func() time.Time { return time.UnixMilli(loadgen.EventTimeBase).Add(10 * time.Hour) }
	records := int64(1000)
	for _, tc := range []struct {
		kind          StoreKind
		tr, window    time.Duration
		wantField     string // "" accepted
		wantMostTotal string
	}{
		{StoreWindow, 11 * time.Hour, 0, "", ""},
		{StoreWindow, 11*time.Hour + time.Minute, 0, "time_range", "at most 11h0m0s now"},
		{StoreTimestampedKeyValue, 12 * time.Hour, 0, "time_range", "at most 11h0m0s now"},
		{StoreVersionedKeyValue, 12 * time.Hour, 0, "time_range", ""},
		{StoreSession, 10 * time.Hour, time.Hour, "", ""},
		{StoreSession, 10 * time.Hour, 2 * time.Hour, "window_size", "time_range plus window_size at most 11h0m0s now"},
	} {
		f := DefaultFill()
		f.Records, f.Keys, f.StoreKind, f.TimeRange, f.WindowSize = &records, 10, tc.kind, Duration(tc.tr), Duration(tc.window)
		if tc.kind == StoreSession {
			f.Retention = Duration(max(tc.window, time.Hour))
		}
		_, err := f.Spec()
		switch {
		case tc.wantField == "" && err != nil:
			t.Errorf("%s over %s (window %s): %v, want it accepted", tc.kind, tc.tr, tc.window, err)
		case tc.wantField != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.wantField+":") || !strings.Contains(err.Error(), tc.wantMostTotal)):
			t.Errorf("%s over %s (window %s): %v, want an error naming %s and %q", tc.kind, tc.tr, tc.window, err, tc.wantField, tc.wantMostTotal)
		}
	}
}
