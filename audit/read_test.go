package audit

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/internal/testkafka"
)

// ambiguousCluster is an embedded broker with application orders'
// changelog orders-s-changelog beside orders-v2-store-changelog, and a
// group orders-v2 (offsets committed): the second topic may be orders-v2's
// store "store" as well as orders' store "v2-store".
func ambiguousCluster(t *testing.T) cluster.Config {
	cfg, _ := testkafka.Embedded(t)
	cl, err := cluster.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, topic := range []string{"orders-s-changelog", "orders-v2-store-changelog", "orders-v2-input"} {
		if _, err := adm.CreateTopic(ctx, 1, 1, nil, topic); err != nil {
			t.Fatal(err)
		}
	}
	offs := kadm.Offsets{}
	offs.Add(kadm.Offset{Topic: "orders-v2-input", Partition: 0, At: 0, LeaderEpoch: -1})
	if r, err := adm.CommitOffsets(ctx, "orders-v2", offs); err != nil || r.Error() != nil {
		t.Fatalf("committing orders-v2's offsets: %v %v", err, r.Error())
	}
	return cfg
}

// audit --application-id orders does not take orders-v2-store-changelog
// as its own when a group orders-v2 exists: the topic is left out, named,
// and the answer is inconclusive with the way to decide (--changelog);
// named with --changelog it is read.
func TestReadAmbiguousPrefix(t *testing.T) {
	cfg := ambiguousCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := Read(ctx, cfg, "orders", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Changelogs) != 1 || r.Changelogs[0].Topic != "orders-s-changelog" {
		t.Errorf("changelogs counted: %+v", r.Changelogs)
	}
	if len(r.Ambiguous) != 1 || r.Ambiguous[0] != "orders-v2-store-changelog" ||
		!strings.Contains(r.Inconclusive, "orders-v2-store-changelog") || !strings.Contains(r.Inconclusive, "--changelog") {
		t.Fatalf("ambiguous %v, inconclusive %q", r.Ambiguous, r.Inconclusive)
	}
	var b strings.Builder
	if err := WriteText(&b, r); err != nil || !strings.Contains(b.String(), "INCONCLUSIVE: ") {
		t.Errorf("the text does not say inconclusive: %v\n%s", err, b.String())
	}
	r, err = Read(ctx, cfg, "orders", ReadOptions{Changelogs: []string{"orders-v2-store-changelog", "orders-s-changelog"}})
	if err != nil || len(r.Changelogs) != 2 || r.Inconclusive != "" {
		t.Fatalf("with --changelog: %v %+v %q", err, r.Changelogs, r.Inconclusive)
	}
	if _, err := Read(ctx, cfg, "orders", ReadOptions{Changelogs: []string{"orders-x-changelog"}}); err == nil ||
		!strings.Contains(err.Error(), "--changelog orders-x-changelog: no such topic") {
		t.Errorf("a --changelog that is no topic: %v", err)
	}
}
