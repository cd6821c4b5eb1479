package fleet

// What a scenario is given: the run around it (Env), the topic it
// restores (Target) and the case it runs (Request).

import (
	"context"
	"errors"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/restorebench/restorebench/agent"
	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/internal/progress"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/runs"
)

// WithAdmin runs fn with an admin client of the env's cluster: the run's
// shared one (Admin), or one opened for fn and closed after it.
func (e *Env) WithAdmin(fn func(*kadm.Client) error) error {
	adm, done, err := e.AdminClient()
	if err != nil {
		return err
	}
	defer done()
	return fn(adm)
}

// AdminClient is an admin client of the env's cluster and the function to
// call when done with it: the run's shared one (Admin), kept open, or a
// client of its own, closed by it.
func (e *Env) AdminClient() (*kadm.Client, func(), error) {
	if e.Admin != nil {
		adm, err := e.Admin()
		return adm, func() {}, err
	}
	adm, cl, err := cluster.NewAdmin(e.Cluster)
	if err != nil {
		return nil, nil, err
	}
	return adm, cl.Close, nil
}

// Env is what a scenario needs from the run around it.
type Env struct {
	// Cluster is how to reach the brokers.
	Cluster cluster.Config
	// Admin returns the run's one admin client, shared by the scenarios,
	// fleets and watches; its users never close it. Nil (an Env made by
	// hand, an agent's): WithAdmin and AdminClient open a client per use.
	Admin func() (*kadm.Client, error)
	// Offsets lists a topic's start and end offsets now.
	Offsets func(ctx context.Context, topic string) (cluster.TopicOffsets, error)
	// Logf writes one progress line.
	Logf func(format string, args ...any)
	// Progress shows long work.
	Progress *progress.Reporter
	// StallTimeout fails a restore when no record arrives for this long.
	StallTimeout time.Duration
	// OnProgress, if set, is told the records restored as a restore goes (tests use it to act mid-restore).
	OnProgress func(records int64)
	// CompactNow, on the embedded broker, runs its log cleaner at once (its
	// own runs hourly); nil on a real broker, whose cleaner runs by itself.
	CompactNow func()
	// Agents, when set, runs the kafka-streams engine's fleet instances on
	// agents (`run --agents`) instead of this machine. Default nil: local.
	Agents *agent.Coordinator
	// Queries starts a kafka-streams query load from this machine against
	// a local process's API layer (queryload.QueriesAt, what an agent runs
	// from its host); nil: a case with queries fails to start them.
	Queries agent.QueryStarter
	// Owned is the record of the topics restorebench created on the
	// cluster (owned.go): only those, and groups holding offsets on
	// nothing else, are written, altered or deleted. Everything on the
	// embedded broker; nil owns nothing.
	Owned *cluster.Owned
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
	// TopicEntries reads one partition of a topic restorebench did not
	// fill key by key, to the end offsets it was verified against
	// (topicshape.Entries), so a restore that does not verify names the
	// key it got wrong (nameDifference); nil for a fill, and for a topic
	// counted without an independent read.
	TopicEntries func(ctx context.Context, partition int32) (map[string]uint64, error)
	// Partitions, when set, are the only partitions of Topic restored
	// (restore --partitions: a sample of a topic's tasks, each at its full
	// size), ascending; Expected and Ends then hold those partitions
	// only. Nil (default): every partition.
	Partitions []int32
	// SampleCopy, when set, says Topic is restorebench's copy of the
	// sampled Partitions of the user's topic SampledFrom (the kafka-streams
	// engine restores a sample from it): a cold restore records
	// SampledFrom as its topic, the copy as its sample_copy, and verifies
	// the sampled partitions only, the copy's others having to restore
	// nothing. Nil (default): Topic is the topic restored.
	SampleCopy  *runs.SampleCopy
	SampledFrom string
}

// Offsets are the offsets of the partitions t restores: o restricted to
// t.Partitions when it names a sample.
func (t Target) Offsets(o cluster.TopicOffsets) cluster.TopicOffsets { return o.Only(t.Partitions) }

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
	// Changer changes the filled topic for scenarios that write to it
	// (warm restarts, standbys); nil when the topic may not be changed.
	Changer Changer
	// Spec is the fill's generator spec; nil for a topic restorebench did
	// not fill.
	Spec *loadgen.Spec
}

// Changer changes a topic restorebench filled, recording every change so
// what the topic must hold stays known (bench.Changer).
type Changer interface {
	// Append writes n more records of the fill's generator at perSecond
	// records a second (0: as fast as it goes) and returns how many it
	// wrote; closing stop (nil: never) ends the writing early but cleanly.
	Append(ctx context.Context, by string, n int64, perSecond float64, stop <-chan struct{}) (int64, error)
	// AppendVia is Append through topic (the kv topology's input topic,
	// partitioned as the changelog): Kafka Streams puts each record into its
	// store and so appends it to the changelog; the records count as
	// appended to the changelog.
	AppendVia(ctx context.Context, by, topic string, n int64, perSecond float64, stop <-chan struct{}) (int64, error)
	// DeletePrefix deletes each partition's records below the offsets given.
	DeletePrefix(ctx context.Context, by string, below map[int32]int64) error
	// Expected derives the state a restore of the topic must end with now.
	Expected() ([]loadgen.PartitionState, error)
	// ExpectedApplied derives the state of a store that applied only the
	// records at the offsets applied accepts (of everything written).
	ExpectedApplied(applied func(p int32, offset int64) bool) ([]loadgen.PartitionState, error)
	// FillRecords is how many records the fill itself wrote.
	FillRecords() int64
	// Spec is the generator spec of everything the topic holds now: the
	// fill's, extended by the records appended since.
	Spec() loadgen.Spec
	// Reset makes the topic hold exactly the fill again (refilling it if a
	// scenario changed it).
	Reset(ctx context.Context) error
}

// ErrUnverified marks a restore whose contents did not match the expected state.
var ErrUnverified = errors.New("restore did not verify")

// ErrNoChanger is a warm or standby run on a topic that may not be changed.
var ErrNoChanger = errors.New("this scenario writes to the changelog, which must be one restorebench filled (run it from a profile)")

// Step is the request's step of kind k (its parameters the caller's).
func (req Request) Step(k runs.StepKind) runs.Step {
	return runs.Step{Case: req.Case.Name, Kind: k}
}
