package bench

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/restorebench/restorebench/capacity"
	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/fleet"
	"github.com/restorebench/restorebench/internal/listing"
	"github.com/restorebench/restorebench/internal/progress"
	"github.com/restorebench/restorebench/internal/units"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/runs"
	"github.com/restorebench/restorebench/topicshape"
)

// A SampleSource is what the restores of a sample of one topic's
// partitions share (plan --measure restores each sampled partition alone,
// then them together, each a run of its own): each partition's
// independent read, made once and reused while the partition's offsets
// stay as they were read, and on the kafka-streams engine one copy topic
// (sample_copy.go), created once, in which before each restore exactly
// the partitions it restores hold records: those missing are copied,
// those it does not restore are emptied (DeleteRecords up to their end;
// the copy is restorebench's, cleanup.policy=delete). Restored in the
// order SampleOrder gives, every sampled partition is copied once for two
// partitions, and for more only the smaller ones twice. Close deletes the
// copy; a SampleSource is used by one goroutine at a time.
type SampleSource struct {
	env   *Env
	topic string
	// reads are the independent reads made, by partition.
	reads map[int32]*partitionRead
	// copy is the copy topic once created (nil before).
	copy *copyTopic
}

// partitionRead is one partition's independent read and the offsets it
// was made at; state is nil for a partition with more live keys than a
// read keeps (its restores are counted, not verified). by says which read
// it was, for the log.
type partitionRead struct {
	start, end int64
	opts       topicshape.StateOptions
	state      *topicshape.TopicState
	by         string
}

// byEarlierRestore and byShapeRead are partitionRead.by.
const (
	byEarlierRestore = "for an earlier restore of this sample"
	byShapeRead      = "with the topic's shape, before the restores"
)

// copyTopic is restorebench's copy of sampled partitions: its name, its
// max.message.bytes, what each partition holding records holds, and the
// offsets of the source partition it was copied from.
type copyTopic struct {
	name     string
	maxBytes int32
	held     map[int32]cluster.CopyStats
	from     map[int32]cluster.OffsetRange
}

// NewSampleSource is a SampleSource of topic on e; the restores that share
// it pass it as RestoreTopicOptions.Sample. Nothing is read or written
// until the first restore.
func (e *Env) NewSampleSource(topic string) *SampleSource {
	return &SampleSource{env: e, topic: topic, reads: map[int32]*partitionRead{}}
}

// Know takes what a read of the topic's shape folded
// (topicshape.ReadWithStates: plan --from-topic) as the independent reads
// of those partitions: a restore uses one while its partition's offsets
// are those it was read at and the restore reads the topic with the
// options they were folded with, as it uses a read of its own; otherwise
// it reads again. So the sampled partitions are read once before the
// restores, not twice; one too large to verify is counted, not verified,
// without being read again.
func (s *SampleSource) Know(folded topicshape.Folded) {
	at, opts := folded.Offsets, folded.Options
	for p, st := range folded.States {
		s.reads[p] = &partitionRead{start: at.Start[p], end: at.End[p], opts: opts, state: &st, by: byShapeRead}
	}
	for _, p := range folded.TooManyKeys {
		s.env.Logf("restore: %s will be counted, not verified: partition %d %v (%d), as the read of its shape found",
			s.topic, p, topicshape.ErrTooManyKeys, folded.MaxKeys)
		s.reads[p] = &partitionRead{start: at.Start[p], end: at.End[p], opts: opts, by: byShapeRead}
	}
}

// Close deletes the copy topic if one was made, on a context of its own
// (the run's may be cancelled by then); a copy it cannot delete is a
// warning naming it.
func (s *SampleSource) Close() {
	if s == nil || s.copy == nil {
		return
	}
	s.env.deleteSampleCopy(s.env.scenarioEnvOwned(), s.copy.name)
	s.copy = nil
}

// SampleOrder orders the restores of a sample (each sampled partition
// alone, and the sample together) so that a SampleSource copies least:
// the partitions alone from the smallest by size (sizes by partition), the
// largest last, the sample together just before it. Then each partition
// alone is copied and kept until the next, the together restore copies
// what is missing, and the largest alone only drops the others.
func SampleOrder(restores [][]int32, size func(int32) float64) [][]int32 {
	var alone, together [][]int32
	for _, ps := range restores {
		if len(ps) == 1 {
			alone = append(alone, ps)
		} else {
			together = append(together, ps)
		}
	}
	slices.SortStableFunc(alone, func(a, b []int32) int {
		sa, sb := size(a[0]), size(b[0])
		switch {
		case sa < sb:
			return -1
		case sa > sb:
			return 1
		}
		return int(a[0] - b[0])
	})
	if len(alone) == 0 {
		return together
	}
	out := append(slices.Clone(alone[:len(alone)-1]), together...)
	return append(out, alone[len(alone)-1])
}

