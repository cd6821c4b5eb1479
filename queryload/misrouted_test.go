package queryload

import (
	"encoding/hex"
	"fmt"
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

// shrunkAPI is an instance whose Kafka Streams believes the topic has
// parts partitions when it has more (group.protocol=streams while a
// partition is assigned to no member): it reads the partition murmur2
// modulo parts names, and that partition, restored, does not hold the key.
type shrunkAPI struct {
	parts, real int32
	Mu          sync.Mutex
	misrouted   int
}

func (f *shrunkAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	key, _ := hex.DecodeString(strings.TrimPrefix(r.URL.Path, "/kv/"))
	named := loadgen.PartitionFor(key, f.parts)
	if named != loadgen.PartitionFor(key, f.real) {
		f.Mu.Lock()
		f.misrouted++
		f.Mu.Unlock()
	}
	fmt.Fprintf(w, `{"found":false,"value":null,"instance":"i1","copy":"active","state":"restored","partition":%d,"offset":4885}`, named)
}

// TestMisroutedLookupsAreWrongAndSaySo: answers read from a partition the
// key is not in (Kafka Streams' queryMetadataForKey modulo 3 partitions of
// 4) are all wrong, even for keys the fill never wrote (whose "not found"
// is right only by chance), counted as misrouted, with a note naming
// Kafka Streams' routing and both partitions.
func TestMisroutedLookupsAreWrongAndSaySo(t *testing.T) {
	spec := loadgen.DefaultSpec()
	spec.Records, spec.Keys, spec.Partitions = 500, 2000, 4 // most keys never written
	check, err := loadgen.NewReadChecker(spec)
	if err != nil {
		t.Fatal(err)
	}
	api := &shrunkAPI{parts: 3, real: 4}
	srv := httptest.NewServer(api)
	defer srv.Close()
	c := config.DefaultCase()
	c.Queries = &config.QueryLoad{Rate: 400}
	l := NewKSQueriesWith(fleet.Request{Case: c}, check, FixedTargets{Addr: strings.TrimPrefix(srv.URL, "http://")})
	go l.Run()
	time.Sleep(500 * time.Millisecond)
	rec := l.Stop()
	api.Mu.Lock()
	defer api.Mu.Unlock()
	if api.misrouted < 20 || rec.Misrouted != int64(api.misrouted) || rec.Wrong < rec.Misrouted || rec.Answered != rec.Lookups {
		t.Fatalf("%d misrouted by the instance; record: %d lookups, %d answered, %d wrong, %d misrouted",
			api.misrouted, rec.Lookups, rec.Answered, rec.Wrong, rec.Misrouted)
	}
	note := rec.WrongReads[0]
	for _, want := range []string{"misrouted", "queryMetadataForKey named partition", "the key is in partition", "3 partitions, not the topic's 4", "offset 4885"} {
		if !strings.Contains(note, want) {
			t.Fatalf("note %q lacks %q", note, want)
		}
	}
	if msg := WrongReadsText(rec.Wrong, rec.Answered, rec.Misrouted, note); !strings.Contains(msg, fmt.Sprintf("%d of them misrouted", rec.Misrouted)) {
		t.Fatalf("summary %q does not say how many were misrouted", msg)
	}
}
