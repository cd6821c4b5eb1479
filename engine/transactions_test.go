package engine

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/internal/testkafka"
	"github.com/restorebench/restorebench/loadgen"
)

// withGuarantee is an instance of the test defaults under processing.guarantee g.
func withGuarantee(t *testing.T, cfg cluster.Config, g string) *Instance {
	t.Helper()
	in := testInstance(cfg, "", t.TempDir())
	in.Case.Streams = map[string]string{config.PropProcessingGuarantee: g}
	if err := in.Case.Finalize(); err != nil {
		t.Fatal(err)
	}
	// Long enough for a loaded machine (make test beside other work), short
	// enough that a restore stuck on a transaction marker fails the test.
	in.StallTimeout = 30 * time.Second
	return in
}

// TestRestoreIsolationFollowsTheGuarantee restores a transactional fill with
// aborted transactions: under exactly_once_v2 read_committed, it restores
// the committed records only and verifies; under at_least_once it reads
// uncommitted, restores the aborted records too and does not verify. Both
// span every offset and meet every marker.
func TestRestoreIsolationFollowsTheGuarantee(t *testing.T) {
	cfg, _ := testkafka.Embedded(t)
	spec := spec100k()
	spec.Transactional, spec.TransactionRecords, spec.AbortRatio = true, 1000, 0.2
	testkafka.Fill(t, cfg, "eos", spec, nil)
	d, err := loadgen.Derive(spec)
	if err != nil {
		t.Fatal(err)
	}
	if d.Log.AbortedRecords == 0 {
		t.Fatal("the fill aborted nothing")
	}
	offsets := testkafka.Offsets(t, cfg, "eos")
	for _, c := range []struct {
		guarantee, isolation string
		records              int64
		verifies             bool
	}{
		{config.ExactlyOnceV2, config.ReadCommitted, d.Totals.Records, true},
		{config.AtLeastOnce, config.ReadUncommitted, d.Totals.Records + d.Log.AbortedRecords, false},
	} {
		res, err := withGuarantee(t, cfg, c.guarantee).ColdRestore(context.Background(), offsets)
		if err != nil {
			t.Fatalf("%s: %v", c.guarantee, err)
		}
		ok, v := check(t, res.Stores, d.Expected)
		res.Close()
		if ok != c.verifies {
			t.Errorf("%s: verified=%v (%s), want %v", c.guarantee, ok, v.Problem, c.verifies)
		}
		if res.Isolation != c.isolation || res.Records != c.records {
			t.Errorf("%s: read %s, %d records; want %s, %d", c.guarantee, res.Isolation, res.Records, c.isolation, c.records)
		}
		if res.Offsets() != d.Log.Offsets() || res.Txn.Markers != d.Log.Markers || res.Txn.AbortMarkers == 0 || res.Txn.AbortMarkers >= res.Txn.Markers {
			t.Errorf("%s: %d offsets, txn %+v; the fill has %d offsets, %d markers", c.guarantee, res.Offsets(), res.Txn, d.Log.Offsets(), d.Log.Markers)
		}
	}
}

// TestReadCommittedRestoreEndsAtTheLastStableOffset leaves a transaction
// open at the end of a changelog, as an application that died mid-commit
// does until the transaction times out: an exactly_once_v2 restore ends at
// the last stable offset, as Kafka Streams' read_committed end offsets do,
// and holds the committed state, instead of waiting for records a
// read_committed fetch never returns.
func TestReadCommittedRestoreEndsAtTheLastStableOffset(t *testing.T) {
	cfg, _ := testkafka.Embedded(t)
	spec := spec100k()
	testkafka.Fill(t, cfg, "open", spec, nil)
	expected, _, err := loadgen.Expect(spec)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := cluster.NewClient(cfg, kgo.TransactionalID("open-txn"), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx := context.Background()
	if err := cl.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	for p := int32(0); p < spec.Partitions; p++ {
		for i := range 50 {
			r := &kgo.Record{Topic: "open", Partition: p, Key: loadgen.AppendKey(nil, int64(i)), Value: bytes.Repeat([]byte("x"), 10)}
			if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
				t.Fatal(err)
			}
		}
	}
	offsets := testkafka.Offsets(t, cfg, "open") // the high watermarks, past the open transaction
	res, err := withGuarantee(t, cfg, config.ExactlyOnceV2).ColdRestore(ctx, offsets)
	if err != nil {
		t.Fatalf("restore over an open transaction: %v", err)
	}
	defer res.Close()
	if ok, v := check(t, res.Stores, expected); !ok {
		t.Fatalf("did not verify against the committed state: %s", v.Problem)
	}
	if res.Records != spec.Records || res.Offsets() != spec.Records {
		t.Fatalf("restored %d records over %d offsets, want the %d committed", res.Records, res.Offsets(), spec.Records)
	}
}
