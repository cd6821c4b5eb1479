package ksdriver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/restorebench/restorebench/loadgen"
)

// builtDriver returns the driver's lib directory and java. Without a built
// driver the test is skipped, except under CI=true, where it fails: CI must
// test the driver (make test builds it).
func builtDriver(t *testing.T) (lib, java string) {
	t.Helper()
	lib, err := FindLib()
	if err == nil {
		java, err = FindJava()
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the Kafka Streams driver cannot run under CI=true: %v", err)
		}
		t.Skipf("Kafka Streams driver not available: %v", err)
	}
	return lib, java
}

// TestDriverDigestMatchesGoVerifier runs the driver's --digest-vectors mode
// on the shared vectors and checks every entry hash, and the digest, key
// count and live bytes of all of them as one partition, against
// loadgen.EntryHash: a Kafka Streams restore is verified exactly as the
// model's only if both sides hash alike.
func TestDriverDigestMatchesGoVerifier(t *testing.T) {
	lib, java := builtDriver(t)
	vectors := filepath.Join("..", "testdata", "digest_vectors.tsv")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, java, "-cp", Classpath(lib), MainClass, "--digest-vectors", vectors).Output()
	if err != nil {
		t.Fatalf("--digest-vectors: %v", err)
	}
	var want loadgen.Digest
	var keys, live int64
	lines := 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if f[0] == "digest" {
			if len(f) != 6 || f[1] != want.String() || f[3] != strconv.FormatInt(keys, 10) || f[5] != strconv.FormatInt(live, 10) {
				t.Fatalf("driver's total %q, Go's digest %s keys %d live_bytes %d", sc.Text(), want, keys, live)
			}
			if lines == 0 {
				t.Fatal("no vectors were hashed")
			}
			return
		}
		k, v := mustHex(t, f[0]), mustHex(t, f[1])
		if got, exp := f[2], fmt.Sprintf("%016x", loadgen.EntryHash(k, v)); got != exp {
			t.Errorf("key %q value %q: driver %s, Go %s", f[0], f[1], got, exp)
		}
		want.Add(k, v)
		keys++
		live += int64(len(k) + len(v))
		lines++
	}
	t.Fatalf("no digest line in the driver's output:\n%s", out)
}

// TestDriverDigestsStoreKindsAsGo runs the driver's --digest-vectors mode
// on the shared store-kind vectors (testdata/digest_vectors_kinds.tsv:
// kind, record key, time, value) and checks that it digests each entry as
// Go's expected state of that kind does: a timestamped key-value store's
// value behind its 8-byte timestamp (loadgen.AppendTimestamped), a window
// store's under the record key and window start (loadgen.WindowDigestKey
// of the changelog key), with the same hashes, digest, keys and live bytes.
func TestDriverDigestsStoreKindsAsGo(t *testing.T) {
	lib, java := builtDriver(t)
	vectors := filepath.Join("..", "testdata", "digest_vectors_kinds.tsv")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, java, "-cp", Classpath(lib), MainClass, "--digest-vectors", vectors).Output()
	if err != nil {
		t.Fatalf("--digest-vectors: %v", err)
	}
	var want loadgen.Digest
	var keys, live int64
	kinds := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "\t")
		if f[0] == "digest" {
			if len(f) != 6 || f[1] != want.String() || f[3] != strconv.FormatInt(keys, 10) || f[5] != strconv.FormatInt(live, 10) {
				t.Fatalf("driver's total %q, Go's digest %s keys %d live_bytes %d", line, want, keys, live)
			}
			if kinds[string(loadgen.KindTimestampedKeyValue)] == 0 || kinds[string(loadgen.KindWindow)] == 0 {
				t.Fatalf("vectors of each kind wanted, got %v", kinds)
			}
			return
		}
		if len(f) != 7 {
			t.Fatalf("driver line %q: want 7 fields", line)
		}
		k, v := goDigestEntry(t, f[0], mustHex(t, f[1]), f[2], mustHex(t, f[3]))
		if f[4] != hex.EncodeToString(k) || f[5] != hex.EncodeToString(v) {
			t.Errorf("%s: driver digests key %s value %s, Go key %x value %x", line, f[4], f[5], k, v)
		}
		if got, exp := f[6], fmt.Sprintf("%016x", loadgen.EntryHash(k, v)); got != exp {
			t.Errorf("%s: driver %s, Go %s", line, got, exp)
		}
		want.Add(k, v)
		keys++
		live += int64(len(k) + len(v))
		kinds[f[0]]++
	}
	t.Fatalf("no digest line in the driver's output:\n%s", out)
}

