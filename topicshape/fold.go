package topicshape

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/restorebench/restorebench/cluster"
)

// A Fold applies records handed to it as State applies the records it
// reads, for records a reader of restorebench's own has in hand: those a
// copy wrote (bench's sample copy), so what a copy holds is checked
// against an independent read without reading the copy back. Add records
// in each partition's offset order; one goroutine at a time.
type Fold struct {
	lk    *liveKeys
	st    TopicState
	shape Shape
}

// NewFold is a Fold of topic's partitions ps (their records applied with
// o as State applies them; o.Partitions is ignored), with no record yet.
func NewFold(topic string, o StateOptions, ps []int32) (*Fold, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	o.MaxKeys = o.maxKeys()
	f := &Fold{}
	before := listing{TopicOffsets: cluster.TopicOffsets{Topic: topic, Start: map[int32]int64{}, End: map[int32]int64{}}}
	for _, p := range ps {
		before.Start[p], before.End[p] = 0, 0
	}
	f.lk = newLiveKeys(topic, o, before, &f.st, &f.shape, func() {})
	return f, nil
}

// Keys is how many live keys the fold keeps now.
func (f *Fold) Keys() int { return f.lk.kept }

// Failed reports whether the fold stopped applying records (State says
// why).
func (f *Fold) Failed() bool { return f.lk.failed != nil }

// Add applies r, a record of one of the fold's partitions; a record of
// another partition is an error State returns.
func (f *Fold) Add(r *kgo.Record) {
	if _, ok := f.lk.live[r.Partition]; !ok && f.lk.failed == nil {
		f.lk.failed = errNotFolded(r.Partition)
		return
	}
	f.lk.add(r)
}

// State is the state the records added end with, as State would return
// it from a read of them, their records lying between at's start and end
// offsets of each partition (its Ends and Restored counts are of those);
// the error is why the fold stopped applying records (more live keys than
// StateOptions.MaxKeys, a record that is not its store kind's, a record of
// a partition it does not fold).
func (f *Fold) State(at cluster.TopicOffsets) (TopicState, error) {
	if f.lk.failed != nil {
		return TopicState{}, f.lk.failed
	}
	f.st.Ends = map[int32]int64{} // a state returned before keeps its own
	for p, c := range f.lk.counts {
		c.From, c.To, f.st.Ends[p] = at.Start[p], at.End[p], at.End[p]
	}
	return f.lk.state(), nil
}

// errNotFolded is Fold's error for a record of partition p, which it
// does not fold.
func errNotFolded(p int32) error {
	return fmt.Errorf("topicshape: a record of partition %d, which this fold does not apply", p)
}
