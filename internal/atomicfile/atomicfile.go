package atomicfile

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Write writes data to path through a temporary file in the same
// directory, synced and then renamed over path, so readers see either the old
// file or the whole new one, never a half-written one.
//
// It never replaces a run's results with anything else: unless data is
// itself a results.json, a path named results.json, or an existing file
// holding a run's results (whatever its name), is refused. Nor does it
// write through or replace a symbolic link (CheckNotLink). Every output
// restorebench writes into a user-given path goes through it.
func Write(path string, data []byte) error {
	if err := CheckNotLink(path); err != nil {
		return err
	}
	if err := CheckNotResults(path, data); err != nil {
		return err
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	name := tmp.Name()
	fail := func(err error) error {
		tmp.Close()
		os.Remove(name)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := tmp.Write(data); err != nil {
		return fail(err)
	}
	if err := tmp.Sync(); err != nil {
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(name)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Chmod(name, 0o644); err != nil {
		os.Remove(name)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(name, path); err != nil {
		os.Remove(name)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// CheckNotLink refuses a path that is a symbolic link: writing through it
// would change a file elsewhere (what it points to), and replacing it
// would remove a link restorebench did not make. Its parents are the
// caller's: a directory restorebench makes inside an output directory is
// made by an exclusive mkdir, never followed.
func CheckNotLink(path string) error {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		return nil
	}
	return fmt.Errorf("write %s: it is a symbolic link; refusing to write through or replace it (remove it, or choose another path)", path)
}

// ResultsName is the name of a run's results file.
const ResultsName = "results.json"

// CheckNotResults refuses to write data at path when that would replace a
// run's results with something else: path is named results.json, or holds
// a results file, and data is not a results file. Writing results over
// results (a run rewriting its own) is allowed; a second run into the same
// directory is kept out by the claim on the directory.
func CheckNotResults(path string, data []byte) error {
	if LooksLikeResults(data) {
		return nil
	}
	if filepath.Base(path) == ResultsName {
		return fmt.Errorf("write %s: refusing to write other output under the name of a run's results file; choose another file", path)
	}
	if HoldsResults(path) {
		return fmt.Errorf("write %s: it holds a run's results; refusing to replace them with other output (choose another file)", path)
	}
	return nil
}

// HoldsResults reports whether path is an existing regular file whose
// content is a run's results.json.
func HoldsResults(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	head := make([]byte, 4096)
	n, _ := io.ReadFull(f, head)
	return LooksLikeResults(head[:n])
}

// LooksLikeResults reports whether b (or its first 4 KiB) is a results.json
// as runs.Results.Save writes it: a JSON object that opens with its
// schema_version and run_id.
func LooksLikeResults(b []byte) bool {
	if len(b) > 4096 {
		b = b[:4096]
	}
	b = bytes.TrimLeft(b, " \t\r\n")
	return len(b) > 0 && b[0] == '{' && bytes.Contains(b, []byte(`"schema_version"`)) && bytes.Contains(b, []byte(`"run_id"`))
}
