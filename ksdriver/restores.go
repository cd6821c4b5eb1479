package ksdriver

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/restorebench/restorebench/measure"
)

// PartitionRestore is one store partition's restore as its events tell it.
type PartitionRestore struct {
	StorePartition
	// StartOffset and EndOffset are the range onRestoreStart announced.
	StartOffset, EndOffset int64
	// StartNs and EndNs are the instance's monotonic times of
	// restore_start and restore_end (EndNs 0 until it ended).
	StartNs, EndNs int64
	// Batches and BatchRecords count restore_batch events and their records.
	Batches, BatchRecords int64
	// Restored is restore_end's (or restore_suspended's) total.
	Restored int64
	// Ended and Suspended say how the restore finished, if it did.
	Ended, Suspended bool
}

// Restores folds restore_* events (of any number of instances) into the
// state of each store partition's restore: what a scenario waits on and
// times. The zero value is ready to use; it is not safe for concurrent use.
type Restores struct {
	parts map[StorePartition]*PartitionRestore
	// batches are every restore_batch's time and records, in arrival order.
	batches []batchPoint
}

type batchPoint struct {
	monoNs, records int64
}

// Add folds e in and reports whether it was a restore event.
func (r *Restores) Add(e Event) bool {
	if r.parts == nil {
		r.parts = map[StorePartition]*PartitionRestore{}
	}
	switch e := e.(type) {
	case *RestoreStart:
		p := r.part(e.StorePartition)
		p.StartOffset, p.EndOffset, p.StartNs = e.StartOffset, e.EndOffset, e.MonoNs
		p.Ended, p.Suspended, p.EndNs = false, false, 0
	case *RestoreBatch:
		p := r.part(e.StorePartition)
		p.Batches++
		p.BatchRecords += e.Records
		r.batches = append(r.batches, batchPoint{e.MonoNs, e.Records})
	case *RestoreEnd:
		p := r.part(e.StorePartition)
		p.Ended, p.EndNs, p.Restored = true, e.MonoNs, e.Restored
	case *RestoreSuspended:
		p := r.part(e.StorePartition)
		p.Suspended, p.EndNs, p.Restored = true, e.MonoNs, e.Restored
	default:
		return false
	}
	return true
}

func (r *Restores) part(sp StorePartition) *PartitionRestore {
	p, ok := r.parts[sp]
	if !ok {
		p = &PartitionRestore{StorePartition: sp}
		r.parts[sp] = p
	}
	return p
}

// Partitions returns every store partition seen, ordered by topic and partition.
func (r *Restores) Partitions() []PartitionRestore {
	out := make([]PartitionRestore, 0, len(r.parts))
	for _, p := range r.parts {
		out = append(out, *p)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Topic != out[j].Topic {
			return out[i].Topic < out[j].Topic
		}
		return out[i].Partition < out[j].Partition
	})
	return out
}

// Of returns the restore of one changelog partition, if it started.
func (r *Restores) Of(topic string, partition int32) (PartitionRestore, bool) {
	for sp, p := range r.parts {
		if sp.Topic == topic && sp.Partition == partition {
			return *p, true
		}
	}
	return PartitionRestore{}, false
}

// EndedAll reports whether every partition in want (changelog partition ->
// records owed) whose owed count is positive has a restore that ended, and
// names the ones that have not.
func (r *Restores) EndedAll(topic string, want map[int32]int64) (bool, string) {
	of := map[int32]*PartitionRestore{}
	for sp, p := range r.parts {
		if sp.Topic == topic {
			of[sp.Partition] = p
		}
	}
	var pending []string
	for p, owed := range want {
		if owed <= 0 {
			continue
		}
		pr, ok := of[p]
		switch {
		case !ok:
			pending = append(pending, fmt.Sprintf("%d (not started)", p))
		case !pr.Ended:
			pending = append(pending, fmt.Sprintf("%d (%d of %d records)", p, pr.BatchRecords, owed))
		}
	}
	sort.Strings(pending)
	return len(pending) == 0, strings.Join(pending, ", ")
}

// Records is the sum of the batches' records.
func (r *Restores) Records() int64 {
	var n int64
	for _, p := range r.parts {
		n += p.BatchRecords
	}
	return n
}

// Batches counts restore_batch events.
func (r *Restores) Batches() int64 { return int64(len(r.batches)) }

// Restored is the sum of the ended (or suspended) restores' totals.
func (r *Restores) Restored() int64 {
	var n int64
	for _, p := range r.parts {
		n += p.Restored
	}
	return n
}

// Span returns the first restore_start and the last restore_end or
// restore_suspended (instance monotonic ns); ok is false until one of each.
func (r *Restores) Span() (firstStart, lastEnd int64, ok bool) {
	for _, p := range r.parts {
		if p.StartNs != 0 && (firstStart == 0 || p.StartNs < firstStart) {
			firstStart = p.StartNs
		}
		if p.EndNs > lastEnd {
			lastEnd = p.EndNs
		}
	}
	return firstStart, lastEnd, firstStart != 0 && lastEnd != 0
}

// Series buckets the restored records into intervals of length every from
// startNs, as measure.Counter does for the model (the same merge of a final
// sliver into the interval before it); bytesPerRecord turns records into
// bytes, since the events count records only.
func (r *Restores) Series(startNs, endNs int64, every time.Duration, bytesPerRecord float64) []measure.Point {
	if endNs <= startNs || every <= 0 {
		return nil
	}
	step := every.Nanoseconds()
	n := int((endNs - startNs + step - 1) / step)
	recs := make([]int64, n)
	for _, b := range r.batches {
		i := int((b.monoNs - startNs) / step)
		recs[min(max(i, 0), n-1)] += b.records
	}
	out := make([]measure.Point, n)
	for i := range recs {
		t := float64(min(int64(i+1)*step, endNs-startNs)) / 1e9
		out[i] = measure.Point{T: t, Records: recs[i], Bytes: int64(float64(recs[i]) * bytesPerRecord)}
	}
	if len(out) >= 2 {
		last, prev := out[len(out)-1], &out[len(out)-2]
		if last.T-prev.T < every.Seconds()/4 {
			prev.T, prev.Records, prev.Bytes = last.T, prev.Records+last.Records, prev.Bytes+last.Bytes
			out = out[:len(out)-1]
		}
	}
	return out
}
