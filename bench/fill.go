package bench

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/internal/progress"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/measure"
	"github.com/restorebench/restorebench/runs"
)

// FillRequest is what a fill must produce.
type FillRequest struct {
	Topic       string
	Spec        loadgen.Spec
	Compression string
	// Refill deletes and refills a topic that exists but does not hold this
	// fill; without it such a topic is an error, so nobody's data is lost.
	Refill bool
	// TopicConfigs are extra topic configs (cleanup.policy=compact is always set).
	TopicConfigs map[string]string
}

// FillOutcome is a fill made now or found and reused.
type FillOutcome struct {
	Manifest *loadgen.Manifest
	Reused   bool
	Series   []measure.Point
}

// ToResults converts the outcome for results.json.
func (o FillOutcome) ToResults() *runs.Fill {
	m := o.Manifest
	spec := m.Spec
	return &runs.Fill{
		Topic:           m.Topic,
		Spec:            &spec,
		Compression:     m.Compression,
		Reused:          o.Reused,
		FilledAt:        m.FilledAt,
		Records:         m.Totals.Records,
		Tombstones:      m.Totals.Tombstones,
		Bytes:           m.Totals.Bytes,
		DurationSeconds: m.DurationSeconds,
		RecordsPerSec:   runs.PerSec(m.Totals.Records, m.DurationSeconds),
		MBPerSec:        runs.MBPerSec(m.Totals.Bytes, m.DurationSeconds),
		Offsets:         m.Offsets,
		Expected:        m.Expected,
		Series:          o.Series,
	}
}

// EnsureFill makes the topic hold the requested fill: it reuses an earlier
// fill whose manifest matches and whose topic still ends at the recorded
// offsets, and otherwise creates and fills the topic.
func (e *Env) EnsureFill(ctx context.Context, req FillRequest) (FillOutcome, error) {
	if err := req.Spec.Validate(); err != nil {
		return FillOutcome{}, err
	}
	adm, closeAdm, err := e.Admin()
	if err != nil {
		return FillOutcome{}, err
	}
	defer closeAdm()
	path := loadgen.ManifestPath(e.Opts.DataDir, e.ClusterID, req.Topic)
	m, err := loadgen.LoadManifest(path)
	if err != nil {
		return FillOutcome{}, err
	}
	offsets, err := cluster.Offsets(ctx, adm, req.Topic)
	exists := err == nil
	if err != nil && !errors.Is(err, cluster.ErrTopicNotFound) {
		return FillOutcome{}, err
	}
	if exists {
		why := "no fill manifest for it in " + e.Opts.DataDir
		if m != nil {
			if ok, reason := m.Matches(req.Spec, req.Compression); !ok {
				why = reason
			} else if !sameEnds(m.Offsets, offsets) {
				why = "its end offsets changed since it was filled"
			} else {
				e.Logf("fill: reusing %s (%d records, %s, filled %s)", req.Topic, m.Totals.Records,
					formatBytes(m.Totals.Bytes), m.FilledAt.Format(time.RFC3339))
				return FillOutcome{Manifest: m, Reused: true}, nil
			}
		}
		if !req.Refill {
			return FillOutcome{}, fmt.Errorf("topic %s already exists and does not hold this fill (%s); pass --refill to delete and refill it", req.Topic, why)
		}
		e.Logf("fill: deleting %s to refill it (%s)", req.Topic, why)
		if err := cluster.DeleteTopic(ctx, adm, req.Topic); err != nil {
			return FillOutcome{}, err
		}
	}
	if err := createWithRetry(ctx, adm, req); err != nil {
		return FillOutcome{}, err
	}
	return e.fill(ctx, req, path)
}

