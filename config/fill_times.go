package config

import (
	"time"

	"github.com/restorebench/restorebench/loadgen"
)

// MaxTimestampAhead is how far ahead of the broker's clock Kafka accepts a
// record's CreateTime: message.timestamp.after.max.ms (log.message.
// timestamp.after.max.ms), 1 hour by default since Kafka 4.0. A record
// stamped further ahead is refused with INVALID_TIMESTAMP. Timestamps in
// the past are accepted (message.timestamp.before.max.ms is unbounded by
// default), and a timed fill's are never negative: they start at
// loadgen.EventTimeBase.
const MaxTimestampAhead = time.Hour

// timeNow is the clock a timed fill's last timestamp is held against
// (tests move it).
var timeNow = time.Now

// checkEventTimes refuses a timed fill whose records would be stamped
// further ahead than Kafka accepts: its event times run from
// loadgen.EventTimeBase over time_range, and a session fill's records are
// stamped with their session's end, up to window (window_size) later.
// Naming the field here, when the profile is read, instead of the broker
// refusing the fill's first late batch with INVALID_TIMESTAMP.
func checkEventTimes(k StoreKind, timeRange, window Duration) error {
	base := time.UnixMilli(loadgen.EventTimeBase).UTC()
	limit := timeNow().Add(MaxTimestampAhead)
	room := limit.Sub(base) // the most the records may span from base
	last := base.Add(timeRange.D())
	if timeRange.D() > room {
		return fieldErr("time_range", "%s stamps the last record %s (a timed fill's event times start at %s), more than %s "+
			"ahead of now: Kafka refuses records timestamped further ahead (message.timestamp.after.max.ms, "+
			"1 h by default) with INVALID_TIMESTAMP; at most %s now",
			timeRange, last.Format(time.RFC3339), base.Format(time.RFC3339), Duration(MaxTimestampAhead), Duration(max(room, 0).Truncate(time.Minute)))
	}
	if !k.StampsAhead() {
		return nil
	}
	if window.D() > room-timeRange.D() { // not the sum: both may be near the largest Duration
		return fieldErr("window_size", "%s after time_range %s stamps the last session's end %s, more than %s ahead of "+
			"now: Kafka refuses records timestamped further ahead (message.timestamp.after.max.ms, 1 h by "+
			"default) with INVALID_TIMESTAMP; time_range plus window_size at most %s now",
			window, timeRange, last.Add(window.D()).Format(time.RFC3339), Duration(MaxTimestampAhead), Duration(max(room, 0).Truncate(time.Minute)))
	}
	return nil
}
