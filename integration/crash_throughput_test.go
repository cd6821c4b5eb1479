package integration

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/restorebench/restorebench/bench"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/fleet"
	"github.com/restorebench/restorebench/internal/testkafka"
	"github.com/restorebench/restorebench/ksdriver"
)

// TestTransactionalStoresThroughput measures what transactional state
// stores (enable.transactional.statestores, Kafka Streams 4.4) cost while
// processing: the word count under exactly_once_v2 with and without them,
// alternating, each on a fresh input of RESTOREBENCH_TSS_UPDATES words
// (default 500 k), timed from RUNNING until its group's committed input
// offsets reach the input's end (every word processed and committed). A
// measurement, not a check of the tool: it runs only under
// RESTOREBENCH_TSS_THROUGHPUT=N (N rounds of the pair) and logs each
// round and the medians.
//
//	CI=true RESTOREBENCH_BROKERS=127.0.0.1:19092 RESTOREBENCH_TSS_THROUGHPUT=3 \
//	  go test -count=1 -timeout 30m -run TestTransactionalStoresThroughput -v ./integration/
func TestTransactionalStoresThroughput(t *testing.T) {
	rounds, _ := strconv.Atoi(os.Getenv("RESTOREBENCH_TSS_THROUGHPUT"))
	if rounds <= 0 {
		t.Skip("a measurement: RESTOREBENCH_TSS_THROUGHPUT=N runs N rounds")
	}
	needDriver(t)
	env := connect(t, bench.Options{})
	updates := 500_000
	if n, err := strconv.Atoi(os.Getenv("RESTOREBENCH_TSS_UPDATES")); err == nil && n >= 1000 {
		updates = n
	}
	lib, err := ksdriver.EnsureLib(context.Background(), ksdriver.DefaultKafkaStreamsVersion, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	rates := map[bool][]float64{}
	for round := range rounds {
		for _, tss := range []bool{false, true} {
			secs := processAll(t, env, lib, updates, tss, round)
			rates[tss] = append(rates[tss], float64(updates)/secs)
			t.Logf("round %d, transactional stores %v: %d words processed and committed in %.2f s (%.0f words/s)", round, tss, updates, secs, float64(updates)/secs)
		}
	}
	med := func(xs []float64) float64 {
		s := append([]float64(nil), xs...)
		sort.Float64s(s)
		return s[len(s)/2]
	}
	plain, tx := med(rates[false]), med(rates[true])
	t.Logf("exactly_once_v2 on Kafka Streams %s, %d words a round, %d rounds: plain stores %.0f words/s (%v), transactional stores %.0f words/s (%v): %+.1f%%",
		ksdriver.DefaultKafkaStreamsVersion, updates, rounds, plain, rates[false], tx, rates[true], 100*(tx/plain-1))
}

// processAll runs the word count under exactly_once_v2 (with transactional
// stores or not) over a fresh input of updates words and returns the
// seconds from RUNNING until its committed input offsets reach the end.
func processAll(t *testing.T, env *bench.Env, lib string, updates int, tss bool, round int) float64 {
	t.Helper()
	app := fmt.Sprintf("%s-r%d-tss-%v", testkafka.TopicName(t), round, tss)
	input := app + "-input"
	t.Cleanup(func() { deleteUserApp(env, app, app) })
	adm := testAdmin(t, env)
	writeInput(t, env, adm, input, userAppsInputPartitions, func(cl *kgo.Client) int64 {
		return produceCountedLines(t, cl, input, updates, nil)
	})
	ends, err := adm.ListEndOffsets(context.Background(), input)
	if err != nil {
		t.Fatal(err)
	}
	flags := append(fleet.JVMFlags(ksCase("app", 1)), "-Dstreams.processing.guarantee="+config.ExactlyOnceV2)
	if tss {
		flags = append(flags, "-Dstreams.enable.transactional.statestores=true")
	}
	p := startUserApp(t, lib, flags, "restorebench.apps.WordCount", env.Cluster.Brokers, app, t.TempDir(), input)
	defer p.stop(t)
	ran := awaitRunning(t, p, 2*time.Minute)
	deadline := ran.Add(5 * time.Minute)
	for time.Now().Before(deadline) {
		if committedAll(adm, app, ends) {
			return time.Since(ran).Seconds()
		}
		if p.exited() {
			t.Fatalf("the word count exited: %s", p.tail())
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("the word count did not commit its whole input within 5 minutes: %s", p.tail())
	return 0
}

// committedAll says group app's committed offsets reached ends on every
// partition of the input.
func committedAll(adm *kadm.Client, app string, ends kadm.ListedOffsets) bool {
	committed, err := adm.FetchOffsets(context.Background(), app)
	if err != nil {
		return false
	}
	done := true
	ends.Each(func(o kadm.ListedOffset) {
		c, ok := committed.Lookup(o.Topic, o.Partition)
		if !ok || c.At < o.Offset {
			done = false
		}
	})
	return done
}
