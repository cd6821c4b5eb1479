package main

import (
	"strings"
	"testing"
)

// TestRestoreProcessingGuaranteeOnATransactionalFill drives fill and
// restore as a user would: a transactional fill with aborts restored by
// default (at_least_once) reads uncommitted, warns and fails verification;
// --processing-guarantee exactly_once_v2 reads committed and verifies; a
// guarantee Kafka Streams 4.x does not have is refused naming the flag.
func TestRestoreProcessingGuaranteeOnATransactionalFill(t *testing.T) {
	dir := t.TempDir()
	out, _, err := cli(t, "-q", "--data-dir", dir, "fill", "--records", "30000", "--keys", "4000", "--partitions", "2",
		"--transactional", "--transaction-records", "500", "--abort-ratio", "0.2")
	if err != nil || !strings.Contains(out, "transactional: ") || !strings.Contains(out, "aborted (") {
		t.Fatalf("fill: %v\n%s", err, out)
	}
	out, stderr, err := cli(t, "-q", "--data-dir", dir, "restore", "--out", dir+"/alos", "--no-ready")
	if err == nil || !strings.Contains(out, "verification failed") || !strings.Contains(stderr, "restore: warning: case restore #1 restored read_uncommitted over transactional batches") {
		t.Fatalf("at_least_once restore: %v\nstdout:\n%s\nstderr:\n%s", err, out, stderr)
	}
	if !strings.Contains(out, "read_uncommitted: ") || !strings.Contains(out, "the aborted transactions' records restored too") {
		t.Fatalf("at_least_once summary says nothing of how it read:\n%s", out)
	}
	out, _, err = cli(t, "-q", "--data-dir", dir, "restore", "--processing-guarantee", "exactly_once_v2", "--out", dir+"/eos", "--no-ready")
	if err != nil || !strings.Contains(out, "1/1") || !strings.Contains(out, "read_committed: 30000 records restored over") {
		t.Fatalf("exactly_once_v2 restore: %v\n%s", err, out)
	}
	_, _, err = cli(t, "-q", "--data-dir", dir, "restore", "--processing-guarantee", "exactly_once", "--out", dir+"/bad")
	if err == nil || !strings.Contains(err.Error(), `--processing-guarantee: "exactly_once" is not one of at_least_once, exactly_once_v2`) {
		t.Fatalf("an unknown guarantee: got %v", err)
	}
	_, _, err = cli(t, "-q", "--data-dir", dir, "fill", "--records", "100", "--abort-ratio", "0.1")
	if err == nil || !strings.Contains(err.Error(), "--abort-ratio: is set only with transactional: true") {
		t.Fatalf("--abort-ratio without --transactional: got %v", err)
	}
}
