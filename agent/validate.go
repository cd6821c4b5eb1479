package agent

import (
	"fmt"
	"time"
)

// An agent checks every field of every command itself, as strictly as a
// profile is checked, before it acts on any: a signed command comes from a
// holder of the key, but a coordinator's bug (or a stolen key) must still
// not reach past the agent's state directory, run a command through a JVM
// flag, or write to a topic that is not the run's.
//
// Bounds of what one command may ask.
const (
	// maxProcessN bounds a start's process number: restarts of one
	// instance within a run.
	maxProcessN = 10_000
	// maxProperties and maxPropertyBytes bound a start's properties.
	maxProperties    = 512
	maxPropertyBytes = 64 << 10
	// maxJVMFlags bounds a start's JVM flags.
	maxJVMFlags = 64
	// maxOffsetPartitions bounds a model restore's offset maps.
	maxOffsetPartitions = 100_000
	// MaxFillBytes bounds the records a fill command may write on an agent
	// (its spec's estimate): 1 TiB, far past what a benchmark fills.
	MaxFillBytes = 1 << 40
	// minLeaseTTL and maxLeaseTTL bound a lease's time to live.
	minLeaseTTL = 100 * time.Millisecond
	maxLeaseTTL = time.Hour
	// maxQueriesAfter bounds how long a queries_stop lets a load go on.
	maxQueriesAfter = time.Hour
)

// validLeaseTTL is a lease's time to live, or an error when out of bounds.
func validLeaseTTL(ms int64) (time.Duration, error) {
	// Bounded in ms before it becomes a Duration, which a count of ms
	// past 2^63 ns would wrap into another (in-range) value.
	if ms != 0 && (ms < minLeaseTTL.Milliseconds() || ms > maxLeaseTTL.Milliseconds()) {
		return 0, fmt.Errorf("a lease of %d ms: must be from %s to %s", ms, minLeaseTTL, maxLeaseTTL)
	}
	return time.Duration(ms) * time.Millisecond, nil
}