// read is the independent read of partitions ps of the source's topic
// (offsets are the topic's now), read with opts: each partition's earlier
// read where its offsets have not moved since, the others read now. nil
// when a partition holds more live keys than a read keeps (the restore is
// counted, not verified; why says so in the log).
func (s *SampleSource) read(ctx context.Context, ps []int32, offsets cluster.TopicOffsets, opts topicshape.StateOptions,
	why string) (*topicshape.TopicState, error) {
	e := s.env
	var fresh []int32
	reused := map[string][]int32{}
	for _, p := range ps {
		r := s.reads[p]
		if r != nil && r.start == offsets.Start[p] && r.end == offsets.End[p] && sameReadOptions(r.opts, opts) {
			reused[r.by] = append(reused[r.by], p)
		} else {
			fresh = append(fresh, p)
		}
	}
	if len(fresh) > 0 {
		e.Logf("restore: %s: %s; reading %s independently to verify the restore against", s.topic, why, capacity.NamePartitions(fresh))
	}
	for _, p := range fresh {
		po := opts
		po.Partitions = []int32{p}
		st, err := topicshape.State(ctx, e.Cluster, s.topic, po)
		if errors.Is(err, topicshape.ErrTooManyKeys) {
			e.Logf("restore: %s will be counted, not verified: partition %d: %v", s.topic, p, err)
			s.reads[p] = &partitionRead{start: offsets.Start[p], end: offsets.End[p], opts: opts, by: byEarlierRestore}
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("the independent read of %s, to verify its restore against: %w", s.topic, err)
		}
		s.reads[p] = &partitionRead{start: offsets.Start[p], end: offsets.End[p], opts: opts, state: &st, by: byEarlierRestore}
	}
	for _, by := range []string{byShapeRead, byEarlierRestore} {
		if len(reused[by]) > 0 {
			e.Logf("restore: %s: %s as read independently %s (the offsets have not moved)", s.topic, capacity.NamePartitions(reused[by]), by)
		}
	}
	return s.readOf(ps), nil
}

// readOf is the reads of partitions ps (each read) as one, nil when one of
// them is counted, not verified.
func (s *SampleSource) readOf(ps []int32) *topicshape.TopicState {
	parts := make([]*topicshape.TopicState, 0, len(ps))
	for _, p := range ps {
		if s.reads[p].state == nil {
			return nil
		}
		parts = append(parts, s.reads[p].state)
	}
	return mergeStates(parts)
}

// sameReadOptions says whether a read with a was one with b, whatever
// partitions each named.
func sameReadOptions(a, b topicshape.StateOptions) bool {
	a.Partitions, b.Partitions = nil, nil
	return reflect.DeepEqual(a, b)
}

// mergeStates is one read of the partitions of parts, each a read of other
// partitions of one topic: their states in partition order, their ends
// and restore counts, and their counts and times summed.
func mergeStates(parts []*topicshape.TopicState) *topicshape.TopicState {
	out := &topicshape.TopicState{Ends: map[int32]int64{}, Restored: map[int32]topicshape.RestoreCount{}}
	for _, st := range parts {
		out.Partitions = append(out.Partitions, st.Partitions...)
		for p, end := range st.Ends {
			out.Ends[p] = end
		}
		for p, c := range st.Restored {
			out.Restored[p] = c
		}
		out.Records += st.Records
		out.NullKeys += st.NullKeys
		out.HotRecords += st.HotRecords
		out.Seconds += st.Seconds
	}
	slices.SortFunc(out.Partitions, func(a, b loadgen.PartitionState) int { return int(a.Partition - b.Partition) })
	return out
}

