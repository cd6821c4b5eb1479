package integration

import (
	"context"
	"testing"

	"github.com/restorebench/restorebench/bench"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/loadgen"
)

// TestRealKafkaStreamsRestoresKeyBytes8: fills of 8-byte keys ("k" and 7
// digits) and 8-byte values, a tenth of them tombstones, restore cold on
// real Kafka Streams to the Go expected state, as on the model: a
// key-value store's (16 live bytes a key), and a window store's, whose
// changelog keys carry the 8-byte record key before the window start
// (the window is parsed from the key's end, whatever the key's width).
func TestRealKafkaStreamsRestoresKeyBytes8(t *testing.T) {
	t.Parallel()
	needDriver(t)
	env := connect(t, bench.Options{})
	spec := loadgen.DefaultSpec()
	spec.Records, spec.Keys, spec.Partitions, spec.TombstoneRatio, spec.ValueMin, spec.ValueMax, spec.KeyBytes = 4000, 500, 2, 0.1, 8, 8, 8
	t.Run("key-value", func(t *testing.T) {
		app := ksApp(t, env)
		fill := ksFill(t, env, app, spec, "none")
		mc := ksCase("k8-model", 1)
		mc.Engine = config.EngineModel
		m, err := env.RunCase(context.Background(), fill, app, ksStore, mc, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		k, err := env.RunCase(context.Background(), fill, app, ksStore, ksCase("k8-kafka-streams", 1), dir)
		if err != nil {
			t.Fatal(err)
		}
		noJVMUnder(t, dir)
		assertSameStates(t, m, k)
		checkRecords(t, m, k)
		keys, live := k.Verification.Totals()
		if !m.Verified || !k.Verified || k.Records != spec.Records || keys == 0 || live != 16*keys {
			t.Fatalf("kafka-streams: verified %v (%s), %d records, %d keys, %d live bytes (want 16 a key)", k.Verified, k.Error, k.Records, keys, live)
		}
	})
	t.Run("window", func(t *testing.T) {
		w := spec
		w.StoreKind, w.EventStepMicros = loadgen.KindWindow, 20*60*1_000_000/w.Records
		w.WindowSizeMs, w.RetentionMs = 60_000, 10*60_000
		app := ksApp(t, env)
		fill := ksFill(t, env, app, w, "none")
		m, k := restoreKindOnBoth(t, env, fill, app, kindVariant{name: "k8"})
		if !m.Verified || !k.Verified {
			t.Fatalf("verified: model %v (%s), kafka-streams %v (%s)", m.Verified, m.Error, k.Verified, k.Error)
		}
	})
}
