package topicshape

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/verify"
)

// TestFoldOfTheRecordsReadIsTheirState hands a Fold the records of a
// changelog of overwrites, tombstones and records without a key, as a
// copy of it writes them, and asks for the state State reads of the same
// partitions: the same keys, bytes, digest, record counts and restore
// counts; and so does a read of the topic's shape that folds what it reads
// (ReadWithStates), partition by partition, naming those too large to
// verify. A value changed on the way,
// or a record of a partition the fold does not apply, fails.
func TestFoldOfTheRecordsReadIsTheirState(t *testing.T) {
	const topic = "user-app-totals-changelog"
	ctx := context.Background()
	cfg, cl := emptyChangelog(t, topic, 3)
	var recs []*kgo.Record
	for round := range 3 {
		for i := range 300 {
			recs = append(recs, &kgo.Record{Topic: topic, Partition: int32(i % 3), Key: fmt.Appendf(nil, "k-%03d", i), Value: fmt.Appendf(nil, "%d", round*i)})
		}
	}
	for i := 0; i < 300; i += 11 {
		recs = append(recs, &kgo.Record{Topic: topic, Partition: int32(i % 3), Key: fmt.Appendf(nil, "k-%03d", i)}) // deleted
	}
	recs = append(recs, &kgo.Record{Topic: topic, Partition: 2, Value: []byte("no key")})
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	sampled := []int32{0, 2}
	read, err := State(ctx, cfg, topic, StateOptions{Partitions: sampled})
	if err != nil {
		t.Fatal(err)
	}
	at, err := cluster.Offsets(ctx, kadm.NewClient(cl), topic)
	if err != nil {
		t.Fatal(err)
	}
	fold := func(change func(*kgo.Record) *kgo.Record) (TopicState, error) {
		f, err := NewFold(topic, StateOptions{}, sampled)
		if err != nil {
			t.Fatal(err)
		}
		ranges := map[int32]cluster.OffsetRange{}
		for _, p := range sampled {
			ranges[p] = cluster.OffsetRange{From: at.Start[p], To: at.End[p]}
		}
		if err := cluster.ScanRange(ctx, cfg, topic, ranges, time.Second, func(r *kgo.Record) { f.Add(change(r)) }, nil); err != nil {
			t.Fatal(err)
		}
		return f.State(at)
	}
	same := func(r *kgo.Record) *kgo.Record { return r }
	got, err := fold(same)
	if err != nil {
		t.Fatal(err)
	}
	if ok, v := verify.Check(read.Partitions, got.Partitions); !ok {
		t.Fatalf("the fold's state differs from the read's: %s", v.Problem)
	}
	written := int64(0)
	for _, r := range recs {
		if r.Partition != 1 {
			written++
		}
	}
	if got.Records != read.Records || got.NullKeys != read.NullKeys || got.Records != written || got.NullKeys != 1 {
		t.Fatalf("fold counted %d records (%d without a key), the read %d (%d); %d (1) were written", got.Records, got.NullKeys, read.Records,
			read.NullKeys, written)
	}
	if !reflect.DeepEqual(got.Restored, read.Restored) || !reflect.DeepEqual(got.Ends, read.Ends) {
		t.Fatalf("fold's restore counts %+v to %v, the read's %+v to %v", got.Restored, got.Ends, read.Restored, read.Ends)
	}
	// The shape read folds each partition it reads the same way.
	shape, folded, err := ReadWithStates(ctx, cfg, topic, Options{Partitions: sampled}, StateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	states := folded.States
	if shape.Records != written || len(states) != len(sampled) {
		t.Fatalf("the shape read %d records and folded %d partitions; %d records of %d partitions were written", shape.Records, len(states),
			written, len(sampled))
	}
	for i, p := range sampled {
		st := states[p]
		if ok, v := verify.Check(read.Partitions[i:i+1], st.Partitions); !ok {
			t.Fatalf("partition %d as the shape read folded it: %s", p, v.Problem)
		}
		if st.Restored[p] != read.Restored[p] || st.Ends[p] != read.Ends[p] {
			t.Fatalf("partition %d: the shape read's restore count %+v to %d, the read's %+v to %d", p, st.Restored[p], st.Ends[p], read.Restored[p], read.Ends[p])
		}
	}
	// Folds that together would keep more live keys than one read keeps
	// are dropped, and what is kept is still the read's.
	_, folded, err = ReadWithStates(ctx, cfg, topic, Options{Partitions: sampled}, StateOptions{MaxKeys: 150})
	if err != nil {
		t.Fatal(err)
	}
	states = folded.States
	if len(folded.TooManyKeys) != 0 {
		t.Fatalf("partitions %v named too large to verify, where each holds under 150 live keys", folded.TooManyKeys)
	}
	if len(states) == len(sampled) {
		t.Fatalf("the shape read kept both partitions' %d and %d live keys with room for 150", states[0].Partitions[0].Keys, states[2].Partitions[0].Keys)
	}
	for i, p := range sampled {
		if st, ok := states[p]; ok {
			if ok, v := verify.Check(read.Partitions[i:i+1], st.Partitions); !ok {
				t.Fatalf("partition %d, kept within the shape read's room: %s", p, v.Problem)
			}
		}
	}
	// A partition that alone holds more live keys than a read keeps is
	// named, so its restores are counted without reading it again.
	_, folded, err = ReadWithStates(ctx, cfg, topic, Options{Partitions: sampled}, StateOptions{MaxKeys: 60})
	if err != nil {
		t.Fatal(err)
	}
	if len(folded.States) != 0 || len(folded.TooManyKeys) != len(sampled) || folded.Offsets.End[2] != at.End[2] {
		t.Fatalf("partitions of about 90 live keys read with room for 60: %d states, too many keys in %v, offsets %v", len(folded.States),
			folded.TooManyKeys, folded.Offsets.End)
	}
	changed, err := fold(func(r *kgo.Record) *kgo.Record {
		if r.Partition == 2 && string(r.Key) == "k-299" && r.Value != nil {
			c := *r
			c.Value = []byte("a value the read never saw")
			return &c
		}
		return r
	})
	if err != nil {
		t.Fatal(err)
	}
	if ok, v := verify.Check(read.Partitions, changed.Partitions); ok || !strings.Contains(v.Problem, "partition 2") {
		t.Fatalf("a changed value passed or was misplaced: ok=%v %q", ok, v.Problem)
	}
	if _, err := fold(func(r *kgo.Record) *kgo.Record {
		c := *r
		c.Partition = 1
		return &c
	}); err == nil || !strings.Contains(err.Error(), "partition 1") {
		t.Fatalf("a record of a partition not folded: %v", err)
	}
}

// TestFoldOfATimestampedStore folds a changelog as a timestamped store
// keeps it (each value behind its record's timestamp): the fold's digest
// is State's with the same option, and a copy that restamped a record
// (another timestamp, the same value) is caught.
func TestFoldOfATimestampedStore(t *testing.T) {
	const topic = "user-app-last-seen-changelog"
	ctx := context.Background()
	cfg, cl := emptyChangelog(t, topic, 1)
	var recs []*kgo.Record
	for i := range 200 {
		recs = append(recs, &kgo.Record{Topic: topic, Key: fmt.Appendf(nil, "user-%02d", i%50), Value: fmt.Appendf(nil, "%d", i),
			Timestamp: time.UnixMilli(int64(1_700_000_000_000 + i))})
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	so := StateOptions{TimestampedValue: true}
	read, err := State(ctx, cfg, topic, so)
	if err != nil {
		t.Fatal(err)
	}
	at, err := cluster.Offsets(ctx, kadm.NewClient(cl), topic)
	if err != nil {
		t.Fatal(err)
	}
	fold := func(restamp bool) TopicState {
		f, err := NewFold(topic, so, []int32{0})
		if err != nil {
			t.Fatal(err)
		}
		each := func(r *kgo.Record) {
			if restamp && string(r.Key) == "user-07" {
				c := *r
				c.Timestamp = c.Timestamp.Add(time.Hour)
				r = &c
			}
			f.Add(r)
		}
		if err := cluster.ScanRange(ctx, cfg, topic, map[int32]cluster.OffsetRange{0: {From: at.Start[0], To: at.End[0]}}, time.Second, each, nil); err != nil {
			t.Fatal(err)
		}
		st, err := f.State(at)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	if ok, v := verify.Check(read.Partitions, fold(false).Partitions); !ok {
		t.Fatalf("the timestamped fold differs from the read: %s", v.Problem)
	}
	if ok, _ := verify.Check(read.Partitions, fold(true).Partitions); ok {
		t.Fatal("a restamped record passed as the read's")
	}
}
