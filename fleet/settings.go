package fleet

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
	PropGroupProtocol   = "group.protocol"
	PropStandbys        = "num.standby.replicas"
	propMaxWarmups      = "max.warmup.replicas"
	PropAcceptableLag   = "acceptable.recovery.lag"
	PropProbingInterval = "probing.rebalance.interval.ms"
	propSessionTimeout  = "session.timeout.ms"
	PropGroupInstanceID = "group.instance.id"
	PropCloseLeaveGroup = ksdriver.PropCloseLeaveGroup
)

// StreamsSettings are the Kafka Streams settings a scale-out or rolling
// restart depends on, read from a case's streams properties with Kafka
// Streams 4.4's defaults for what it does not set.
type StreamsSettings struct {
	Protocol   string
	Threads    int
	Standbys   int
	MaxWarmups int
	Acceptable int64
	Probing    time.Duration
	Session    time.Duration
}

// SettingsOf reads a case's settings; a value that is not a number is an
// error naming the property.
func SettingsOf(c config.Case) (StreamsSettings, error) {
	s := StreamsSettings{
		Protocol: warmup.ProtocolClassic, Threads: c.Threads, MaxWarmups: warmup.DefaultMaxWarmupReplicas,
		Acceptable: warmup.DefaultAcceptableRecoveryLag, Probing: warmup.DefaultProbingIntervalSeconds * time.Second,
		Session: warmup.DefaultSessionTimeout,
	}
	if p := strings.ToLower(strings.TrimSpace(c.Streams[PropGroupProtocol])); p != "" {
		s.Protocol = p
	}
	if s.Protocol != warmup.ProtocolClassic && s.Protocol != warmup.ProtocolStreams {
		return s, fmt.Errorf("streams.%s: %q is not classic or streams", PropGroupProtocol, s.Protocol)
	}
	ints := []struct {
		key string
		set func(int64)
	}{
		{PropStandbys, func(v int64) { s.Standbys = int(v) }},
		{propMaxWarmups, func(v int64) { s.MaxWarmups = int(v) }},
		{PropAcceptableLag, func(v int64) { s.Acceptable = v }},
		{PropProbingInterval, func(v int64) { s.Probing = time.Duration(v) * time.Millisecond }},
		{sessionKey(c.Streams), func(v int64) { s.Session = time.Duration(v) * time.Millisecond }},
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

// sessionKey is the property the main consumer's session.timeout.ms comes
// from in streams, as Kafka Streams takes it (config.ConsumerKeys): the
// first of main.consumer., consumer. and unprefixed that is set, else the
// unprefixed name.
func sessionKey(streams map[string]string) string {
	for _, k := range config.ConsumerKeys(config.PrefixMainConsumer, propSessionTimeout) {
		if _, ok := streams[k]; ok {
			return k
		}
	}
	return propSessionTimeout
}

// UnboundedLag is acceptable.recovery.lag's value for "every client is
// caught up" (Long.MAX_VALUE), with which the assignor moves tasks at once.
var UnboundedLag = strconv.FormatInt(math.MaxInt64, 10)
