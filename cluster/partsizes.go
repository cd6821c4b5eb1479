package cluster

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kadm"
)

// PartitionSize is one partition's size, as cheaply as the cluster says it.
type PartitionSize struct {
	Partition int32
	// LogBytes is the partition's log segments on its leader's disk (0
	// when the brokers did not say: then Source is SizeFromOffsets).
	LogBytes int64
	// Offsets are those between its log start and end.
	Offsets int64
}

// Where PartitionSizes' figures come from.
const (
	// SizeFromLogDirs: the brokers' log directories (DescribeLogDirs).
	SizeFromLogDirs = "log segments"
	// SizeFromOffsets: the offsets between log start and end, where the
	// log directories could not be described (it needs DESCRIBE on the
	// cluster).
	SizeFromOffsets = "offsets"
)

// PartitionSizes sizes every partition of topic without reading it: its
// leader's log segments where the brokers describe their log directories,
// and its offsets in every case. source says which measure the sizes are
// comparable by (SizeFromLogDirs only when every partition has one).
// It reads nothing of the topic's records and writes nothing.
func PartitionSizes(ctx context.Context, adm *kadm.Client, topic string) (sizes []PartitionSize, source string, err error) {
	offs, err := Offsets(ctx, adm, topic)
	if err != nil {
		return nil, "", err
	}
	leaders := map[int32]int32{}
	if md, err := adm.Metadata(ctx, topic); err == nil {
		if t, ok := md.Topics[topic]; ok {
			for p, d := range t.Partitions {
				leaders[p] = d.Leader
			}
		}
	}
	logBytes := map[int32]int64{}
	set := make(kadm.TopicsSet)
	set.Add(topic, offs.Partitions()...)
	if dirs, err := adm.DescribeAllLogDirs(ctx, set); err == nil {
		dirs.Each(func(d kadm.DescribedLogDir) {
			d.Topics.Each(func(p kadm.DescribedLogDirPartition) {
				if p.Topic == topic && !p.IsFuture && (leaders[p.Partition] == p.Broker || len(leaders) == 0) {
					logBytes[p.Partition] = max(logBytes[p.Partition], p.Size)
				}
			})
		})
	}
	source = SizeFromLogDirs
	for _, p := range offs.Partitions() {
		lb, ok := logBytes[p]
		if !ok {
			source = SizeFromOffsets
		}
		sizes = append(sizes, PartitionSize{Partition: p, LogBytes: lb, Offsets: offs.End[p] - offs.Start[p]})
	}
	if len(sizes) == 0 {
		return nil, "", fmt.Errorf("topic %s has no partitions", topic)
	}
	return sizes, source, nil
}

// Size is the partition's size by source's measure.
func (p PartitionSize) Size(source string) float64 {
	if source == SizeFromLogDirs {
		return float64(p.LogBytes)
	}
	return float64(p.Offsets)
}
