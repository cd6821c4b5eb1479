package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteRefusesALink: Write neither writes through a symbolic link
// (what it points to is unchanged) nor replaces it, and names it.
func TestWriteRefusesALink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "theirs.md")
	os.WriteFile(target, []byte("theirs"), 0o644)
	link := filepath.Join(dir, "report.md")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	err := Write(link, []byte("mine"))
	if err == nil || !strings.Contains(err.Error(), link) || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("%v, want an error naming %s as a symbolic link", err, link)
	}
	if b, _ := os.ReadFile(target); string(b) != "theirs" {
		t.Errorf("written through the link: %q", b)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v", err)
	}
	if err := Write(filepath.Join(dir, "new.md"), []byte("mine")); err != nil {
		t.Errorf("a new file: %v", err)
	}
}
