package scenario

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/internal/progress"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/runs"
)

// Env is what a scenario needs from the run around it.
type Env struct {
	// Cluster is how to reach the brokers.
	Cluster cluster.Config
	// Offsets lists a topic's start and end offsets now.
	Offsets func(ctx context.Context, topic string) (cluster.TopicOffsets, error)
	// Logf writes one progress line.
	Logf func(format string, args ...any)
	// Progress shows long work.
	Progress *progress.Reporter
	// StallTimeout fails a restore when no record arrives for this long.
	StallTimeout time.Duration
	// OnProgress, if set, is told the records restored so far as a restore
	// goes (tests use it to act mid-restore).
	OnProgress func(records int64)
}

// Target is the changelog a case restores and what it must hold.
type Target struct {
	Topic     string
	AppID     string
	StoreName string
	// Expected is the state a correct restore ends with, derived from the
	// fill's spec; nil for a topic restorebench did not fill, which is then
	// counted and reported as not verified.
	Expected []loadgen.PartitionState
	// Ends are the end offsets the fill recorded; a topic that no longer
	// ends there does not hold the fill any more. Nil when unknown.
	Ends map[int32]int64
}

// Request is one case × repeat to run.
type Request struct {
	Case   config.Case
	Repeat int
	// StateDir is Kafka Streams' state.dir for this run's instances.
	StateDir string
	// KeepState leaves the restored stores on disk afterwards.
	KeepState bool
	// Ready measures the phase after the restore until the store can serve.
	Ready bool
	// Limits, if set, are the case's fetch-only and write-only limits; the
	// restore's efficiency is computed against them.
	Limits *runs.Limits
}

// Scenario runs one request and returns its record, filled in as far as
// the run got, also on error.
type Scenario interface {
	Run(ctx context.Context, env *Env, t Target, req Request) (runs.Restore, error)
}

// ErrUnverified marks a restore whose contents did not match the expected state.
var ErrUnverified = errors.New("restore did not verify")

// For returns the scenario a case asks for on its engine.
func For(c config.Case) (Scenario, error) {
	switch {
	case c.Scenario == config.ScenarioCold && c.Engine == config.EngineModel:
		return ColdModel{}, nil
	}
	return nil, fmt.Errorf("case %s: scenario %s is not available on the %s engine", c.Name, c.Scenario, c.Engine)
}
