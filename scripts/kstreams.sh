#!/usr/bin/env bash
# scripts/kstreams.sh - build and run the Kafka Streams driver (kstreams/).
#
# The driver is a small Java 17 program that runs one real Kafka Streams
# instance per process for restorebench's kafka-streams engine; the contract
# between it and the Go tool is kstreams/PROTOCOL.md. Maven (kstreams/pom.xml)
# fetches kafka-streams and its dependencies from Maven Central and builds it.
#
# Usage:
#   scripts/kstreams.sh build
#       Build the driver if kstreams/pom.xml or anything under kstreams/src
#       changed since the last build (otherwise do nothing): mvn package (which
#       also runs the driver's unit tests), then copy the driver jar and every
#       runtime dependency jar into .cache/kstreams/lib/. On failure the Maven
#       log is printed and the exit status is 1.
#   scripts/kstreams.sh classpath
#       Build if needed, then print the classpath to launch the driver with
#       (the lib directory with a '*' wildcard, for java -cp).
#   scripts/kstreams.sh run CONFIG.properties | --digest-vectors FILE
#       Build if needed, then run the driver in the foreground (stdin: commands,
#       stdout: JSON events, stderr: log). For manual use; restorebench starts
#       the driver itself.
#
# Files (KSTREAMS_CACHE_DIR, default <repo>/.cache/kstreams, must be git-ignored):
#   lib/        the driver jar (restorebench-kstreams.jar) and its runtime dependencies
#   lib.stamp   sha256 over kstreams/pom.xml and kstreams/src/** the jars were built from
#   build/      Maven's build directory (instead of kstreams/target)
#   mvn.log     the last Maven run's output
#
# Environment:
#   KSTREAMS_CACHE_DIR  cache directory (default <repo>/.cache/kstreams)
#   JAVA                java binary (default: java on PATH)
#   MVN                 mvn binary (default: mvn on PATH)
#   KSTREAMS_JAVA_OPTS  JVM flags for `run` (default -Xmx1g)
#
# Requires: bash, java 17+, mvn (to build), coreutils; flock (util-linux) is
# used when present so that concurrent builds do not overlap.

set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SRC_DIR="$REPO_ROOT/kstreams"
POM="$SRC_DIR/pom.xml"
CACHE_DIR="${KSTREAMS_CACHE_DIR:-$REPO_ROOT/.cache/kstreams}"
LIB_DIR="$CACHE_DIR/lib"
LIB_STAMP="$CACHE_DIR/lib.stamp"
BUILD_DIR="$CACHE_DIR/build"
JAVA="${JAVA:-java}"
MVN="${MVN:-mvn}"
MAIN_CLASS=restorebench.kstreams.Driver
DRIVER_JAR=restorebench-kstreams.jar

log() { printf 'kstreams.sh: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

# sha256 over the pom and every source file (paths relative to kstreams/, in
# a fixed order), so the stamp changes exactly when the inputs do.
source_hash() {
	(
		cd "$SRC_DIR"
		{
			sha256sum pom.xml
			find src -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum
		} | sha256sum | cut -d' ' -f1
	)
}

is_built() {
	[[ -f "$LIB_STAMP" && "$(cat "$LIB_STAMP")" == "$1" && -f "$LIB_DIR/$DRIVER_JAR" ]]
}

build_locked() {
	local want=$1 new="$CACHE_DIR/lib.new"
	is_built "$want" && return 0 # another build finished while we waited
	command -v "$MVN" >/dev/null || die "mvn not found (needed to build the Kafka Streams driver)"
	log "building the Kafka Streams driver with mvn into $LIB_DIR"
	rm -rf "$new" "$LIB_STAMP"
	mkdir -p "$new"
	if ! "$MVN" -B -q -Dstyle.color=never -f "$POM" -Dkstreams.build.dir="$BUILD_DIR" \
		package dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$new" \
		>"$CACHE_DIR/mvn.log" 2>&1; then
		cat "$CACHE_DIR/mvn.log" >&2
		rm -rf "$new"
		die "mvn package failed"
	fi
	cp "$BUILD_DIR/$DRIVER_JAR" "$new/$DRIVER_JAR"
	rm -rf "$LIB_DIR"
	mv "$new" "$LIB_DIR"
	echo "$want" >"$LIB_STAMP"
}

cmd_build() {
	local want
	want="$(source_hash)"
	is_built "$want" && return 0
	mkdir -p "$CACHE_DIR"
	if command -v flock >/dev/null; then
		(
			flock 9
			build_locked "$want"
		) 9>"$CACHE_DIR/build.lock"
	else
		build_locked "$want"
	fi
}

cmd_classpath() {
	cmd_build
	printf '%s\n' "$LIB_DIR/*"
}

cmd_run() {
	(($# >= 1)) || die "run: usage: scripts/kstreams.sh run CONFIG.properties | --digest-vectors FILE"
	cmd_build
	# shellcheck disable=SC2086 # KSTREAMS_JAVA_OPTS is a word list
	exec "$JAVA" ${KSTREAMS_JAVA_OPTS:--Xmx1g} -cp "$LIB_DIR/*" "$MAIN_CLASS" "$@"
}

usage() {
	sed -n '2,/^$/s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" >&2
	exit 2
}

main() {
	(($# >= 1)) || usage
	local cmd=$1
	shift
	case "$cmd" in
	build) (($# == 0)) || die "build takes no arguments"; cmd_build ;;
	classpath) (($# == 0)) || die "classpath takes no arguments"; cmd_classpath ;;
	run) cmd_run "$@" ;;
	-h | --help | help) usage ;;
	*) log "unknown command: $cmd"; usage ;;
	esac
}

main "$@"
