package main

import (
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// TestCLIDocsUpToDate regenerates the command reference into a temporary
// directory and compares it with docs/cli: a flag, command or help text
// changed without `make docs` fails here, naming the page.
func TestCLIDocsUpToDate(t *testing.T) {
	const committed = "../../docs/cli"
	fresh := t.TempDir()
	if err := writeCLIDocs(fresh); err != nil {
		t.Fatal(err)
	}
	want := mdFiles(t, fresh)
	have := mdFiles(t, committed)
	if len(want) == 0 {
		t.Fatal("the generator wrote no page")
	}
	for name, body := range want {
		old, ok := have[name]
		switch {
		case !ok:
			t.Errorf("docs/cli/%s is missing: run make docs", name)
		case old != body:
			t.Errorf("docs/cli/%s is stale (the command's help changed): run make docs", name)
		}
	}
	var extra []string
	for name := range have {
		if _, ok := want[name]; !ok {
			extra = append(extra, name)
		}
	}
	sort.Strings(extra)
	for _, name := range extra {
		t.Errorf("docs/cli/%s documents no command: run make docs", name)
	}
}

// mdFiles reads the Markdown files of dir by name.
func mdFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files := make(map[string]string, len(names))
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		files[filepath.Base(n)] = string(b)
	}
	return files
}
