package engine

import (
	"context"
	"fmt"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/internal/testkafka"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/verify"
)

// TestRestoreSkipsNullKeysAsKafkaStreams restores a changelog of 500
// records without a key among 100 keyed ones (one of them with an empty,
// not a null, key): Kafka Streams skips a null-key record on restore
// (StoreChangelogReader), so it restores 100 records into 100 live keys.
// The model must say the same on every strategy, and its count of the
// changelog (what the kafka-streams engine's bytes come from) too: the
// restored records, bytes, key count and digest are the keyed records'.
func TestRestoreSkipsNullKeysAsKafkaStreams(t *testing.T) {
	cfg, _ := testkafka.Embedded(t)
	const topic = "app-nullkeys-changelog"
	cl, err := cluster.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx := context.Background()
	if err := cluster.CreateChangelog(ctx, kadm.NewClient(cl), topic, 2, nil); err != nil {
		t.Fatal(err)
	}
	var recs []*kgo.Record
	for i := range 600 {
		r := &kgo.Record{Topic: topic, Partition: int32(i % 2), Value: fmt.Appendf(nil, "value-%04d", i)}
		if i%6 == 5 { // every sixth record is keyed: 100 of them
			r.Key, r.Partition = fmt.Appendf(nil, "key-%03d", i/6), int32(i/6%2)
			if i == 5 {
				r.Key = []byte{} // empty, not null: a key Kafka Streams restores
			}
		}
		recs = append(recs, r)
	}
	pcl, err := cluster.NewClient(cfg, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer pcl.Close()
	if err := pcl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	expected := []loadgen.PartitionState{{Partition: 0}, {Partition: 1}}
	var keyed, keyedBytes int64
	for _, r := range recs {
		if r.Key == nil {
			continue
		}
		st := &expected[r.Partition]
		st.Keys++
		st.LiveBytes += int64(len(r.Key) + len(r.Value))
		st.Digest.Add(r.Key, r.Value)
		keyed, keyedBytes = keyed+1, keyedBytes+int64(len(r.Key)+len(r.Value))
	}
	offsets := testkafka.Offsets(t, cfg, topic)
	for _, strategy := range config.Strategies {
		in := testInstance(cfg, topic, t.TempDir())
		in.Case.Strategy = strategy
		if err := in.Case.Finalize(); err != nil {
			t.Fatal(err)
		}
		res, err := in.ColdRestore(ctx, offsets)
		if err != nil {
			t.Fatalf("%s: %v", strategy, err)
		}
		actual, err := ScanAll(res.Stores)
		res.Close()
		if err != nil {
			t.Fatal(err)
		}
		keys, _ := verify.Census(actual).Totals()
		if res.Records != 100 || keys != 100 || res.Bytes != keyedBytes {
			t.Errorf("%s: restored %d records (%d B) into %d live keys; Kafka Streams restores %d records (%d B) into 100", strategy, res.Records, res.Bytes, keys, keyed, keyedBytes)
		}
		if ok, v := verify.Check(expected, actual); !ok {
			t.Errorf("%s: the stores are not the keyed records': %s", strategy, v.Problem)
		}
		if res.Offsets() != 600 {
			t.Errorf("%s: spanned %d offsets, want all 600", strategy, res.Offsets())
		}
	}
	cnt, err := testInstance(cfg, topic, t.TempDir()).Count(ctx, offsets)
	if err != nil {
		t.Fatal(err)
	}
	if cnt.Records != 100 || cnt.Bytes != keyedBytes {
		t.Errorf("count: %d records, %d B; a restore applies %d, %d B", cnt.Records, cnt.Bytes, keyed, keyedBytes)
	}
}
