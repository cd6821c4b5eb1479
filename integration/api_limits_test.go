package integration

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/restorebench/restorebench/bench"
	"github.com/restorebench/restorebench/fleet"
	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/loadgen"
)

// limitsHeap is the heap the bounded instances run in: a full-store range
// of the test's store took an instance this small down before ranges were
// bounded (the answer and its copies are several times the heap's room).
const limitsHeap = "-Xmx96m"

// startSmallAPIInstance is startAPIInstance with the JVM at limitsHeap,
// ending at its first OutOfMemoryError as a case's instances do.
func startSmallAPIInstance(ctx context.Context, t *testing.T, env *bench.Env, app, id string, extra map[string]string) *ksdriver.Instance {
	t.Helper()
	dir := t.TempDir()
	c := ksCase("api", 1)
	props := c.KafkaStreamsProperties()
	props["application.id"], props["bootstrap.servers"], props["state.dir"] = app, env.Cluster.Brokers[0], dir
	props[ksdriver.PropStore], props[ksdriver.PropInputTopic] = ksStore, fleet.InputTopic(app, ksStore)
	props[ksdriver.PropAPIPort] = "0"
	maps.Copy(props, extra)
	in, err := ksdriver.Start(ctx, ksdriver.Options{ID: id, Dir: filepath.Join(dir, "instance"), Properties: props,
		JVMFlags: []string{limitsHeap, "-XX:+ExitOnOutOfMemoryError"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(in.Kill)
	if _, err := in.AwaitAPI(ctx); err != nil {
		t.Fatal(err)
	}
	return in
}

// limitAnswer is the API layer's answer to a range as far as its limits
// go: a refusal over a cap (400), or beyond the concurrency (429).
type limitAnswer struct {
	status     int
	Error      string `json:"error"`
	TooWide    bool   `json:"too_wide"`
	Over       string `json:"over"`
	MaxEntries int64  `json:"max_entries"`
	Read       int64  `json:"read"`
	Refused    bool   `json:"refused"`
	Reason     string `json:"reason"`
	Limit      int    `json:"limit"`
	Entries    []ksdriver.RangeEntry
	Partitions []int32
	body       int // bytes
}

// getRange GETs path from the API layer at addr: its status and what it
// says of the limits (an error for a reply neither JSON nor a forwarded
// range's plain form).
func getRange(ctx context.Context, c *http.Client, addr, path string) (limitAnswer, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+path, nil)
	if err != nil {
		return limitAnswer{}, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return limitAnswer{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return limitAnswer{}, err
	}
	a := limitAnswer{status: resp.StatusCode, body: len(body)}
	if strings.HasPrefix(string(body), "partitions ") { // a forwarded range's answer
		a.Entries = make([]ksdriver.RangeEntry, max(0, strings.Count(string(body), "\n")-1))
		return a, nil
	}
	if err := json.Unmarshal(body, &a); err != nil {
		return a, fmt.Errorf("GET %s: HTTP %d: %w: %.300s", path, resp.StatusCode, err, body)
	}
	return a, nil
}

// assertTooWide: a is the refusal of a range over the entry cap that
// stopped reading at the entry over it.
func assertTooWide(t *testing.T, what string, a limitAnswer, err error) {
	t.Helper()
	if why := notTooWide(a, err); why != "" {
		t.Fatalf("%s: %s", what, why)
	}
}

// notTooWide is why a is not assertTooWide's refusal, "" when it is.
func notTooWide(a limitAnswer, err error) string {
	switch {
	case err != nil:
		return err.Error()
	case a.status != http.StatusBadRequest || !a.TooWide || a.Over != "entries" || a.MaxEntries != 10_000 ||
		!strings.Contains(a.Error, "over 10000 entries") || !strings.Contains(a.Error, ksdriver.PropAPIRangeMaxEntries):
		return fmt.Sprintf("HTTP %d %+v, want 400 too wide, over the 10000-entry cap", a.status, a)
	case a.Read != 10_001:
		return fmt.Sprintf("%d entries read before the refusal, want 10001 (the cap and the one over it)", a.Read)
	}
	return ""
}

// TestAPILayerBoundsRanges fills a 63,000-key store (values of 100 bytes,
// about 17 MB of range answer in all) and serves it from two instances at
// -Xmx96m: a range over the 10,000-entry cap, asked directly, forwarded
// (?forwarded=x&partitions=...: before, uncapped), or gathered from both
// instances (the second asked only for what the cap leaves), is refused
// once the 10,001st entry is read; a range under the cap is answered whole
// from both; bursts of full-store ranges beyond the concurrency limit get
// HTTP 429 naming it, every other one the cap's refusal; and the instances
// survive it all and still answer.
func TestAPILayerBoundsRanges(t *testing.T) {
	t.Parallel()
	needDriver(t)
	env := connect(t, bench.Options{})
	app := ksApp(t, env)
	spec := loadgen.DefaultSpec()
	spec.Records, spec.Keys, spec.ValueMin, spec.ValueMax, spec.Partitions = 63_000, 63_000, 100, 100, 4
	spec.KeyOrder = loadgen.KeysSequential // every key once: 63,000 live entries
	ksFill(t, env, app, spec, "lz4")
	ensureInputOf(t, env, app, spec.Partitions)
	check, err := loadgen.NewReadChecker(spec)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	a := startSmallAPIInstance(ctx, t, env, app, "a", balancedProps)
	b := startSmallAPIInstance(ctx, t, env, app, "b", balancedProps)
	owners := balancedOwners(ctx, t, spec.Partitions, a, b)
	client := &http.Client{Timeout: time.Minute}
	keyHex := func(id int64) string { k, _ := check.Key(id); return hex.EncodeToString(k) }
	first, last := keyHex(0), keyHex(spec.Keys-1)

	// The whole store, asked of a: a's own partitions alone are over the cap.
	r, err := getRange(ctx, client, a.APIAddr(), "/range/"+first+"/"+last)
	assertTooWide(t, "the whole store asked of a", r, err)
	// Forwarded, for every partition and for one (about 15,750 entries).
	r, err = getRange(ctx, client, a.APIAddr(), "/range/"+first+"/"+last+"?forwarded=x&partitions=0,1,2,3")
	assertTooWide(t, "the whole store forwarded to a", r, err)
	var ownA int32 = -1
	for p, o := range owners {
		if o == "a" {
			ownA = p
		}
	}
	r, err = getRange(ctx, client, a.APIAddr(), fmt.Sprintf("/range/%s/%s?forwarded=x&partitions=%d", first, last, ownA))
	assertTooWide(t, fmt.Sprintf("partition %d forwarded to its owner a", ownA), r, err)
	checkEntriesSumToDigest(ctx, t, a, ownA)
	// A forward's own caps are lowered by the asker's, never raised.
	r, err = getRange(ctx, client, a.APIAddr(), fmt.Sprintf("/range/%s/%s?forwarded=x&partitions=%d&max_entries=5", first, last, ownA))
	if err != nil || r.status != http.StatusBadRequest || r.MaxEntries != 5 || r.Read != 6 {
		t.Fatalf("a forward with max_entries=5: HTTP %d %+v, %v", r.status, r, err)
	}
	r, err = getRange(ctx, client, a.APIAddr(), fmt.Sprintf("/range/%s/%s?forwarded=x&partitions=%d&max_entries=99999999", first, last, ownA))
	assertTooWide(t, "a forward asking for more than the cap", r, err)
	// 15,000 keys over both: each instance's part is under the cap, the
	// two together over it, so the asker stops the other's answer.
	for _, in := range []*ksdriver.Instance{a, b} {
		r, err = getRange(ctx, client, in.APIAddr(), "/range/"+first+"/"+keyHex(14_999))
		assertTooWide(t, "15,000 keys gathered from both, asked of "+in.ID(), r, err)
	}
	// Under the cap: answered whole, from both instances.
	ans, err := ksdriver.Range(ctx, client, b.APIAddr(), mustHex(t, first), mustHex(t, keyHex(8_999)), false)
	if err != nil || ans.Refused || len(ans.Entries) != 9_000 || len(ans.Partitions) != int(spec.Partitions) {
		t.Fatalf("9,000 keys asked of b: %d entries, partitions %v, refused %v %q, %v", len(ans.Entries), ans.Partitions, ans.Refused, ans.Reason, err)
	}
	copies := map[string]bool{}
	for _, c := range ans.Copies {
		copies[c.Instance] = true
	}
	if len(copies) != 2 {
		t.Fatalf("9,000 keys asked of b came from %v, want both instances", copies)
	}

	// Bursts of full-store ranges, asked and forwarded, at a: each is the
	// cap's refusal or the concurrency limit's 429, and some burst meets
	// the limit (24 at once against 4 and 4 permits: the first does).
	limited := 0
	for burst := 0; burst < 5 && limited == 0; burst++ {
		var mu sync.Mutex
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range 24 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				path := "/range/" + first + "/" + last
				if i%2 == 1 {
					path += "?forwarded=x&partitions=0,1,2,3"
				}
				<-start
				r, err := getRange(ctx, client, a.APIAddr(), path)
				mu.Lock()
				defer mu.Unlock()
				if err == nil && r.status == http.StatusTooManyRequests {
					if !r.Refused || r.Limit != 4 || !strings.Contains(r.Reason, ksdriver.PropAPIRangeConcurrency) {
						t.Errorf("burst %d, %s: 429 %+v, want a refusal naming the limit of 4", burst, path, r)
					}
					limited++
					return
				}
				if why := notTooWide(r, err); why != "" {
					t.Errorf("burst %d, %s: %s", burst, path, why)
				}
			}()
		}
		close(start)
		wg.Wait()
		if t.Failed() {
			t.FailNow()
		}
	}
	if limited == 0 {
		t.Fatal("5 bursts of 24 full-store ranges: none was refused by the concurrency limit")
	}
	t.Logf("%d ranges of the bursts refused by the concurrency limit (429)", limited)

	// Both instances lived through it and still answer.
	for _, in := range []*ksdriver.Instance{a, b} {
		select {
		case <-in.Done():
			t.Fatalf("instance %s ended: %v", in.ID(), in.Stop(ctx))
		default:
		}
		if state, _ := lastStateAndTasks(in); state != ksdriver.StateRunning {
			t.Fatalf("instance %s is %s after the bursts", in.ID(), state)
		}
		ans, err := ksdriver.Range(ctx, client, in.APIAddr(), mustHex(t, keyHex(100)), mustHex(t, keyHex(119)), false)
		got := map[string][]byte{}
		for _, e := range ans.Entries {
			got[string(mustHex(t, e.Key))] = mustHex(t, e.Value)
		}
		if err != nil || ans.Refused {
			t.Fatalf("a 20-key range asked of %s after the bursts: %+v, %v", in.ID(), ans, err)
		}
		if w, _, why := loadgen.CheckRange(100, 119, got, check.Check); w != loadgen.ReadCorrect {
			t.Fatalf("a 20-key range asked of %s after the bursts: %s", in.ID(), why)
		}
	}
	for _, in := range []*ksdriver.Instance{a, b} {
		if err := in.Stop(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkEntriesSumToDigest asks the instance for one partition's entries
// key by key (`entries PARTITION PATH`, what names the key a restore got
// wrong) and holds them to its digest of the partition: as many keys, and
// hashes that sum to it.
func checkEntriesSumToDigest(ctx context.Context, t *testing.T, in *ksdriver.Instance, partition int32) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "entries.tsv")
	ev, err := in.Request(ctx, fmt.Sprintf("entries %d %s", partition, path), ksdriver.EvEntries)
	if err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var sum loadgen.Digest
	var keys int64
	for _, line := range strings.Split(strings.TrimSuffix(string(text), "\n"), "\n") {
		k, h, ok := strings.Cut(line, "\t")
		n, err := strconv.ParseUint(h, 16, 64)
		if _, kerr := hex.DecodeString(k); !ok || err != nil || kerr != nil {
			t.Fatalf("entries line %q: want KEYHEX<TAB>HASH", line)
		}
		sum += loadgen.Digest(n)
		keys++
	}
	d, err := in.Request(ctx, "digest", ksdriver.EvDigest)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range d.(*ksdriver.Digest).States() {
		if st.Partition == partition && (st.Keys != keys || st.Digest != sum || ev.(*ksdriver.Entries).Keys != keys) {
			t.Fatalf("partition %d: %d entries (the event says %d) summing to %s; its digest: %d keys, %s",
				partition, keys, ev.(*ksdriver.Entries).Keys, sum, st.Keys, st.Digest)
		}
	}
}
