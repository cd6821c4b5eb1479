package queryload

import (
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/restorebench/restorebench/agent"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/loadgen"
)

// finalAPI is an instance's restored API layer that answers each key,
// from its partition, with its last value in the fill, or, wrong, with a
// value never written.
type finalAPI struct {
	final map[string][]byte // hex key → last value (nil: a tombstone)
	parts int32
	wrong bool
}

func newFinalAPI(t *testing.T, spec loadgen.Spec, wrong bool) *finalAPI {
	t.Helper()
	g, err := loadgen.NewGenerator(spec)
	if err != nil {
		t.Fatal(err)
	}
	f := &finalAPI{final: map[string][]byte{}, parts: spec.Partitions, wrong: wrong}
	for r, ok := g.Next(); ok; r, ok = g.Next() {
		f.final[hex.EncodeToString(r.Key)] = append([]byte(nil), r.Value...)
		if r.Value == nil {
			f.final[hex.EncodeToString(r.Key)] = nil
		}
	}
	return f
}

func (f *finalAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hexKey := strings.TrimPrefix(r.URL.Path, "/kv/")
	key, _ := hex.DecodeString(hexKey)
	v, ok := f.final[hexKey]
	found := ok && v != nil
	value := hex.EncodeToString(v)
	if f.wrong {
		found, value = true, "ff"
	}
	fmt.Fprintf(w, `{"found":%t,"value":%q,"instance":"i0","copy":"active","state":"restored","partition":%d,"offset":1}`, found, value, loadgen.PartitionFor(key, f.parts))
}

// TestQueriesAtChecksAgainstTheFill runs an agent's side of a query
// load against a fake restored API layer: the agent builds the checker
// from the job's spec alone, so answers of the fill's final values are
// all correct and answers of values never written all wrong, and the
// lookups split at the mark of the restore's end into During and After.
func TestQueriesAtChecksAgainstTheFill(t *testing.T) {
	spec := loadgen.DefaultSpec()
	spec.Records, spec.Keys, spec.ValueMin, spec.ValueMax, spec.Partitions = 3000, 400, 10, 40, 3
	job := agent.QueryJob{Load: config.QueryLoad{Rate: 400, After: config.Duration(time.Second)}, Spec: spec, Repeat: 1}
	for _, wrong := range []bool{false, true} {
		srv := httptest.NewServer(newFinalAPI(t, spec, wrong))
		load, err := QueriesAt(job, strings.TrimPrefix(srv.URL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(400 * time.Millisecond)
		load.Restored(ksdriver.NowMonoNs())
		time.Sleep(400 * time.Millisecond)
		rec := load.Stop()
		srv.Close()
		if rec.Lookups < 100 || rec.Answered != rec.Lookups || rec.During.Count == 0 || rec.After.Count == 0 || rec.RestoredSeconds <= 0 {
			t.Fatalf("wrong=%v: %d lookups, %d answered, %d during, %d after, restored at %.2fs", wrong, rec.Lookups, rec.Answered, rec.During.Count, rec.After.Count, rec.RestoredSeconds)
		}
		if !wrong && (rec.Correct != rec.Answered || rec.Wrong != 0) {
			t.Errorf("answers of the fill's final values: %d correct, %d wrong of %d (%v)", rec.Correct, rec.Wrong, rec.Answered, rec.WrongReads)
		}
		if wrong && rec.Wrong != rec.Answered {
			t.Errorf("answers of values never written: %d wrong of %d", rec.Wrong, rec.Answered)
		}
	}
}
