package engine

import (
	"os"
	"regexp"
)

// rocksDBVersion is set at link time by the Makefile from the RocksDB headers
// the binary was built against (-X ...engine.rocksDBVersion=7.8.3).
var rocksDBVersion string

var versionDefine = regexp.MustCompile(`#define ROCKSDB_(MAJOR|MINOR|PATCH) (\d+)`)

// RocksDBVersion is the RocksDB version this process runs: the release
// library's (librocksdbjni-<version>.so) where that is loaded, else the
// version the binary was built against: the link-time value, else read
// from the installed headers, else "unknown".
func RocksDBVersion() string {
	if _, v := mappedRocksDB(); v != "" {
		return v
	}
	if rocksDBVersion != "" {
		return rocksDBVersion
	}
	b, err := os.ReadFile("/usr/include/rocksdb/version.h")
	if err != nil {
		return "unknown"
	}
	parts := map[string]string{}
	for _, m := range versionDefine.FindAllStringSubmatch(string(b), -1) {
		parts[m[1]] = m[2]
	}
	if parts["MAJOR"] == "" {
		return "unknown"
	}
	return parts["MAJOR"] + "." + parts["MINOR"] + "." + parts["PATCH"]
}
