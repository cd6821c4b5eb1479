package cluster

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
)

// holdFixture is an in-memory broker with topic "t" created with configs,
// an admin client on it and an empty hold book.
func holdFixture(t *testing.T, configs map[string]string) (*kadm.Client, HoldBook) {
	t.Helper()
	_, adm := embeddedAdmin(t)
	if err := CreateChangelog(context.Background(), adm, "t", 1, configs); err != nil {
		t.Fatal(err)
	}
	return adm, HoldBookIn(t.TempDir())
}

func lagOf(t *testing.T, adm *kadm.Client) string {
	t.Helper()
	v, err := TopicOverride(context.Background(), adm, "t", "min.compaction.lag.ms")
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestCleanerHoldLeftByAKilledRun: a run killed while holding leaves the
// topic held and its hold in the book, its lock gone with its process;
// the next run's hold takes the topic's own setting from the book, and
// its release puts that back.
func TestCleanerHoldLeftByAKilledRun(t *testing.T) {
	adm, book := holdFixture(t, map[string]string{"min.compaction.lag.ms": "7777"})
	ctx := context.Background()
	killed, err := HoldCleaner(ctx, adm, "t", book, false)
	if err != nil {
		t.Fatal(err)
	}
	killed.holder.Close() // as the kernel does when the process dies; its file stays
	if got := lagOf(t, adm); got != HoldLag {
		t.Fatalf("left held: %q", got)
	}
	next, err := HoldCleaner(ctx, adm, "t", book, false)
	if err != nil {
		t.Fatal(err)
	}
	if next.Previous != "7777" || next.Joined != 0 {
		t.Fatalf("the next hold: previous %q, joined %d; want the topic's own 7777, no live hold", next.Previous, next.Joined)
	}
	if others, err := next.Release(ctx); err != nil || others != 0 {
		t.Fatalf("release: %d others, %v", others, err)
	}
	if got := lagOf(t, adm); got != "7777" {
		t.Fatalf("after the next run's release: %q, want the topic's own 7777", got)
	}
	if left, _ := filepath.Glob(filepath.Join(book.dir, "*", "*")); len(left) != 0 {
		t.Fatalf("the killed run's hold is still in the book: %v", left)
	}
	if _, err := os.Stat(book.record("t")); !os.IsNotExist(err) {
		t.Fatalf("the topic's record outlives its last hold: %v", err)
	}
}

// TestCleanerHoldRefusesAnUnknownHold: a topic already at the held value
// that the book has no hold of (another data directory's run holds it, or
// one killed before it kept a book) is refused, untouched, with an error
// naming the topic and how to put its setting back by hand.
func TestCleanerHoldRefusesAnUnknownHold(t *testing.T) {
	adm, book := holdFixture(t, map[string]string{"min.compaction.lag.ms": HoldLag})
	_, err := HoldCleaner(context.Background(), adm, "t", book, false)
	for _, want := range []string{"hold the log cleaner on t", "records no hold", "another --data-dir", "--entity-name t", "--delete-config min.compaction.lag.ms"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("error %v does not say %q", err, want)
		}
	}
	if got := lagOf(t, adm); got != HoldLag {
		t.Fatalf("the refused topic's setting changed to %q", got)
	}
	if _, err := os.Stat(book.record("t")); !os.IsNotExist(err) {
		t.Fatalf("a refused hold wrote a record: %v", err)
	}
}
