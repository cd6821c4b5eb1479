package main

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/restorebench/restorebench/capacity"
	"github.com/restorebench/restorebench/cluster"
)

// autoSampleBytes is the size above which --measure samples a topic by
// default: at the 50–150 MB/s a thread restores here, more than a few
// minutes a restore, twice a engine.
const autoSampleBytes = 4 << 30

// defaultSample is how many partitions --measure restores of a topic it
// samples by default: the largest and the smallest, between which every
// other task is priced.
const defaultSample = 2

// maxSample bounds --sample: a sample is a few tasks, not the topic.
const maxSample = 64

// samplePlan is the sample --from-topic reads and --measure restores:
// every partition's size (Tasks, by SizeSource's measure), the partitions
// chosen (Sampled) and why.
type samplePlan struct {
	capacity.Sample
	why string
}

// checkSample refuses --sample and --sample-partitions where they mean
// nothing or cannot be met, before any broker is contacted.
func (f *capacityFlags) checkSample() error {
	changed := f.changed
	switch {
	case (changed("sample") || changed("sample-partitions")) && f.fromTopic == "":
		return errors.New("--sample and --sample-partitions: they choose partitions of the topic --from-topic names; give --from-topic")
	case changed("sample") && changed("sample-partitions"):
		return errors.New("--sample and --sample-partitions: give one (how many partitions to choose, or which)")
	case changed("sample") && (f.sample < 0 || f.sample > maxSample):
		return fmt.Errorf("--sample: %d is not between 0 (the whole topic) and %d", f.sample, maxSample)
	}
	seen := map[int]bool{}
	for _, p := range f.samplePartitions {
		if p < 0 {
			return fmt.Errorf("--sample-partitions: %d is not a partition", p)
		}
		if seen[p] {
			return fmt.Errorf("--sample-partitions: partition %d is named twice", p)
		}
		seen[p] = true
	}
	if changed("sample-partitions") && len(f.samplePartitions) == 0 {
		return errors.New("--sample-partitions: no partition named; name one or more, e.g. --sample-partitions 3,17")
	}
	return nil
}

// planSample sizes every partition of --from-topic without reading it and
// chooses the sample: --sample-partitions as named, --sample N by
// capacity.ChooseSample, none for --sample 0; by default, with --measure,
// defaultSample partitions of a topic over autoSampleBytes, saying so (nil
// for a topic read and restored whole).
func (f *capacityFlags) planSample(cmd *cobra.Command, adm *kadm.Client) (*samplePlan, error) {
	sample := f.sample
	if !f.changed("sample") && !f.changed("sample-partitions") {
		if !f.measure {
			return nil, nil
		}
		sample = -1
	}
	if sample == 0 && len(f.samplePartitions) == 0 {
		return nil, nil
	}
	sizes, source, err := cluster.PartitionSizes(cmd.Context(), adm, f.fromTopic)
	if err != nil {
		return nil, fmt.Errorf("--from-topic: %w", err)
	}
	var total float64
	tasks := make([]capacity.TaskSize, len(sizes))
	for i, s := range sizes {
		tasks[i] = capacity.TaskSize{Partition: s.Partition, Size: s.Size(source), Offsets: float64(s.Offsets)}
		total += float64(s.LogBytes)
	}
	var chosen []int32
	var why string
	switch {
	case len(f.samplePartitions) > 0:
		for _, p := range f.samplePartitions {
			if p >= len(sizes) {
				return nil, fmt.Errorf("--sample-partitions: topic %s has no partition %d: it has %d partitions (0..%d)",
					f.fromTopic, p, len(sizes), len(sizes)-1)
			}
			chosen = append(chosen, int32(p))
		}
		sort.Slice(chosen, func(i, j int) bool { return chosen[i] < chosen[j] })
		why = "--sample-partitions"
	case sample > 0:
		chosen, why = capacity.ChooseSample(tasks, sample), fmt.Sprintf("--sample %d", sample)
	case source == cluster.SizeFromLogDirs && total <= autoSampleBytes:
		return nil, nil // small enough to restore whole
	default:
		chosen = capacity.ChooseSample(tasks, defaultSample)
		why = fmt.Sprintf("by default: the topic's %s of log segments would take more than a few minutes to restore whole "+
			"on each engine (--sample 0 restores it whole)", capacity.FormatBytes(total))
		if source != cluster.SizeFromLogDirs {
			why = "by default: the brokers did not say the topic's size on disk (--sample 0 restores it whole)"
		}
	}
	if len(chosen) >= len(sizes) {
		return nil, nil // every partition: the whole topic
	}
	sp := &samplePlan{Sample: capacity.Sample{Topic: f.fromTopic, Tasks: tasks, Sampled: chosen, SizeSource: source}, why: why}
	sp.describe(cmd.ErrOrStderr())
	return sp, nil
}

// describe says which partitions the sample holds and why, with their
// sizes against the topic's.
func (sp *samplePlan) describe(w io.Writer) {
	var lo, hi float64
	for i, t := range sp.Tasks {
		if i == 0 || t.Size < lo {
			lo = t.Size
		}
		hi = max(hi, t.Size)
	}
	size := func(v float64) string {
		if sp.SizeSource == cluster.SizeFromLogDirs {
			return capacity.FormatBytes(v)
		}
		return fmt.Sprintf("%.0f offsets", v)
	}
	var parts []string
	for _, p := range sp.Sampled {
		parts = append(parts, fmt.Sprintf("%d (%s)", p, size(sp.Tasks[p].Size)))
	}
	how := "whole"
	if len(sp.Sampled) > 1 {
		how = "whole, each alone and all together on one instance (how your tasks restore together)"
	}
	fmt.Fprintf(w, "sample of %s (%s): partitions %s of its %d, which span %s–%s of %s a partition; each is read and restored "+
		"%s, the others are priced between them by their size\n", sp.Topic, sp.why, strings.Join(parts, ", "), len(sp.Tasks),
		size(lo), size(hi), sp.SizeSource, how)
}
