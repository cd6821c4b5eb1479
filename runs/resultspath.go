package runs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// DirWithoutResultsError is ResultsPath's error for a directory holding no
// readable results.json: Err is what reading Path said.
type DirWithoutResultsError struct {
	Dir, Path string
	Err       error
}

func (e *DirWithoutResultsError) Error() string {
	return fmt.Sprintf("%s is a directory without results.json (no %s)", e.Dir, e.Path)
}

func (e *DirWithoutResultsError) Unwrap() error { return e.Err }

// ResultsPath resolves arg to a results.json: the file itself, or
// DIR/results.json for a run directory. A directory whose results.json
// cannot be read is a *DirWithoutResultsError.
func ResultsPath(arg string) (string, error) {
	fi, err := os.Stat(arg)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%s: no such results file or run directory", arg)
	}
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return arg, nil
	}
	p := filepath.Join(arg, "results.json")
	if _, err := os.Stat(p); err != nil {
		return "", &DirWithoutResultsError{Dir: arg, Path: p, Err: err}
	}
	return p, nil
}
