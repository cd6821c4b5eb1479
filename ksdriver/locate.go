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

// libUnderRepo is where `make kstreams` (scripts/kstreams.sh build) puts the
// driver, relative to the repository root.
var libUnderRepo = filepath.Join(".cache", "kstreams", "lib")

// ErrNotBuilt is returned when the driver's jars cannot be found.
var ErrNotBuilt = errors.New("the Kafka Streams driver is not built")

// ErrNoJava is returned when no java binary can be run.
var ErrNoJava = errors.New("java not found")

// FindLib returns the directory holding the driver jar and its
// dependencies: $RESTOREBENCH_KSTREAMS_LIB when set, else the first
// .cache/kstreams/lib found in the executable's directory or one of its
// parents (bin/restorebench in the repo), then the working directory or one
// of its parents (go test runs in the package's directory). The error says
// what was searched and how to build the driver.
func FindLib() (string, error) {
	if dir := os.Getenv(EnvLib); dir != "" {
		if hasDriverJar(dir) {
			return filepath.Abs(dir)
		}
		return "", fmt.Errorf("%w: %s=%s holds no %s; run `make kstreams` (or scripts/kstreams.sh build) and point %s at .cache/kstreams/lib",
			ErrNotBuilt, EnvLib, dir, DriverJar, EnvLib)
	}
	var searched []string
	for _, start := range searchStarts() {
		for dir := start; ; dir = filepath.Dir(dir) {
			lib := filepath.Join(dir, libUnderRepo)
			if hasDriverJar(lib) {
				return lib, nil
			}
			if filepath.Dir(dir) == dir {
				break
			}
		}
		searched = append(searched, start)
	}
	return "", fmt.Errorf("%w: no %s under %s in %s or any parent; run `make kstreams` (or scripts/kstreams.sh build) in the restorebench repository, or set %s",
		ErrNotBuilt, DriverJar, libUnderRepo, strings.Join(searched, " or "), EnvLib)
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
		return "", fmt.Errorf("%w (%s): the kafka-streams engine runs Kafka Streams in a JVM and needs Java 17 or later; install a JDK (`make deps-kafka` installs Debian's default-jdk-headless) or set %s to a java binary",
			ErrNoJava, err, EnvJava)
	}
	return path, nil
}

// Classpath is the java -cp argument for a lib directory: every jar in it.
func Classpath(lib string) string { return filepath.Join(lib, "*") }
