package ksdriver

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// MainClass is the driver's entry point.
const MainClass = "restorebench.kstreams.Driver"

// DriverJar is the driver's own jar in the lib directory.
const DriverJar = "restorebench-kstreams.jar"

// EnvLib names the environment variable that points at the driver's lib
// directory (the driver jar and its dependencies), overriding the search.
const EnvLib = "RESTOREBENCH_KSTREAMS_LIB"

// EnvJava names the environment variable that chooses the java binary
// (default: java on PATH), as scripts/kstreams.sh reads it.
const EnvJava = "JAVA"

// DefaultKafkaStreamsVersion is the Kafka Streams version an instance runs
// when none is asked for: kstreams/pom.xml's kafka.version, and what
// `make kstreams` builds by default.
const DefaultKafkaStreamsVersion = "4.4.0"

// cacheUnderRepo is where `make kstreams` (scripts/kstreams.sh build) puts
// the driver, relative to the repository root: <cache>/<version>/lib per
// Kafka Streams version, and <cache>/lib (a symlink to the default
// version's lib, a directory before per-version caches).
var cacheUnderRepo = filepath.Join(".cache", "kstreams")

// ErrNotBuilt is returned when the driver's jars cannot be found.
var ErrNotBuilt = errors.New("the Kafka Streams driver is not built")

// ErrNoJava is returned when no java binary can be run.
var ErrNoJava = errors.New("java not found")

// FindLib is FindLibFor(DefaultKafkaStreamsVersion).
func FindLib() (string, error) { return FindLibFor(DefaultKafkaStreamsVersion) }

// FindLibFor returns the directory holding the driver jar built against
// Kafka Streams version ("" is DefaultKafkaStreamsVersion) and its
// dependencies, kafka-streams-<version>.jar among them:
// $RESTOREBENCH_KSTREAMS_LIB when set and built for that version (else the
// same cache's <version>/lib beside it), otherwise the first
// .cache/kstreams/<version>/lib found in the executable's directory or one
// of its parents (bin/restorebench in the repo), then the working directory
// or one of its parents (go test runs in the package's directory); for the
// default version also .cache/kstreams/lib. The error names the version,
// what was searched and how to build the driver for it.
func FindLibFor(version string) (string, error) {
	if version == "" {
		version = DefaultKafkaStreamsVersion
	}
	build := buildHint(version)
	if dir := os.Getenv(EnvLib); dir != "" {
		return envLib(dir, version, build)
	}
	var searched []string
	for _, start := range searchStarts() {
		for dir := start; ; dir = filepath.Dir(dir) {
			if lib, ok := repoLib(dir, version); ok {
				return lib, nil
			}
			if filepath.Dir(dir) == dir {
				break
			}
		}
		searched = append(searched, start)
	}
	return "", fmt.Errorf("%w for Kafka Streams %s: no %s under %s in %s or any parent; run %s in the restorebench repository, or set %s",
		ErrNotBuilt, version, DriverJar, filepath.Join(cacheUnderRepo, version, "lib"), strings.Join(searched, " or "), build, EnvLib)
}

// buildHint is the command that builds the driver for version.
func buildHint(version string) string {
	if version == DefaultKafkaStreamsVersion {
		return "`make kstreams` (or scripts/kstreams.sh build)"
	}
	return fmt.Sprintf("`scripts/kstreams.sh build %s` (or make kstreams KSTREAMS_VERSIONS=%s)", version, version)
}

// envLib checks the lib directory $RESTOREBENCH_KSTREAMS_LIB names: it must
// hold the driver built for version, or be one version's lib in a
// per-version cache whose <version>/lib does.
func envLib(dir, version, build string) (string, error) {
	if !hasDriverJar(dir) {
		return "", fmt.Errorf("%w: %s=%s holds no %s; run %s and point %s at .cache/kstreams/%s/lib",
			ErrNotBuilt, EnvLib, dir, DriverJar, build, EnvLib, version)
	}
	got := LibVersion(dir)
	if got == version {
		return filepath.Abs(dir)
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		sibling := filepath.Join(filepath.Dir(filepath.Dir(real)), version, "lib")
		if hasDriverJar(sibling) && LibVersion(sibling) == version {
			return sibling, nil
		}
	}
	return "", fmt.Errorf("%w for Kafka Streams %s: %s=%s holds the driver for Kafka Streams %s; run %s, then point %s "+
		"at .cache/kstreams/%s/lib (or at any version's lib in that cache)",
		ErrNotBuilt, version, EnvLib, dir, orUnknown(got), build, EnvLib, version)
}

// repoLib is version's lib under the repository root candidate dir, if
// built: <dir>/.cache/kstreams/<version>/lib, or for the default version
// <dir>/.cache/kstreams/lib holding that version.
func repoLib(dir, version string) (string, bool) {
	cache := filepath.Join(dir, cacheUnderRepo)
	lib := filepath.Join(cache, version, "lib")
	if hasDriverJar(lib) && LibVersion(lib) == version {
		return lib, true
	}
	legacy := filepath.Join(cache, "lib")
	if version == DefaultKafkaStreamsVersion && hasDriverJar(legacy) && LibVersion(legacy) == version {
		return legacy, true
	}
	return "", false
}

// LibVersion is the Kafka Streams version a lib directory holds, from its
// kafka-streams-<version>.jar; "" when there is none or more than one.
func LibVersion(lib string) string {
	jars, _ := filepath.Glob(filepath.Join(lib, "kafka-streams-[0-9]*.jar"))
	if len(jars) != 1 {
		return ""
	}
	return strings.TrimSuffix(strings.TrimPrefix(filepath.Base(jars[0]), "kafka-streams-"), ".jar")
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown (no single kafka-streams-<version>.jar in it)"
	}
	return s
}

// searchStarts are the directories FindLib searches upwards from.
func searchStarts() []string {
	var out []string
	if exe, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		out = append(out, filepath.Dir(exe))
	}
	if wd, err := os.Getwd(); err == nil {
		out = append(out, wd)
	}
	return out
}

func hasDriverJar(dir string) bool {
	fi, err := os.Stat(filepath.Join(dir, DriverJar))
	return err == nil && fi.Mode().IsRegular()
}

// FindJava returns the java binary to run: $JAVA when set, else java on
// PATH. The error names the problem and the way out.
func FindJava() (string, error) {
	name := "java"
	if j := os.Getenv(EnvJava); j != "" {
		name = j
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("%w (%s): the kafka-streams engine runs Kafka Streams in a JVM and needs Java 17 or later; "+
			"install a JDK (`make deps-kafka` installs Debian's default-jdk-headless) or set %s to a java "+
			"binary",
			ErrNoJava, err, EnvJava)
	}
	return path, nil
}

// Classpath is the java -cp argument for a lib directory: every jar in it.
func Classpath(lib string) string { return filepath.Join(lib, "*") }
