package engine

import (
	"os"
	"runtime"
	"testing"
)

// The binary make test builds is linked the way the Makefile says
// (ROCKSDB_LINK, release by default), so the figures CI and make build's
// binary produce come from the same RocksDB; and the results say which one
// it was.
func TestRocksDBLinkageIsTheOneBuilt(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc/self/maps is Linux's")
	}
	got := RocksDBLinkage()
	if got != LinkRelease && got != LinkStatic && got != LinkShared {
		t.Fatalf("RocksDBLinkage() = %q, want release, static or shared", got)
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
	if got == LinkRelease && RocksDBVersion() != os.Getenv("ROCKSDB_RELEASE_VERSION") && os.Getenv("ROCKSDB_RELEASE_VERSION") != "" {
		t.Fatalf("RocksDBVersion() = %s, the release library linked is %s", RocksDBVersion(), os.Getenv("ROCKSDB_RELEASE_VERSION"))
	}
}

func TestLinkageFromMaps(t *testing.T) {
	cases := []struct {
		name, maps, linkage, version string
	}{
		{"Debian's shared library", "7f0b-7f0c r-xp 00000000 08:01 123 /usr/lib/x86_64-linux-gnu/librocksdb.so.7.8.3\n", LinkShared, ""},
		{"linked in", "00400000-00c00000 r-xp 00000000 08:01 99 /work/bin/restorebench\n" +
			"7f0b-7f0c r-xp 00000000 08:01 124 /usr/lib/x86_64-linux-gnu/libzstd.so.1.5.4\n", LinkStatic, ""},
		{"the release library", "7f0b-7f0c r-xp 00000000 08:01 125 /opt/restorebench/bin/librocksdbjni-7.9.2.so\n", LinkRelease, "7.9.2"},
	}
	for _, c := range cases {
		linkage, version := linkageFromMaps([]byte(c.maps))
		if linkage != c.linkage || version != c.version {
			t.Errorf("%s: (%q, %q), want (%q, %q)", c.name, linkage, version, c.linkage, c.version)
		}
	}
}
