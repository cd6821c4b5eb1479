package capacity

import "github.com/restorebench/restorebench/warmup"

// FailureDetection is the one model of failure detection: the seconds
// from an instance's death to its survivors' rejoining, for a group with
// session timeout s and heartbeat interval hb (seconds) whose survivors run
// members stream threads (at least one counted). The coordinator expires
// the dead member s after its last heartbeat, which came up to hb before
// the death (uniformly: s − U·hb), and the rebalance waits for the last
// survivor to hear of it at its next heartbeat (the latest of members
// uniform draws in [0, hb], expected hb·members/(members+1)). Its value is
// the expectation, its interval [s − hb, s + hb]. With one member the
// heartbeat terms cancel on average and the value is s itself.
func FailureDetection(s, hb float64, members int) Figure {
	m := float64(max(members, 1))
	return SecondsFigure(s-hb/2+hb*m/(m+1), s-hb, s+hb)
}

// DefaultFailureDetectionSeconds is how long Kafka takes by default to
// notice a dead instance, as the planner prices it when no failover run
// measured it: FailureDetection's value at Kafka's default session
// timeout (session.timeout.ms, classic protocol, and
// group.streams.session.timeout.ms, streams protocol, both 45 s) for one
// surviving member, which is that timeout. The planner does not know the
// survivors' threads then, and more of them would add at most one
// heartbeat interval (3 s), inside FailureDetection's interval.
var DefaultFailureDetectionSeconds = FailureDetection(warmup.DefaultSessionTimeout.Seconds(), warmup.DefaultHeartbeatInterval.Seconds(), 1).Value
