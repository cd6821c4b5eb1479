package ksdriver

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fakeMaven fails as Maven 3.8 does for a kafka-streams version Maven
// Central lacks: it makes the build directory it was given, then writes
// its error wrapped in the ESC[0m resets Debian's Maven writes whatever
// -B or -Dstyle.color=never say, and a colour code, and exits 1.
const fakeMaven = `#!/usr/bin/env bash
for a in "$@"; do
	case "$a" in
	-Dkstreams.build.dir=*) mkdir -p "${a#-Dkstreams.build.dir=}/classes" ;;
	-Dkafka.version=*) v=${a#-Dkafka.version=} ;;
	esac
done
printf '\033[0m\033[0m\033[1;31m[ERROR]\033[m Could not find artifact org.apache.kafka:kafka-streams:jar:%s in central\r\n\033[0m\033[0m' "$v"
exit 1
`

// runBuild runs scripts/kstreams.sh build version with the cache in
// cache and mvn (when not "") as Maven: its exit error and output.
func runBuild(t *testing.T, cache, mvn, version string) (error, []byte) {
	t.Helper()
	script, err := filepath.Abs(filepath.Join("..", buildScript))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", script, "build", version)
	cmd.Env = append(os.Environ(), "KSTREAMS_CACHE_DIR="+cache)
	if mvn != "" {
		cmd.Env = append(cmd.Env, "MVN="+mvn)
	}
	out, err := cmd.CombinedOutput()
	return err, out
}

// assertFailedPlain: the build failed, its output names the version and
// holds no ESC byte (no raw colour codes on a terminal or in an error),
// and the version's cache directory is gone.
func assertFailedPlain(t *testing.T, err error, out []byte, cache, version string) {
	t.Helper()
	if err == nil {
		t.Fatalf("build %s succeeded: %s", version, out)
	}
	if i := bytes.IndexByte(out, 0x1b); i >= 0 {
		t.Errorf("the failed build's output holds an ESC byte at %d: %q", i, out)
	}
	if bytes.IndexByte(out, '\r') >= 0 {
		t.Errorf("the failed build's output holds a carriage return: %q", out)
	}
	if !strings.Contains(string(out), "mvn package failed for Kafka Streams "+version) {
		t.Errorf("the failed build's output does not name Kafka Streams %s: %s", version, out)
	}
	if _, serr := os.Stat(filepath.Join(cache, version)); !os.IsNotExist(serr) {
		entries, _ := os.ReadDir(filepath.Join(cache, version))
		t.Errorf("the failed build of %s left %s (%v, holding %v)", version, filepath.Join(cache, version), serr, entries)
	}
}

// TestFailedBuildIsPlainAndLeavesNoCache: scripts/kstreams.sh build of a
// version that does not exist prints Maven's error as plain text naming
// the version and removes the version's cache directory it made; a
// failed rebuild of a version built before keeps that build's lib.
func TestFailedBuildIsPlainAndLeavesNoCache(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	mvn := filepath.Join(t.TempDir(), "mvn")
	if err := os.WriteFile(mvn, []byte(fakeMaven), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Run("fake maven", func(t *testing.T) {
		cache := filepath.Join(t.TempDir(), "kstreams")
		err, out := runBuild(t, cache, mvn, "99.99.99")
		assertFailedPlain(t, err, out, cache, "99.99.99")
		if !strings.Contains(string(out), "[ERROR] Could not find artifact org.apache.kafka:kafka-streams:jar:99.99.99") {
			t.Errorf("Maven's error is not quoted: %q", out)
		}
	})
	t.Run("failed rebuild keeps the lib", func(t *testing.T) {
		cache := filepath.Join(t.TempDir(), "kstreams")
		lib := fakeLib(t, filepath.Join(cache, "4.0.2", "lib"), "4.0.2")
		if err := os.WriteFile(filepath.Join(cache, "4.0.2", "lib.stamp"), []byte("stale 4.0.2\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		err, out := runBuild(t, cache, mvn, "4.0.2")
		if err == nil || bytes.IndexByte(out, 0x1b) >= 0 {
			t.Fatalf("rebuild: %v, %q", err, out)
		}
		if _, serr := os.Stat(filepath.Join(lib, DriverJar)); serr != nil {
			t.Errorf("the failed rebuild removed the earlier build's lib: %v", serr)
		}
	})
	t.Run("maven", func(t *testing.T) {
		if _, err := exec.LookPath("mvn"); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("mvn not found under CI=true: %v", err)
			}
			t.Skipf("mvn not found: %v", err)
		}
		cache := filepath.Join(t.TempDir(), "kstreams")
		err, out := runBuild(t, cache, "", "99.99.99")
		assertFailedPlain(t, err, out, cache, "99.99.99")
	})
}
