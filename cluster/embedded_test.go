package cluster

import (
	"strings"
	"testing"
)

// TestEmbeddedDataDirLocked: a second embedded broker on a data dir one
// already uses is refused, naming the dir, so two processes never share one
// broker log; once the first is closed the dir can be used again.
func TestEmbeddedDataDirLocked(t *testing.T) {
	dir := t.TempDir()
	first, err := StartEmbedded(dir)
	if err != nil {
		t.Fatal(err)
	}
	if second, err := StartEmbedded(dir); err == nil || !strings.Contains(err.Error(), dir+" is in use by another restorebench process") {
		if second != nil {
			second.Close()
		}
		t.Fatalf("second broker on %s: got %v, want it refused as in use", dir, err)
	}
	first.Close()
	again, err := StartEmbedded(dir)
	if err != nil {
		t.Fatalf("broker on %s after the first closed: %v", dir, err)
	}
	again.Close()
}
