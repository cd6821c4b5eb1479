package ksdriver

import (
	"context"
	"encoding/hex"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/restorebench/restorebench/loadgen"
)

// kindVectors is one store kind's shared digest vectors: a file of lines
// (kind, record key, time, time, value) and the key and value Go's
// expected state digests each line's entry under.
type kindVectors struct {
	kind  loadgen.StoreKind
	file  string
	least int64 // the fewest entries the file holds
	entry func(key []byte, t1, t2 int64, value []byte) (k, v []byte)
}

// TestDriverDigestsTwoTimeKindsAsGo runs the driver's --digest-vectors
// mode on the session, versioned and timestamped window stores' shared vectors (two times a
// line; the one-time kinds are TestDriverDigestsStoreKindsAsGo's) and checks that it digests every
// entry as Go's expected state does: under the same key and value bytes
// (a session under record key, end and start, loadgen.AppendSessionKey; a
// version under record key and validFrom with validTo before its value,
// loadgen.AppendVersionedDigestKey and AppendVersionedDigestValue; a
// timestamped window under record key and window start with the record's
// timestamp before its value), with
// the same hashes, digest, entry count and live bytes.
func TestDriverDigestsTwoTimeKindsAsGo(t *testing.T) {
	lib, java := builtDriver(t)
	for _, kv := range []kindVectors{
		{kind: loadgen.KindSession, file: "digest_vectors_sessions.tsv", least: 4, entry: func(key []byte, start, end int64, value []byte) ([]byte, []byte) {
			return loadgen.AppendSessionKey(nil, key, start, end), value
		}},
		{kind: loadgen.KindVersionedKeyValue, file: "digest_vectors_versioned.tsv", least: 5, entry: func(key []byte, from, to int64, value []byte) ([]byte, []byte) {
			return loadgen.AppendVersionedDigestKey(nil, key, from), loadgen.AppendVersionedDigestValue(nil, to, value)
		}},
		{kind: loadgen.KindTimestampedWindow, file: "digest_vectors_timestamped_window.tsv", least: 5, entry: func(key []byte, start, ts int64, value []byte) ([]byte, []byte) {
			return loadgen.WindowDigestKey(loadgen.AppendWindowKey(nil, key, start, 0)), loadgen.AppendTimestamped(nil, ts, value)
		}},
	} {
		t.Run(string(kv.kind), func(t *testing.T) { checkKindVectors(t, lib, java, kv) })
	}
}

// checkKindVectors runs the driver on one kind's vectors and compares each
// of its lines (kind, key, t1, t2, value, digest key, digest value, hash)
// and its total line (digest, ..., entries, ..., live bytes) with Go's.
func checkKindVectors(t *testing.T, lib, java string, kv kindVectors) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, java, "-cp", Classpath(lib), MainClass, "--digest-vectors", filepath.Join("..", "testdata", kv.file)).Output()
	if err != nil {
		t.Fatalf("--digest-vectors: %v", err)
	}
	var want loadgen.Digest
	var entries, live int64
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "\t")
		if f[0] == "digest" {
			if len(f) != 6 || f[1] != want.String() || f[3] != strconv.FormatInt(entries, 10) || f[5] != strconv.FormatInt(live, 10) || entries < kv.least {
				t.Fatalf("driver's total %q, Go's digest %s entries %d live_bytes %d (%d entries at least)", line, want, entries, live, kv.least)
			}
			return
		}
		if len(f) != 8 || f[0] != string(kv.kind) {
			t.Fatalf("driver line %q: want 8 fields of a %s vector", line, kv.kind)
		}
		t1, err1 := strconv.ParseInt(f[2], 10, 64)
		t2, err2 := strconv.ParseInt(f[3], 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("%q: times", line)
		}
		k, v := kv.entry(mustHex(t, f[1]), t1, t2, mustHex(t, f[4]))
		if f[5] != hex.EncodeToString(k) || f[6] != hex.EncodeToString(v) {
			t.Errorf("%s: driver digests key %s value %s, Go key %x value %x", line, f[5], f[6], k, v)
		}
		if got, exp := f[7], fmt.Sprintf("%016x", loadgen.EntryHash(k, v)); got != exp {
			t.Errorf("%s: driver %s, Go %s", line, got, exp)
		}
		want.Add(k, v)
		entries++
		live += int64(len(k) + len(v))
	}
	t.Fatalf("no digest line in the driver's output:\n%s", out)
}