// arrangeCopy makes the copy topic hold exactly the partitions o restores,
// each as far as the independent read went (read, nil when the topic is
// counted, not verified; else offsets' ends), and points target at it:
// creating the copy the first time (refusing a topic of its name that is
// not restorebench's), emptying the partitions an earlier restore left in
// it that o does not restore, copying those it lacks, and checking the
// copy's counts (and the partitions copied now against the read).
func (s *SampleSource) arrangeCopy(ctx context.Context, o RestoreTopicOptions, target *fleet.Target, offsets cluster.TopicOffsets,
	read *topicshape.TopicState) error {
	e := s.env
	env := e.scenarioEnvOwned()
	adm, done, err := env.AdminClient()
	if err != nil {
		return err
	}
	defer done()
	begin := time.Now()
	if s.copy == nil {
		if err := s.createCopy(ctx, o, adm, int32(len(offsets.End))); err != nil {
			return err
		}
	}
	c := s.copy
	wanted, _ := copyRanges(target, offsets, o.Partitions)
	drop, copyNow, kept := c.changes(o.Partitions, wanted)
	ranges, records := copyRanges(target, offsets, copyNow)
	s.sayCopy(ctx, adm, o, copyNow, kept, drop, records, len(offsets.End))
	if err := s.dropPartitions(ctx, adm, drop); err != nil {
		return err
	}
	var want *topicshape.TopicState
	var written *topicshape.Fold
	if read != nil && len(copyNow) > 0 {
		want = s.readOf(copyNow)
		if written, err = topicshape.NewFold(c.name, IndependentRead(o.Case), copyNow); err != nil {
			return err
		}
	}
	if err := s.copyPartitions(ctx, o, copyNow, ranges, records, written); err != nil {
		return err
	}
	ends, err := e.checkSampleCopy(ctx, o, c.name, c.held, copyNow, want, written)
	if err != nil {
		return err
	}
	sc := &runs.SampleCopy{Topic: c.name, Seconds: time.Since(begin).Seconds()}
	for _, p := range o.Partitions {
		sc.Records, sc.Bytes = sc.Records+c.held[p].Records, sc.Bytes+c.held[p].Bytes
	}
	e.Logf("restore: %s holds %s of %s (%d records, %s; made ready in %.1fs, checked); Kafka Streams restores it next",
		c.name, capacity.NamePartitions(o.Partitions), o.Topic, sc.Records, units.BytesTenths(sc.Bytes), sc.Seconds)
	target.SampledFrom, target.Topic, target.Ends, target.SampleCopy = o.Topic, c.name, ends, sc
	return nil
}

// changes are what the copy must change to hold exactly partitions ps,
// each as far as wanted says: the partitions to empty (held but not
// wanted, or held from other offsets of a source that moved since, read
// again), those to copy (not held, or emptied for having moved), and those
// kept as an earlier restore left them.
func (c *copyTopic) changes(ps []int32, wanted map[int32]cluster.OffsetRange) (drop, copyNow, kept []int32) {
	for p := range c.held {
		if !slices.Contains(ps, p) || c.from[p] != wanted[p] {
			drop = append(drop, p)
		}
	}
	slices.Sort(drop)
	for _, p := range ps {
		if _, ok := c.held[p]; ok && c.from[p] == wanted[p] {
			kept = append(kept, p)
		} else {
			copyNow = append(copyNow, p)
		}
	}
	return drop, copyNow, kept
}

// copyPartitions copies ranges (of records records in all) of o.Topic to
// the copy, each record written applied to written (when not nil), and
// notes what each of partitions ps now holds (an empty one, without a
// range, nothing) and where it came from.
func (s *SampleSource) copyPartitions(ctx context.Context, o RestoreTopicOptions, ps []int32, ranges map[int32]cluster.OffsetRange,
	records int64, written *topicshape.Fold) error {
	c := s.copy
	if len(ranges) > 0 {
		bar := s.env.progress.Start("copy sample of "+o.Topic, records, progress.Records)
		co := cluster.CopyOptions{ReadCommitted: o.Case.IsolationLevel() == "read_committed", MaxBatchBytes: c.maxBytes, Copied: bar.Set}
		if written != nil {
			co.Written = written.Add
		}
		stats, err := cluster.CopyPartitions(ctx, s.env.Cluster, o.Topic, c.name, ranges, co)
		bar.Done()
		if err != nil {
			return err
		}
		for p, st := range stats {
			c.held[p] = st
		}
	}
	for _, p := range ps {
		if _, ok := c.held[p]; !ok {
			c.held[p] = cluster.CopyStats{} // an empty partition: nothing to copy
		}
		c.from[p] = ranges[p]
	}
	return nil
}