// createWithRetry creates the topic, retrying while a just-deleted topic of
// the same name is still being removed (real Kafka deletes asynchronously).
func createWithRetry(ctx context.Context, adm *kadm.Client, req FillRequest) error {
	deadline := time.Now().Add(60 * time.Second)
	for {
		err := cluster.CreateChangelog(ctx, adm, req.Topic, req.Spec.Partitions, req.TopicConfigs)
		if err == nil || time.Now().After(deadline) || ctx.Err() != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

func (e *Env) fill(ctx context.Context, req FillRequest, manifestPath string) (FillOutcome, error) {
	popts, err := loadgen.ProducerOpts(req.Compression)
	if err != nil {
		return FillOutcome{}, err
	}
	cl, err := cluster.NewClient(e.Cluster, popts...)
	if err != nil {
		return FillOutcome{}, err
	}
	defer cl.Close()

	total := req.Spec.TargetBytes
	if total == 0 {
		total = req.Spec.Records * int64(16+(req.Spec.ValueMin+req.Spec.ValueMax)/2)
	}
	e.Logf("fill: writing %s to %s (%d partitions, %d keys, values %d-%d B, %s compression)",
		formatBytes(total), req.Topic, req.Spec.Partitions, req.Spec.Keys, req.Spec.ValueMin, req.Spec.ValueMax, req.Compression)
	bar := e.progress.Start("fill", total, progress.Bytes)
	var counter measure.Counter
	counter.Start(time.Second)
	var lastBytes int64
	start := time.Now()
	tot, err := loadgen.Produce(ctx, cl, req.Topic, req.Spec, func(records, bytes int64) {
		counter.Add(1, bytes-lastBytes)
		if records%512 == 0 {
			bar.Set(bytes)
		}
		lastBytes = bytes
	})
	dur := time.Since(start)
	series := counter.Stop()
	bar.Done()
	if err != nil {
		return FillOutcome{}, fmt.Errorf("fill %s: %w (the partial fill is left without a manifest and will not be reused)", req.Topic, err)
	}
	offsets, err := e.Offsets(ctx, req.Topic)
	if err != nil {
		return FillOutcome{}, err
	}
	e.Logf("fill: %d records, %s in %s (%.1f MB/s); deriving the expected state from the generator",
		tot.Records, formatBytes(tot.Bytes), dur.Round(time.Millisecond), runs.MBPerSec(tot.Bytes, dur.Seconds()))
	expected, gen, err := loadgen.Expect(req.Spec)
	if err != nil {
		return FillOutcome{}, err
	}
	if gen.Records != tot.Records {
		return FillOutcome{}, fmt.Errorf("fill %s: produced %d records but the generator derives %d", req.Topic, tot.Records, gen.Records)
	}
	m := &loadgen.Manifest{
		Version:         loadgen.ManifestVersion,
		Topic:           req.Topic,
		ClusterID:       e.ClusterID,
		Spec:            req.Spec,
		Compression:     req.Compression,
		FilledAt:        start.UTC(),
		DurationSeconds: dur.Seconds(),
		Totals:          tot,
		Offsets:         toPartitionOffsets(offsets),
		Expected:        expected,
	}
	if err := checkOffsetsCoverRecords(m); err != nil {
		return FillOutcome{}, err
	}
	if err := m.Save(manifestPath); err != nil {
		return FillOutcome{}, err
	}
	return FillOutcome{Manifest: m, Series: series}, nil
}

// checkOffsetsCoverRecords catches a fill the broker did not fully keep:
// each partition must have grown by at least the records produced to it.
func checkOffsetsCoverRecords(m *loadgen.Manifest) error {
	for _, pc := range m.Totals.PerPart {
		for _, o := range m.Offsets {
			if o.Partition == pc.Partition && o.End-o.Start < pc.Records {
				return fmt.Errorf("fill %s: partition %d holds offsets %d..%d but %d records were produced to it",
					m.Topic, o.Partition, o.Start, o.End, pc.Records)
			}
		}
	}
	return nil
}

func toPartitionOffsets(o cluster.TopicOffsets) []loadgen.PartitionOffsets {
	var out []loadgen.PartitionOffsets
	for _, p := range o.Partitions() {
		out = append(out, loadgen.PartitionOffsets{Partition: p, Start: o.Start[p], End: o.End[p]})
	}
	return out
}

func sameEnds(recorded []loadgen.PartitionOffsets, now cluster.TopicOffsets) bool {
	if len(recorded) != len(now.End) {
		return false
	}
	for _, r := range recorded {
		if end, ok := now.End[r.Partition]; !ok || end != r.End {
			return false
		}
	}
	return true
}

// endsOf are a manifest's recorded end offsets by partition.
func endsOf(recorded []loadgen.PartitionOffsets) map[int32]int64 {
	m := make(map[int32]int64, len(recorded))
	for _, r := range recorded {
		m[r.Partition] = r.End
	}
	return m
}

func formatBytes(b int64) string {
	const unit = 1000
	if b < unit {
		return fmt.Sprintf("%d B", b)
	}
	div, exp := int64(unit), 0
	for n := b / unit; n >= unit; n /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %cB", float64(b)/float64(div), "kMGTPE"[exp])
}
