package topicshape

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/internal/testkafka"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/verify"
)

// TestStateOfASessionChangelog reads a session store's changelog written
// by restorebench's session fill (two hours of event time, sessions within
// five-minute windows ending at four different times, an hour's retention,
// overwrites and tombstones) as a topic it did not fill: read as a session
// store's changelog of that retention it is the fill's expected state,
// which both engines' session restores verify against, the sessions that
// ended in the first hour left out; read key by key it gives the same
// entries; read as a window store's or with another retention it is not;
// both at once are refused.
func TestStateOfASessionChangelog(t *testing.T) {
	emb, err := cluster.StartEmbedded("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(emb.Close)
	cfg := cluster.Config{Brokers: emb.Addrs(), ConnectTimeout: 10 * time.Second}
	spec := loadgen.DefaultSpec()
	spec.Records, spec.Keys, spec.Partitions, spec.TombstoneRatio = 7200, 50, 3, 0.05
	spec.StoreKind, spec.EventStepMicros, spec.WindowSizeMs, spec.RetentionMs = loadgen.KindSession, 1_000_000, 5*60_000, 60*60_000
	const topic = "sessions-changelog"
	testkafka.Fill(t, cfg, topic, spec, map[string]string{"cleanup.policy": "compact,delete", "retention.ms": "90000000"})
	want, _, err := loadgen.Expect(spec)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	o := StateOptions{SessionRetentionMs: spec.RetentionMs, Idle: time.Second}
	st, err := State(ctx, cfg, topic, o)
	if err != nil {
		t.Fatal(err)
	}
	if ok, v := verify.Check(want, st.Partitions); !ok {
		t.Fatalf("read as a session store's changelog, the topic is not the fill's expected state: %s", v.Problem)
	}
	var keys int64
	for _, p := range want {
		keys += p.Keys
	}
	if keys < 400 || keys > 13*50 {
		t.Fatalf("the expected state holds %d sessions, want about an hour's windows of 50 keys", keys)
	}
	entries, err := Entries(ctx, cfg, topic, 2, st.Ends[2], o)
	if err != nil {
		t.Fatal(err)
	}
	var d loadgen.Digest
	for _, h := range entries {
		d += loadgen.Digest(h)
	}
	if int64(len(entries)) != want[2].Keys || d != want[2].Digest {
		t.Fatalf("read key by key, partition 2 holds %d sessions (digest %s), want %d (%s)", len(entries), d, want[2].Keys, want[2].Digest)
	}
	for name, other := range map[string]StateOptions{
		"a window store's":             {WindowRetentionMs: spec.RetentionMs, Idle: time.Second},
		"a session store's of 2 hours": {SessionRetentionMs: 2 * spec.RetentionMs, Idle: time.Second},
	} {
		st, err := State(ctx, cfg, topic, other)
		if err != nil {
			t.Fatal(err)
		}
		if ok, _ := verify.Check(want, st.Partitions); ok {
			t.Errorf("read as %s changelog, the topic still verified as the session store's state", name)
		}
	}
	both := StateOptions{SessionRetentionMs: spec.RetentionMs, WindowRetentionMs: spec.RetentionMs}
	if _, err := State(ctx, cfg, topic, both); err == nil || !strings.Contains(err.Error(), "not both") {
		t.Errorf("read as a window and a session store's changelog at once: %v, want it refused", err)
	}
}
