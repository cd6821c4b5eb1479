package engine

import (
	"bytes"
	"os"
	"regexp"
	"sync"
)

// The values of RocksDBLinkage: which RocksDB library the model runs.
const (
	// LinkRelease is the release build of RocksDB that Kafka Streams runs,
	// the native library of the org.rocksdb:rocksdbjni jar, loaded from
	// librocksdbjni-<version>.so (make build's default, ROCKSDB_LINK=release).
	LinkRelease = "release"
	// LinkStatic is Debian's librocksdb.a linked into the binary: an
	// assertion build.
	LinkStatic = "static"
	// LinkShared is Debian's librocksdb.so: the same assertion build, and a
	// __tls_get_addr call on every key comparison besides.
	LinkShared = "shared"
)

// RocksDBLinkage says which RocksDB this process runs, read from what is
// mapped into it (/proc/self/maps): LinkRelease, LinkShared or LinkStatic
// ("" where the OS does not say). A model restore's time depends on it
// (Debian's assertion build restores 10 M records of 16 B 1.7x slower than
// the release build), so the results record it beside the version.
func RocksDBLinkage() string {
	linkage, _ := mappedRocksDB()
	return linkage
}

// mappedRocksDB is linkageFromMaps of this process's /proc/self/maps, read
// once (RocksDBLinkage and RocksDBVersion both need it; the libraries are
// mapped when the process starts); ("", "") where the OS does not say.
var mappedRocksDB = sync.OnceValues(func() (linkage, releaseVersion string) {
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return "", ""
	}
	return linkageFromMaps(maps)
})

// releaseLib matches the release library's mapped path and its version.
var releaseLib = regexp.MustCompile(`/librocksdbjni-([0-9][0-9.]*[0-9])\.so`)

// linkageFromMaps is RocksDBLinkage's reading of a maps file, with the
// release library's version where that is the one mapped.
func linkageFromMaps(maps []byte) (linkage, releaseVersion string) {
	if m := releaseLib.FindSubmatch(maps); m != nil {
		return LinkRelease, string(m[1])
	}
	if bytes.Contains(maps, []byte("/librocksdb.so")) {
		return LinkShared, ""
	}
	return LinkStatic, ""
}
