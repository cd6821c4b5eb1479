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

// TestDriverDigestsVersionedAsGo runs the driver's --digest-vectors mode
// on the shared versioned-store vectors
// (testdata/digest_vectors_versioned.tsv: kind, record key, validFrom,
// validTo, value) and checks that it digests each version as Go's
// expected state does (loadgen.AppendVersionedDigestKey and
// AppendVersionedDigestValue), with the same hashes, digest, entries and
// live bytes.
func TestDriverDigestsVersionedAsGo(t *testing.T) {
	lib, java := builtDriver(t)
	vectors := filepath.Join("..", "testdata", "digest_vectors_versioned.tsv")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, java, "-cp", Classpath(lib), MainClass, "--digest-vectors", vectors).Output()
	if err != nil {
		t.Fatalf("--digest-vectors: %v", err)
	}
	var want loadgen.Digest
	var entries, live int64
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "\t")
		if f[0] == "digest" {
			if len(f) != 6 || f[1] != want.String() || f[3] != strconv.FormatInt(entries, 10) || f[5] != strconv.FormatInt(live, 10) || entries < 5 {
				t.Fatalf("driver's total %q, Go's digest %s entries %d live_bytes %d", line, want, entries, live)
			}
			return
		}
		if len(f) != 8 || f[0] != string(loadgen.KindVersionedKeyValue) {
			t.Fatalf("driver line %q: want 8 fields of a versioned vector", line)
		}
		from, err1 := strconv.ParseInt(f[2], 10, 64)
		to, err2 := strconv.ParseInt(f[3], 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: times", line)
		}
		k := loadgen.AppendVersionedDigestKey(nil, mustHex(t, f[1]), from)
		v := loadgen.AppendVersionedDigestValue(nil, to, mustHex(t, f[4]))
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