// goDigestEntry is the entry Go's expected state of a store kind digests
// for a record of key, time (a record timestamp, or a window start) and
// value.
func goDigestEntry(t *testing.T, kind string, key []byte, timeText string, value []byte) ([]byte, []byte) {
	t.Helper()
	ts, err := strconv.ParseInt(timeText, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	switch loadgen.StoreKind(kind) {
	case loadgen.KindTimestampedKeyValue:
		return key, loadgen.AppendTimestamped(nil, ts, value)
	case loadgen.KindWindow:
		return loadgen.WindowDigestKey(loadgen.AppendWindowKey(nil, key, ts, 0)), value
	}
	t.Fatalf("kind %q", kind)
	return nil, nil
}

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatalf("hex %q: %v", s, err)
	}
	return b
}

// TestDriverRefusingItsConfigIsOneClearError starts the real driver with a
// configuration it refuses (no input topic): Start must return one error
// naming the problem and the exit status, and leave no JVM behind.
func TestDriverRefusingItsConfigIsOneClearError(t *testing.T) {
	lib, java := builtDriver(t)
	dir := t.TempDir()
	_, err := Start(context.Background(), Options{
		ID: "bad", Dir: dir, Lib: lib, Java: java, JVMFlags: []string{"-Xmx64m"},
		Properties: map[string]string{"application.id": "x", "bootstrap.servers": "127.0.0.1:1"},
	})
	var ee *ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("err = %v, want an *ExitError", err)
	}
	for _, want := range []string{"instance bad", "exit status 3", "restorebench.input.topic is required"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
	if out, _ := exec.Command("pgrep", "-f", filepath.Join(dir, ConfigFile)).Output(); len(out) > 0 {
		t.Fatalf("a JVM of the refused instance is still running: pid %s", out)
	}
}

// TestDriverReadsAndDeletesItsSecretsFile: the real driver reads the
// secrets file (a driver key in it is refused, which shows it was read)
// and deletes it before anything else, even when it then refuses it.
func TestDriverReadsAndDeletesItsSecretsFile(t *testing.T) {
	lib, java := builtDriver(t)
	dir := t.TempDir()
	_, err := Start(context.Background(), Options{
		ID: "sec", Dir: dir, Lib: lib, Java: java, JVMFlags: []string{"-Xmx64m"},
		Properties: map[string]string{"application.id": "x", "bootstrap.servers": "127.0.0.1:1", PropInputTopic: "in"},
		Secrets:    map[string]string{PropBare: "true"},
	})
	if err == nil || !strings.Contains(err.Error(), "the secrets file holds StreamsConfig properties only, not "+PropBare) {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, SecretsFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the secrets file is still there: %v", err)
	}
}

// TestDriverConnectCheckFailsAtOnce: with the connection check on, a
// cluster that does not answer is one error naming the listener within
// the check's timeout, before Kafka Streams starts, and no JVM is left.
func TestDriverConnectCheckFailsAtOnce(t *testing.T) {
	lib, java := builtDriver(t)
	dir := t.TempDir()
	t0 := time.Now()
	_, err := Start(context.Background(), Options{
		ID: "conn", Dir: dir, Lib: lib, Java: java, JVMFlags: []string{"-Xmx64m"},
		Properties: map[string]string{"application.id": "x", "bootstrap.servers": "127.0.0.1:1", PropInputTopic: "in",
			"security.protocol": "SSL", PropConnectTimeoutMs: "1500"},
	})
	if err == nil {
		t.Fatal("started against a port nothing listens on")
	}
	for _, want := range []string{"it reported connect", "the SSL listener 127.0.0.1:1 did not answer within 1500 ms", "exit status 2"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
	if d := time.Since(t0); d > 30*time.Second {
		t.Errorf("the check took %s", d)
	}
	if out, _ := exec.Command("pgrep", "-f", filepath.Join(dir, ConfigFile)).Output(); len(out) > 0 {
		t.Fatalf("a JVM is still running: pid %s", out)
	}
}
