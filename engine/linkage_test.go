package engine

import (
	"os"
	"runtime"
	"testing"
)

// The binary make test builds is linked the way the Makefile says
// (ROCKSDB_LINK, static by default), so the figures CI and make build's
// binary produce come from the same RocksDB code path; and the results say
// which one it was.
func TestRocksDBLinkageIsTheOneBuilt(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc/self/maps is Linux's")
	}
	got := RocksDBLinkage()
	if got != "static" && got != "shared" {
		t.Fatalf("RocksDBLinkage() = %q, want static or shared", got)
	}
	want := os.Getenv("ROCKSDB_LINK")
	if want == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("ROCKSDB_LINK is not set: make test exports it with the link flags")
		}
		t.Logf("built outside make: RocksDB linked %s", got)
		return
	}
	if got != want {
		t.Fatalf("RocksDB is linked %s, but the Makefile asked for ROCKSDB_LINK=%s (CGO_LDFLAGS did not take)", got, want)
	}
}

func TestLinkageFromMaps(t *testing.T) {
	shared := "7f0b-7f0c r-xp 00000000 08:01 123 /usr/lib/x86_64-linux-gnu/librocksdb.so.7.8.3\n"
	static := "00400000-00c00000 r-xp 00000000 08:01 99 /work/bin/restorebench\n7f0b-7f0c r-xp 00000000 08:01 124 /usr/lib/x86_64-linux-gnu/libzstd.so.1.5.4\n"
	if got := linkageFromMaps([]byte(shared)); got != "shared" {
		t.Errorf("maps with librocksdb.so: %q, want shared", got)
	}
	if got := linkageFromMaps([]byte(static)); got != "static" {
		t.Errorf("maps without librocksdb.so: %q, want static", got)
	}
}
