package scenario

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/warmup"
)

// Kafka Streams property names the fleet scenarios set or read.
const (
	propGroupProtocol       = "group.protocol"
	propStandbys            = "num.standby.replicas"
	propMaxWarmups          = "max.warmup.replicas"
	propAcceptableLag       = "acceptable.recovery.lag"
	propProbingInterval     = "probing.rebalance.interval.ms"
	propSessionTimeout      = "session.timeout.ms"
	propGroupInstanceID     = "group.instance.id"
	propCloseLeaveGroup     = ksdriver.PropCloseLeaveGroup
	defaultSessionTimeoutMs = 45_000
)

// streamsSettings are the Kafka Streams settings a scale-out or rolling
// restart depends on, read from a case's streams properties with Kafka
// Streams 4.4's defaults for what it does not set.
type streamsSettings struct {
	protocol   string
	threads    int
	standbys   int
	maxWarmups int
	acceptable int64
	probing    time.Duration
	session    time.Duration
}

// settingsOf reads a case's settings; a value that is not a number is an
// error naming the property.
func settingsOf(c config.Case) (streamsSettings, error) {
	s := streamsSettings{
		protocol: warmup.ProtocolClassic, threads: c.Threads, maxWarmups: warmup.DefaultMaxWarmupReplicas,
		acceptable: warmup.DefaultAcceptableRecoveryLag, probing: warmup.DefaultProbingIntervalSeconds * time.Second,
		session: defaultSessionTimeoutMs * time.Millisecond,
	}
	if p := strings.ToLower(strings.TrimSpace(c.Streams[propGroupProtocol])); p != "" {
		s.protocol = p
	}
	if s.protocol != warmup.ProtocolClassic && s.protocol != warmup.ProtocolStreams {
		return s, fmt.Errorf("streams.%s: %q is not classic or streams", propGroupProtocol, s.protocol)
	}
	ints := []struct {
		key string
		set func(int64)
	}{
		{propStandbys, func(v int64) { s.standbys = int(v) }},
		{propMaxWarmups, func(v int64) { s.maxWarmups = int(v) }},
		{propAcceptableLag, func(v int64) { s.acceptable = v }},
		{propProbingInterval, func(v int64) { s.probing = time.Duration(v) * time.Millisecond }},
		{propSessionTimeout, func(v int64) { s.session = time.Duration(v) * time.Millisecond }},
	}
	for _, i := range ints {
		v, ok := c.Streams[i.key]
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return s, fmt.Errorf("streams.%s: %q is not a whole number", i.key, v)
		}
		i.set(n)
	}
	return s, nil
}

// unboundedLag is acceptable.recovery.lag's value for "every client is
// caught up" (Long.MAX_VALUE), with which the assignor moves tasks at once.
var unboundedLag = strconv.FormatInt(math.MaxInt64, 10)
