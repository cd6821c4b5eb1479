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

// jarsAndJava is a lib directory of two jars and a java file, for the
// archive's name alone (no JVM runs).
func jarsAndJava(t *testing.T) (java, lib string) {
	t.Helper()
	dir := t.TempDir()
	lib = filepath.Join(dir, "lib")
	if err := os.MkdirAll(lib, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{filepath.Join(lib, "a.jar"), filepath.Join(lib, "b.jar"), filepath.Join(dir, "java")} {
		if err := os.WriteFile(f, []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "java"), lib
}

// TestClassArchiveIsNamedByItsJarsAndJDK: a rebuilt driver (a jar
// changed) gets an archive of its own, never the old one, which the JDK
// would silently refuse to map.
func TestClassArchiveIsNamedByItsJarsAndJDK(t *testing.T) {
	java, lib := jarsAndJava(t)
	a, err := classArchive(java, lib)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(a) != filepath.Join(filepath.Dir(lib), classArchiveDir) || !strings.HasSuffix(a, ".jsa") {
		t.Fatalf("archive %s is not a .jsa beside %s", a, lib)
	}
	if again, _ := classArchive(java, lib); again != a {
		t.Fatalf("the same jars name two archives: %s, %s", a, again)
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(lib, "b.jar"), later, later); err != nil {
		t.Fatal(err)
	}
	if b, _ := classArchive(java, lib); b == a {
		t.Fatalf("a rebuilt jar keeps the archive %s", a)
	}
	if _, err := classArchive(java, t.TempDir()); err == nil {
		t.Fatal("a lib without jars names an archive")
	}
}

// TestClassArchiveKeptOnlyFromACleanExit: the archive a JVM wrote is moved
// into place when it exited with status 0 (and the archives of other
// jars beside it go); from a JVM that failed it is deleted, never kept.
func TestClassArchiveKeptOnlyFromACleanExit(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "driver-0000.jsa")
	write := func(f string) {
		if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(old)
	in := &Instance{archive: filepath.Join(dir, "driver-1111.jsa"), archiveTmp: filepath.Join(dir, "driver-1111.jsa.1-i0.tmp")}
	write(in.archiveTmp)
	in.keepClassArchive(errors.New("exit status 3"))
	if _, err := os.Stat(in.archive); err == nil {
		t.Fatal("a failed JVM's archive was kept")
	}
	if _, err := os.Stat(in.archiveTmp); err == nil {
		t.Fatal("a failed JVM's archive was left behind")
	}
	write(in.archiveTmp)
	in.keepClassArchive(nil)
	if _, err := os.Stat(in.archive); err != nil {
		t.Fatalf("a clean exit's archive was not kept: %v", err)
	}
	left, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(left) != 1 {
		t.Fatalf("left beside the archive: %v", left)
	}
}

// TestDriverSharingClassesStartsAndKeepsNoArchiveOfAFailure runs the real
// driver with ShareClasses and a configuration it refuses: the JVM takes
// the archive flags (its error is the driver's own, on stdout as an
// event), and what it wrote as it failed is not kept.
func TestDriverSharingClassesStartsAndKeepsNoArchiveOfAFailure(t *testing.T) {
	realLib, java := builtDriver(t)
	lib := filepath.Join(t.TempDir(), "lib")
	if err := os.MkdirAll(lib, 0o755); err != nil {
		t.Fatal(err)
	}
	jars, _ := filepath.Glob(filepath.Join(realLib, "*.jar"))
	for _, j := range jars {
		if err := os.Symlink(j, filepath.Join(lib, filepath.Base(j))); err != nil {
			t.Fatal(err)
		}
	}
	_, err := Start(context.Background(), Options{
		ID: "cds", Dir: t.TempDir(), Lib: lib, Java: java, JVMFlags: []string{"-Xmx64m"}, ShareClasses: true,
		Properties: map[string]string{"application.id": "x", "bootstrap.servers": "127.0.0.1:1"},
	})
	if err == nil || !strings.Contains(err.Error(), "restorebench.input.topic is required") {
		t.Fatalf("err = %v, want the driver's refusal of its config", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		left, _ := filepath.Glob(filepath.Join(filepath.Dir(lib), classArchiveDir, "*"))
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a failed JVM's archive is kept: %v", left)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
