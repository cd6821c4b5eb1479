package ksdriver

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// classArchiveDir is the directory beside a driver's lib that keeps its
// class-data-sharing archives (Options.ShareClasses).
const classArchiveDir = "cds"

// classArchive is where the archive of the driver in lib, run by java,
// is kept: one file per JDK and set of jars, named by a fingerprint of
// both (each jar's name, size and time, and the JDK's launcher and
// libjvm), because the JDK maps an archive only on the classes it was
// written from and otherwise starts without it, silently.
func classArchive(java, lib string) (string, error) {
	h := sha256.New()
	jvm, err := filepath.EvalSymlinks(java)
	if err != nil {
		return "", err
	}
	for _, f := range []string{jvm, filepath.Join(filepath.Dir(filepath.Dir(jvm)), "lib", "server", "libjvm.so")} {
		if st, err := os.Stat(f); err == nil {
			fmt.Fprintf(h, "%s %d %d\n", f, st.Size(), st.ModTime().UnixNano())
		}
	}
	jars, err := filepath.Glob(filepath.Join(lib, "*.jar"))
	if err != nil || len(jars) == 0 {
		return "", fmt.Errorf("no jars in %s", lib)
	}
	sort.Strings(jars)
	for _, j := range jars {
		st, err := os.Stat(j)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s %d %d\n", filepath.Base(j), st.Size(), st.ModTime().UnixNano())
	}
	return filepath.Join(filepath.Dir(lib), classArchiveDir, "driver-"+hex.EncodeToString(h.Sum(nil))[:16]+".jsa"), nil
}

// classArchiveFlags are the JVM flags of a process started with
// ShareClasses: map the archive when it is there, else write one of its
// own as it exits (kept by keepClassArchive when it exits cleanly). The
// JVM's own warnings go to its log (stderr), not among the events on
// stdout. None when no archive can be kept beside the lib.
func (in *Instance) classArchiveFlags() []string {
	path, err := classArchive(in.opts.Java, in.opts.Lib)
	if err != nil {
		return nil
	}
	quiet := []string{"-Xlog:disable", "-Xlog:all=warning:stderr"}
	if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() {
		return append(quiet, "-XX:SharedArchiveFile="+path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil
	}
	in.archiveTmp, in.archive = fmt.Sprintf("%s.%d-%s.tmp", path, os.Getpid(), in.opts.ID), path
	return append(quiet, "-XX:ArchiveClassesAtExit="+in.archiveTmp)
}

// keepClassArchive moves the archive the JVM wrote as it exited into
// place once it exited cleanly (status 0: an archive of a JVM that failed
// or was killed may be partial, and is deleted), and deletes the
// archives of other jars or JDKs beside it.
func (in *Instance) keepClassArchive(exitErr error) {
	if in.archiveTmp == "" {
		return
	}
	if exitErr != nil || os.Rename(in.archiveTmp, in.archive) != nil {
		os.Remove(in.archiveTmp)
		return
	}
	old, _ := filepath.Glob(filepath.Join(filepath.Dir(in.archive), "driver-*.jsa"))
	for _, f := range old {
		if f != in.archive {
			os.Remove(f)
		}
	}
}
