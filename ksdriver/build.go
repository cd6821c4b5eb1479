package ksdriver

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// buildScript is the script that builds the driver, relative to the
// repository root.
var buildScript = filepath.Join("scripts", "kstreams.sh")

// FindScript returns the repository's scripts/kstreams.sh: the first found
// beside a kstreams/pom.xml in the executable's directory or one of its
// parents, then the working directory's; "" when restorebench runs outside
// its repository.
func FindScript() string {
	for _, start := range searchStarts() {
		for dir := start; ; dir = filepath.Dir(dir) {
			script := filepath.Join(dir, buildScript)
			if fileExists(script) && fileExists(filepath.Join(dir, "kstreams", "pom.xml")) {
				return script
			}
			if filepath.Dir(dir) == dir {
				break
			}
		}
	}
	return ""
}

func fileExists(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// EnsureLib returns the driver's lib directory for Kafka Streams version
// ("" is DefaultKafkaStreamsVersion), first building it when restorebench
// runs in its repository: scripts/kstreams.sh build VERSION, which does
// nothing when that version's build is up to date with the driver's
// sources (the cache is per version and source hash) and otherwise runs
// Maven, a minute or so. logf, when not nil, is told before a build may
// run. With $RESTOREBENCH_KSTREAMS_LIB set, or outside the repository, it
// only looks (FindLibFor). A failed build is an error quoting the end of
// its output.
func EnsureLib(ctx context.Context, version string, logf func(format string, args ...any)) (string, error) {
	if version == "" {
		version = DefaultKafkaStreamsVersion
	}
	script := FindScript()
	if os.Getenv(EnvLib) != "" || script == "" {
		return FindLibFor(version)
	}
	if logf != nil {
		logf("kafka-streams: checking the driver's build for Kafka Streams %s (%s build %s; Maven runs only when it is out of date)", version, script, version)
	}
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, "bash", script, "build", version)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%w for Kafka Streams %s: %s build %s failed (%v): %s", ErrNotBuilt, version, script, version, err, tail(out.String(), 20))
	}
	return FindLibFor(version)
}

// tail is the last n lines of s, joined by " | " for one error line.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