// createCopy creates the copy topic of o.Topic, of partitions partitions,
// and notes it; Close deletes it from then on, whatever follows.
func (s *SampleSource) createCopy(ctx context.Context, o RestoreTopicOptions, adm *kadm.Client, partitions int32) error {
	name := SampleCopyTopic(o.AppID, o.Topic)
	if !fleet.IsSourceTable(fleet.Target{Topic: name, AppID: o.AppID, StoreName: o.StoreName}) {
		return fmt.Errorf("--partitions: the copy of %s would be named %s, the changelog of store %s: restore under another --store",
			o.Topic, name, o.StoreName)
	}
	maxBytes, err := maxMessageBytes(ctx, adm, o.Topic)
	if err != nil {
		return err
	}
	s.env.Logf("restore: --partitions on kafka-streams: creating restorebench's topic %s (%d partitions, cleanup.policy=delete, no retention "+
		"limit) to copy the sampled partitions of %s into, which Kafka Streams then restores; it is deleted when the restores end",
		name, partitions, o.Topic)
	if err := createSampleCopy(ctx, s.env.scenarioEnvOwned(), adm, name, partitions, maxBytes, o.Topic); err != nil {
		return err
	}
	s.copy = &copyTopic{name: name, maxBytes: maxBytes, held: map[int32]cluster.CopyStats{}, from: map[int32]cluster.OffsetRange{}}
	return nil
}

// sayCopy says, before anything is written, what arrangeCopy writes to the
// copy for o: the records (and their size on the brokers) it copies, the
// partitions kept from an earlier restore and those it empties.
func (s *SampleSource) sayCopy(ctx context.Context, adm *kadm.Client, o RestoreTopicOptions, copyNow, kept, drop []int32, records int64,
	partitions int) {
	var said []string
	if len(copyNow) > 0 {
		size := "size unknown: " // DescribeLogDirs may not be granted
		if n, err := partitionLogBytes(ctx, adm, o.Topic, copyNow); err == nil {
			size = units.BytesTenths(n) + " as one replica holds them"
		} else {
			size += err.Error()
		}
		said = append(said, fmt.Sprintf("writing at most %d records (%s) of %s of %s to it", records, size,
			capacity.NamePartitions(copyNow), o.Topic))
	}
	if len(kept) > 0 {
		said = append(said, fmt.Sprintf("keeping %s as an earlier restore copied it", capacity.NamePartitions(kept)))
	}
	if len(drop) > 0 {
		said = append(said, fmt.Sprintf("emptying %s (DeleteRecords), which this restore leaves out", capacity.NamePartitions(drop)))
	}
	if len(said) == 0 {
		return
	}
	s.env.Logf("restore: restorebench's topic %s (%d partitions, only the restored ones hold records): %s",
		s.copy.name, partitions, listing.And(said))
}

// dropPartitions empties partitions ps of the copy: their records are
// deleted up to their end offset (DeleteRecords), so a restore of the copy
// restores nothing there.
func (s *SampleSource) dropPartitions(ctx context.Context, adm *kadm.Client, ps []int32) error {
	if len(ps) == 0 {
		return nil
	}
	c := s.copy
	ends, err := adm.ListEndOffsets(ctx, c.name)
	if err != nil {
		return fmt.Errorf("the copy %s: end offsets: %w", c.name, err)
	}
	to := kadm.Offsets{}
	for _, p := range ps {
		end, ok := ends.Lookup(c.name, p)
		if !ok || end.Err != nil {
			return fmt.Errorf("the copy %s: partition %d's end offset: %v", c.name, p, end.Err)
		}
		to.AddOffset(c.name, p, end.Offset, -1)
	}
	resp, err := adm.DeleteRecords(ctx, to)
	if err != nil {
		return fmt.Errorf("the copy %s: emptying partitions %s: %w", c.name, capacity.FormatPartitions(ps), err)
	}
	if err := resp.Error(); err != nil {
		return fmt.Errorf("the copy %s: emptying partitions %s: %w", c.name, capacity.FormatPartitions(ps), err)
	}
	for _, p := range ps {
		delete(c.held, p)
		delete(c.from, p)
	}
	return nil
}

// checkSource refuses a SampleSource of another topic or env than o's.
func (s *SampleSource) checkSource(e *Env, o RestoreTopicOptions) error {
	switch {
	case s.env != e:
		return errors.New("a sample source is used on the env that made it")
	case o.Partitions == nil:
		return errors.New("a sample source restores a sample of a topic's partitions: give Partitions")
	case s.topic != o.Topic:
		return fmt.Errorf("a sample source of %s restores %s", s.topic, o.Topic)
	case o.Case.Engine == config.EngineKafkaStreams && s.copy != nil && s.copy.name != SampleCopyTopic(o.AppID, o.Topic):
		return fmt.Errorf("a sample source's copy %s is not application %s's", s.copy.name, o.AppID)
	}
	return nil
}
