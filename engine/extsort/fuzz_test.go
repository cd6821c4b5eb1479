package extsort

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzRunFileReader feeds arbitrary bytes to the run-file reader as a run
// claiming some number of records: it must never panic nor allocate beyond
// the file's size, and it either reads records in strictly increasing key
// order or reports the file corrupt.
func FuzzRunFileReader(f *testing.F) {
	good := func(keys ...string) []byte {
		b := []byte(sortRunMagic)
		for i, k := range keys {
			b = append(b, byte(len(k)), 2, byte(i))
			b = append(b, k...)
			b = append(b, 'v')
		}
		return b
	}
	f.Add(good("a", "b", "c"), int64(3))
	f.Add(good("b", "a"), int64(2))
	f.Add([]byte(sortRunMagic+"\xff\xff\xff\xff\x0f\x00\x00"), int64(1))
	f.Add([]byte("not a run"), int64(1))
	f.Fuzz(func(t *testing.T, data []byte, records int64) {
		if records < 0 || records > 1<<20 {
			return
		}
		path := filepath.Join(t.TempDir(), "run")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := openSortRunCursor(sortRun{path: path, records: records})
		if err != nil {
			return
		}
		defer c.close()
		var prev []byte
		n := int64(0)
		for c.next() {
			k, _, _, _ := c.cur()
			if n > 0 && bytes.Compare(k, prev) <= 0 {
				t.Fatalf("record %d: key %q after %q", n, k, prev)
			}
			prev = append(prev[:0], k...)
			n++
		}
		if c.err() == nil && n != records {
			t.Fatalf("read %d of %d records without an error", n, records)
		}
	})
}
