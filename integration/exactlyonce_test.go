package integration

import (
	"context"
	"strings"
	"testing"

	"github.com/restorebench/restorebench/bench"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/runs"
)

// TestRealKafkaExactlyOnceChangelogOnBothEngines fills a changelog as an
// exactly-once application with failed transactions leaves it (transactions
// of 1000 records, a fifth of them aborted) on the real broker and restores
// it on both engines under both guarantees: exactly_once_v2 reads committed
// and verifies, with the same records, bytes and digests on the model and
// on Kafka Streams; at_least_once reads uncommitted, restores the aborted
// records on both engines alike and fails verification, saying why.
func TestRealKafkaExactlyOnceChangelogOnBothEngines(t *testing.T) {
	t.Parallel()
	needDriver(t)
	env := connect(t, bench.Options{})
	app := ksApp(t, env)
	spec := loadgen.DefaultSpec()
	spec.Records, spec.Keys, spec.Partitions = 60_000, 15_000, 3
	spec.ValueMin, spec.ValueMax, spec.TombstoneRatio = 20, 300, 0.05
	spec.Transactional, spec.TransactionRecords, spec.AbortRatio = true, 1000, 0.2
	fill := ksFill(t, env, app, spec, "lz4")
	l := fill.Derived.Log
	if l.AbortedRecords == 0 || l.Markers == 0 {
		t.Fatalf("the fill wrote no aborted records or markers: %+v", l)
	}
	restore := func(c config.Case, guarantee string) (runs.Restore, error) {
		c.Streams = map[string]string{config.PropProcessingGuarantee: guarantee}
		if err := c.Finalize(); err != nil {
			t.Fatal(err)
		}
		stateDir := t.TempDir()
		rec, err := env.RunCase(context.Background(), fill, app, ksStore, c, stateDir)
		noJVMUnder(t, stateDir)
		return rec, err
	}
	model := config.DefaultCase()
	model.Name = "model"
	m, err := restore(model, config.ExactlyOnceV2)
	if err != nil {
		t.Fatalf("model, exactly_once_v2: %v", err)
	}
	k, err := restore(ksCase("ks", 1), config.ExactlyOnceV2)
	if err != nil {
		t.Fatalf("kafka-streams, exactly_once_v2: %v", err)
	}
	assertSameRestore(t, m, k, spec.Records)
	for _, r := range []runs.Restore{m, k} {
		if r.Read == nil || r.Read.IsolationLevel != config.ReadCommitted || r.Read.Offsets != l.Offsets() || r.Read.Markers != l.Markers || r.Read.Note != "" {
			t.Fatalf("%s: read %+v, want read_committed over %d offsets, %d markers", r.Case, r.Read, l.Offsets(), l.Markers)
		}
	}
	if g := k.KafkaStreams.Properties[config.PropProcessingGuarantee]; g != config.ExactlyOnceV2 {
		t.Fatalf("the Kafka Streams instance ran with processing.guarantee %q", g)
	}
	checkRecords(t, m, k)
	for _, c := range []config.Case{model, ksCase("ks", 1)} {
		r, err := restore(c, config.AtLeastOnce)
		if err == nil || r.Verified || r.Records != spec.Records+l.AbortedRecords {
			t.Fatalf("%s, at_least_once: verified=%v records=%d (want %d committed + %d aborted) err=%v",
				c.Engine, r.Verified, r.Records, spec.Records, l.AbortedRecords, err)
		}
		if r.Read == nil || r.Read.IsolationLevel != config.ReadUncommitted || !strings.Contains(r.Error, "aborted transactions, whose records were restored as if committed") {
			t.Fatalf("%s, at_least_once: read %+v, error %q", c.Engine, r.Read, r.Error)
		}
	}
}
