package integration

import (
	"errors"
	"strings"
	"testing"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/scenario"
)

// TestRollingRestartQueriesStreamsProtocol runs TestRollingRestartQueries'
// rolling restart under group.protocol=streams (KIP-1071). There Kafka
// Streams' queryMetadataForKey names the wrong partition for some keys
// while a partition is assigned to no member (it computes murmur2 modulo
// the partitions assigned, not the topic's), so an application's API
// layer reads a store that cannot hold the key. The test asks that the
// stores verify against the fill plus the load, and that every wrong
// answer is one of those misrouted reads, named so in the record and the
// run's error: no store served a wrong value for a key of its own
// partition, and no wrong read goes unreported.
func TestRollingRestartQueriesStreamsProtocol(t *testing.T) {
	rec, err := runRollingQueries(t, map[string]string{"group.protocol": "streams"}, "")
	q, rr := rec.Queries, rec.Rolling
	if q == nil || rr == nil || len(rr.Restarts) != 2 || rec.Verification.Problem != "" {
		t.Fatalf("err %v; verification %q, queries %+v, rolling %+v", err, rec.Verification.Problem, q, rr)
	}
	t.Logf("streams protocol: %d lookups, %d answered, %d refused, %d wrong, %d of them misrouted; e.g. %v",
		q.Lookups, q.Answered, q.Refused, q.Wrong, q.Misrouted, q.WrongReads)
	if q.Wrong != q.Misrouted || q.Lookups == 0 || q.Lookups != q.Answered+q.Refused {
		t.Fatalf("wrong answers that Kafka Streams' routing does not explain: %d wrong, %d misrouted: %v", q.Wrong, q.Misrouted, q.WrongReads)
	}
	if q.Wrong == 0 {
		if err != nil || !rec.Verified {
			t.Fatalf("no wrong answer, yet the run failed: %v (verified %v)", err, rec.Verified)
		}
		return
	}
	// A misrouted answer is still a wrong read: it fails the run, says why.
	if !errors.Is(err, scenario.ErrUnverified) || rec.Verified || !strings.Contains(err.Error(), "misrouted") ||
		!strings.Contains(q.WrongReads[0], "queryMetadataForKey named partition") {
		t.Fatalf("%d misrouted answers, but err %v, verified %v, first note %q", q.Misrouted, err, rec.Verified, q.WrongReads[0])
	}
}

// TestRollingRestartQueriesStreamsProtocolTopicPartitioner runs the same
// restart with queries.partitioner: topic, the API layer giving
// queryMetadataForKey a partitioner that hashes over the topic's 4
// partitions: no answer is misrouted or wrong (a key whose partition no
// member holds is refused instead), the stores verify, and every
// restarted instance's keys are answered again.
func TestRollingRestartQueriesStreamsProtocolTopicPartitioner(t *testing.T) {
	rec, err := runRollingQueries(t, map[string]string{"group.protocol": "streams"}, config.PartitionerTopic)
	if err != nil {
		t.Fatal(err)
	}
	checkRecords(t, rec)
	q, rr := rec.Queries, rec.Rolling
	if !rec.Verified || q == nil || rr == nil || len(rr.Restarts) != 2 {
		t.Fatalf("verified %v (%s), queries %+v, rolling %+v", rec.Verified, rec.Verification.Problem, q, rr)
	}
	t.Logf("streams protocol, topic partitioner: %d lookups, %d answered, %d refused (%v), %d wrong",
		q.Lookups, q.Answered, q.Refused, q.RefusedWhy, q.Wrong)
	if q.Wrong != 0 || q.Misrouted != 0 || q.Lookups == 0 || q.Lookups != q.Answered+q.Refused {
		t.Fatalf("queries: %d lookups, %d answered, %d refused, %d wrong, %d misrouted (%v)",
			q.Lookups, q.Answered, q.Refused, q.Wrong, q.Misrouted, q.WrongReads)
	}
	for _, row := range rr.Restarts {
		checkRestartReads(t, row)
	}
}
