package ksdriver

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeLib makes a lib directory that looks built for version.
func fakeLib(t *testing.T, dir, version string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, jar := range []string{DriverJar, "kafka-streams-" + version + ".jar", "kafka-clients-" + version + ".jar"} {
		if err := os.WriteFile(filepath.Join(dir, jar), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestFindLibForPicksTheVersionsLib: each version has its own lib under
// .cache/kstreams/<version>/lib; the default is also found where builds
// before per-version caches put it; a version not built is an error naming
// it and the command that builds it.
func TestFindLibForPicksTheVersionsLib(t *testing.T) {
	t.Setenv(EnvLib, "")
	root := t.TempDir()
	cache := filepath.Join(root, ".cache", "kstreams")
	old := fakeLib(t, filepath.Join(cache, "4.0.2", "lib"), "4.0.2")
	legacy := fakeLib(t, filepath.Join(cache, "lib"), DefaultKafkaStreamsVersion)
	t.Chdir(filepath.Join(root))
	if got, err := FindLibFor("4.0.2"); err != nil || !sameDir(got, old) {
		t.Errorf("FindLibFor(4.0.2) = %q, %v; want %s", got, err, old)
	}
	if got, err := FindLibFor(""); err != nil || !sameDir(got, legacy) {
		t.Errorf("FindLibFor(default) = %q, %v; want the legacy %s", got, err, legacy)
	}
	_, err := FindLibFor("4.1.2")
	if !errors.Is(err, ErrNotBuilt) || !strings.Contains(err.Error(), "Kafka Streams 4.1.2") || !strings.Contains(err.Error(), "scripts/kstreams.sh build 4.1.2") {
		t.Errorf("FindLibFor(4.1.2), not built: %v", err)
	}
	if v := LibVersion(old); v != "4.0.2" {
		t.Errorf("LibVersion = %q, want 4.0.2", v)
	}
}

// TestEnvLibServesItsVersionAndItsSiblings: $RESTOREBENCH_KSTREAMS_LIB names
// one version's lib; another version is taken from the same per-version
// cache, or refused naming both versions.
func TestEnvLibServesItsVersionAndItsSiblings(t *testing.T) {
	cache := filepath.Join(t.TempDir(), "kstreams")
	def := fakeLib(t, filepath.Join(cache, DefaultKafkaStreamsVersion, "lib"), DefaultKafkaStreamsVersion)
	old := fakeLib(t, filepath.Join(cache, "4.0.2", "lib"), "4.0.2")
	link := filepath.Join(cache, "lib")
	if err := os.Symlink(DefaultKafkaStreamsVersion+"/lib", link); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvLib, link)
	if got, err := FindLibFor(DefaultKafkaStreamsVersion); err != nil || !sameDir(got, def) {
		t.Errorf("default through %s: %q, %v", EnvLib, got, err)
	}
	if got, err := FindLibFor("4.0.2"); err != nil || !sameDir(got, old) {
		t.Errorf("4.0.2 beside %s: %q, %v", EnvLib, got, err)
	}
	_, err := FindLibFor("4.2.2")
	if !errors.Is(err, ErrNotBuilt) || !strings.Contains(err.Error(), "holds the driver for Kafka Streams "+DefaultKafkaStreamsVersion) || !strings.Contains(err.Error(), "4.2.2") {
		t.Errorf("4.2.2 through %s: %v", EnvLib, err)
	}
}

func sameDir(a, b string) bool {
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}

// TestHelloOfAnotherVersionIsRefused: an instance whose hello names another
// Kafka Streams version than asked is killed, and the error names both.
func TestHelloOfAnotherVersionIsRefused(t *testing.T) {
	dir := t.TempDir()
	java := filepath.Join(dir, "java")
	if err := os.WriteFile(java, []byte(fakeDriver), 0o755); err != nil {
		t.Fatal(err)
	}
	idir := filepath.Join(dir, "i0")
	in, err := Start(context.Background(), Options{
		ID: "i0", Dir: idir, Java: java, Lib: dir, KafkaStreamsVersion: "4.0.2",
		Properties:   map[string]string{"fake.mode": "ok"},
		StartTimeout: 2 * time.Second, StopTimeout: 500 * time.Millisecond, KillGrace: 500 * time.Millisecond,
	})
	if err == nil {
		in.Kill()
		t.Fatal("an instance saying Kafka Streams fake started as 4.0.2")
	}
	for _, w := range []string{"runs Kafka Streams fake", "kafka_streams_version is 4.0.2", "scripts/kstreams.sh build 4.0.2"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%q does not say %q", err, w)
		}
	}
	assertGone(t, idir, "pid")
}
