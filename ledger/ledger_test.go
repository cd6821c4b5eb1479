package ledger

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/internal/testkafka"
)

// The same seed gives the same transactions; another seed others; ids are
// 1, 2, 3, ...; amounts stay in their bounds and both kinds occur.
func TestGeneratorIsDeterministic(t *testing.T) {
	a, b, c := NewGenerator(7, 50), NewGenerator(7, 50), NewGenerator(8, 50)
	same, deposits := true, 0
	for i := int64(1); i <= 10_000; i++ {
		x, y, z := a.Next(), b.Next(), c.Next()
		if x != y || x.ID != i {
			t.Fatalf("transaction %d: %+v and %+v from one seed", i, x, y)
		}
		same = same && x == z
		if x.Amount > 0 {
			deposits++
		}
		if x.Amount == 0 || x.Amount > maxDeposit || x.Amount < -maxWithdrawal {
			t.Fatalf("amount %d out of bounds", x.Amount)
		}
	}
	if same {
		t.Fatal("seeds 7 and 8 gave the same transactions")
	}
	if deposits < 6500 || deposits > 7500 {
		t.Fatalf("%d deposits of 10000, want about 7000", deposits)
	}
}

func TestValueRoundTrips(t *testing.T) {
	tx := Txn{ID: 1 << 40, Account: "acct-000001", Amount: -4321}
	v := tx.Value()
	if len(v) != ValueBytes {
		t.Fatalf("%d value bytes", len(v))
	}
	id, amount, err := DecodeValue(v)
	if err != nil || id != tx.ID || amount != tx.Amount {
		t.Fatalf("decoded %d %d %v", id, amount, err)
	}
	if _, _, err := DecodeValue(v[:15]); err == nil {
		t.Fatal("a 15-byte value decoded")
	}
}

// A Book's running sums equal the sums recomputed from its transactions.
func TestBookSumsEqualIndependentSums(t *testing.T) {
	g, b := NewGenerator(3, 20), NewBook()
	var all []Txn
	for range 5000 {
		tx := g.Next()
		all = append(all, tx)
		b.Ack(tx)
	}
	want := SumsOf(all)
	got := b.Sums()
	if len(got) != 20 || len(want) != 20 {
		t.Fatalf("%d and %d accounts, want 20", len(got), len(want))
	}
	var count int64
	for a, s := range want {
		if got[a] != s {
			t.Fatalf("account %s: book %+v, sums %+v", a, got[a], s)
		}
		count += s.Count
	}
	if count != 5000 || b.Len() != 5000 || !slices.Equal(b.Acked(), all) {
		t.Fatalf("count %d, len %d", count, b.Len())
	}
	if as := Accounts(want); as[0] != "acct-000000" || !slices.IsSorted(as) {
		t.Fatalf("accounts %v", as)
	}
}

// The producer writes at about its rate, and what it books as acknowledged
// is exactly what the topic holds: every transaction once, keyed by its
// account.
func TestProducerBooksExactlyWhatTheTopicHolds(t *testing.T) {
	cfg, _ := testkafka.Embedded(t)
	ctx := context.Background()
	const topic = "ledger-test"
	adm := admin(t, cfg)
	if _, err := adm.CreateTopic(ctx, 3, 1, nil, topic); err != nil {
		t.Fatal(err)
	}
	cl, err := cluster.NewClient(cfg, ClientOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	book := NewBook()
	p := Start(ctx, cl, topic, NewGenerator(1, 100), 2000, book)
	time.Sleep(500 * time.Millisecond)
	res, err := p.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if res.Acked != res.Sent || res.Failed != 0 || res.Acked < 500 || res.Acked > 1300 {
		t.Fatalf("result %+v: want about 1000 acknowledged at 2000/s for 0.5 s", res)
	}
	got := readAll(t, cfg, topic, res.Acked)
	if !equalSums(SumsOf(got), book.Sums()) {
		t.Fatal("the topic's transactions do not add up to the book's sums")
	}
	ids := map[int64]bool{}
	for _, tx := range got {
		if ids[tx.ID] {
			t.Fatalf("transaction %d twice in the topic", tx.ID)
		}
		ids[tx.ID] = true
	}
}

func admin(t *testing.T, cfg cluster.Config) *kadm.Client {
	cl, err := cluster.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return kadm.NewClient(cl)
}

// readAll consumes n records of topic back as transactions (tests only:
// the producer itself never reads the topic).
func readAll(t *testing.T, cfg cluster.Config, topic string, n int64) []Txn {
	cl, err := cluster.NewClient(cfg, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var out []Txn
	for int64(len(out)) < n {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			t.Fatalf("read %d of %d records: %v", len(out), n, err)
		}
		fs.EachRecord(func(r *kgo.Record) {
			id, amount, err := DecodeValue(r.Value)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, Txn{ID: id, Account: string(r.Key), Amount: amount})
		})
	}
	return out
}

func equalSums(a, b map[string]Sum) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
