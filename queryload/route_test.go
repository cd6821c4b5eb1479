package queryload

import (
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/fleet"
	"github.com/restorebench/restorebench/loadgen"
)

// fakeAPI is an instance's API layer that owns some partitions: it
// answers "not found" for their keys, refuses the others when asked not
// to forward, and counts what it was asked.
type fakeAPI struct {
	name  string
	owns  map[int32]bool
	parts int32
	Mu    sync.Mutex
	asked int
	// notOwnedDirect counts lookups of keys it does not own that came
	// with the no-forward marker; forwardable those that came without.
	notOwnedDirect, forwardable int
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	key, _ := hex.DecodeString(strings.TrimPrefix(r.URL.Path, "/kv/"))
	p := loadgen.PartitionFor(key, f.parts)
	direct := r.URL.Query().Get("forwarded") != ""
	f.Mu.Lock()
	f.asked++
	if !direct {
		f.forwardable++
	} else if !f.owns[p] {
		f.notOwnedDirect++
	}
	f.Mu.Unlock()
	if direct && !f.owns[p] {
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprintf(w, `{"refused":true,"reason":"not mine","instance":%q,"partition":%d}`, f.name, p)
		return
	}
	fmt.Fprintf(w, `{"found":false,"value":null,"instance":%q,"copy":"active","state":"restored","partition":%d,"offset":-1}`, f.name, p)
}

// runRouted runs a query load of ask against two fake instances, i1
// owning partitions 0 and 1, i2 partitions 2 and 3, for a moment.
func runRouted(t *testing.T, ask string) (*fakeAPI, *fakeAPI, int64) {
	t.Helper()
	spec := loadgen.DefaultSpec()
	spec.Records, spec.Keys, spec.Partitions = 2000, 500, 4
	check, err := loadgen.NewReadChecker(spec)
	if err != nil {
		t.Fatal(err)
	}
	a := &fakeAPI{name: "i1", owns: map[int32]bool{0: true, 1: true}, parts: 4}
	b := &fakeAPI{name: "i2", owns: map[int32]bool{2: true, 3: true}, parts: 4}
	sa, sb := httptest.NewServer(a), httptest.NewServer(b)
	defer sa.Close()
	defer sb.Close()
	addrA, addrB := strings.TrimPrefix(sa.URL, "http://"), strings.TrimPrefix(sb.URL, "http://")
	targets := FixedTargets{Addr: addrA, Owned: func(p int32) string {
		if p < 2 {
			return addrA
		}
		return addrB
	}}
	q := &config.QueryLoad{Rate: 400, Ask: ask}
	c := config.DefaultCase()
	c.Queries = q
	l := NewKSQueriesWith(fleet.Request{Case: c}, check, targets)
	go l.Run()
	time.Sleep(500 * time.Millisecond)
	rec := l.Stop()
	if rec.Lookups < 50 || rec.Lookups != rec.Answered+rec.Refused {
		t.Fatalf("%s: %d lookups, %d answered, %d refused", ask, rec.Lookups, rec.Answered, rec.Refused)
	}
	return a, b, rec.Refused
}

// TestQueriesAskOwnerGoesToTheOwner: with ask: owner every lookup goes to
// the instance holding its key's partition, asked not to forward, and
// none is refused; with ask: any (the default) they go to the instances
// in turn, free to forward.
func TestQueriesAskOwnerGoesToTheOwner(t *testing.T) {
	a, b, refused := runRouted(t, config.AskOwner)
	if a.notOwnedDirect+b.notOwnedDirect != 0 || a.forwardable+b.forwardable != 0 || refused != 0 || a.asked == 0 || b.asked == 0 {
		t.Fatalf("owner: i1 asked %d (%d not its own, %d forwardable), i2 asked %d (%d, %d), %d refused",
			a.asked, a.notOwnedDirect, a.forwardable, b.asked, b.notOwnedDirect, b.forwardable, refused)
	}
	// fixedTargets' any() is the one address: every lookup goes to i1 and may be forwarded.
	a, b, _ = runRouted(t, "")
	if b.asked != 0 || a.forwardable != a.asked || a.asked == 0 {
		t.Fatalf("any: i1 asked %d (%d forwardable), i2 asked %d", a.asked, a.forwardable, b.asked)
	}
}

// TestZipfKeysAskHotKeysMost: keys: zipf asks the lowest key ids most
// (key 0 alone about a sixth of the lookups at s=1.1 over 10,000 keys),
// uniform keys each about as often as any other.
func TestZipfKeysAskHotKeysMost(t *testing.T) {
	share := func(q config.QueryLoad) float64 {
		draw := newKeyDraw(q, 10_000, rand.New(rand.NewPCG(1, 2)))
		hot := 0
		for range 100_000 {
			k := draw()
			if k < 0 || k >= 10_000 {
				t.Fatalf("key %d out of range", k)
			}
			if k == 0 {
				hot++
			}
		}
		return float64(hot) / 100_000
	}
	if z := share(config.QueryLoad{Keys: config.KeysZipf}); z < 0.05 {
		t.Fatalf("zipf: key 0 got %.3f of the lookups, want a hot key", z)
	}
	if u := share(config.QueryLoad{}); u > 0.001 {
		t.Fatalf("uniform: key 0 got %.4f of the lookups, want about 1/10000", u)
	}
}
