#!/usr/bin/env bash
# scripts/rocksdb.sh - the release build of RocksDB the model links by default.
#
# Debian's librocksdb-dev (7.8.3) is built with assertions on: about 120 key
# comparisons a memtable insert against 31-35 in a release build, which cost
# the model 1.7x Kafka Streams' time on changelogs of small records. The
# release build used instead is the one Kafka Streams itself runs: the native
# library inside the org.rocksdb:rocksdbjni jar on Maven Central. It exports
# RocksDB's C API (rocksdbjni 7.9.2: the same 784 rocksdb_* functions as
# Debian's 7.8.3, so grocksdb v1.7.15 compiled against Debian's headers links
# to it unchanged), with its compression libraries linked in, needing only
# libc and libstdc++. No RocksDB source is built or kept here.
#
# Usage:
#   scripts/rocksdb.sh install [VERSION]
#       Fetch rocksdbjni VERSION (default 7.9.2) with Maven (its checksum
#       checked by Maven against Maven Central's), take its native library
#       out, check it against the SHA-256 pinned below, and put it at
#       .cache/rocksdb/VERSION/librocksdbjni-VERSION.so. A no-op when there.
#   scripts/rocksdb.sh dir [VERSION]
#       Print that directory (after install).
#   scripts/rocksdb.sh name [VERSION]
#       Print the library's file name (what the binary's NEEDED entry holds:
#       the library carries no SONAME, so the name it is linked by is kept).
#
# The file is named after its version so that a binary linked to one
# version never loads another by mistake; the binary finds it beside itself
# (rpath $ORIGIN: make build copies it into bin/, the image into
# /opt/restorebench/bin) or in the cache it was linked from.
#
# Environment: MVN (default mvn), ROCKSDB_CACHE_DIR (default <repo>/.cache/rocksdb).

set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE_DIR="${ROCKSDB_CACHE_DIR:-$REPO_ROOT/.cache/rocksdb}"
MVN="${MVN:-mvn}"
DEFAULT_VERSION=7.9.2

# sha256_of VERSION ARCH: the pinned SHA-256 of the jar's native library.
sha256_of() {
	case "$1/$2" in
	7.9.2/linux64) echo bee2b635933ed99ff625d22f70c239323d6b1395fef6229dd084fb5757539f24 ;;
	*) echo "" ;;
	esac
}

# jar_arch names the jar's native library for this machine.
jar_arch() {
	case "$(uname -m)" in
	x86_64) echo linux64 ;;
	aarch64) echo linux-aarch64 ;;
	*) echo "rocksdb.sh: no rocksdbjni native library for $(uname -m); build with ROCKSDB_LINK=static" >&2; exit 1 ;;
	esac
}

log() { echo "rocksdb.sh: $*" >&2; }

# tmp is the fetch's scratch directory, removed at exit.
tmp=

name() { echo "librocksdbjni-$1.so"; }

install() {
	local version=$1 arch want dir lib got
	arch=$(jar_arch)
	want=$(sha256_of "$version" "$arch")
	[ -n "$want" ] || { log "no pinned checksum for rocksdbjni $version ($arch): add it to scripts/rocksdb.sh"; exit 1; }
	dir="$CACHE_DIR/$version"
	lib="$dir/$(name "$version")"
	if [ -f "$lib" ] && [ "$(sha256sum "$lib" | cut -d' ' -f1)" = "$want" ]; then
		return 0
	fi
	command -v "$MVN" >/dev/null || { log "Maven ($MVN) is needed to fetch rocksdbjni $version: make deps-kafka installs it"; exit 1; }
	log "fetching rocksdbjni $version from Maven Central (its native library is the release build of RocksDB the model links)"
	mkdir -p "$dir"
	tmp=$(mktemp -d "$dir/.fetch-XXXXXX")
	trap 'rm -rf "${tmp:-}"' EXIT
	"$MVN" -q -B -C dependency:copy -Dartifact="org.rocksdb:rocksdbjni:$version" -DoutputDirectory="$tmp" >"$tmp/mvn.log" 2>&1 ||
		{ sed 's/\x1b\[[0-9;]*m//g' "$tmp/mvn.log" | tail -20 >&2; log "mvn could not fetch org.rocksdb:rocksdbjni:$version"; exit 1; }
	# unzip where present, else the JDK's jar (Maven brought a JDK).
	if command -v unzip >/dev/null; then
		(cd "$tmp" && unzip -q -o "rocksdbjni-$version.jar" "librocksdbjni-$arch.so")
	else
		(cd "$tmp" && jar xf "rocksdbjni-$version.jar" "librocksdbjni-$arch.so")
	fi
	[ -f "$tmp/librocksdbjni-$arch.so" ] ||
		{ log "rocksdbjni-$version.jar holds no librocksdbjni-$arch.so"; exit 1; }
	got=$(sha256sum "$tmp/librocksdbjni-$arch.so" | cut -d' ' -f1)
	[ "$got" = "$want" ] || { log "librocksdbjni-$arch.so of rocksdbjni $version has SHA-256 $got, pinned $want: refusing it"; exit 1; }
	chmod 0644 "$tmp/librocksdbjni-$arch.so"
	mv -f "$tmp/librocksdbjni-$arch.so" "$lib"
	log "installed $lib"
}

cmd=${1:-}
version=${2:-$DEFAULT_VERSION}
case "$cmd" in
install) install "$version" ;;
dir) echo "$CACHE_DIR/$version" ;;
name) name "$version" ;;
*) echo "usage: scripts/rocksdb.sh install|dir|name [VERSION]" >&2; exit 2 ;;
esac
