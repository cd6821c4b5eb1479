#!/usr/bin/env bash
# scripts/kstreams.sh - build and run the Kafka Streams driver (kstreams/).
#
# The driver is a small Java 17 program that runs one real Kafka Streams
# instance per process for restorebench's kafka-streams engine; the contract
# between it and the Go tool is kstreams/PROTOCOL.md. Maven (kstreams/pom.xml)
# fetches kafka-streams and its dependencies from Maven Central and builds it,
# once per Kafka Streams version (mvn -Dkafka.version=VERSION): the same
# sources compile against 3.9.x to 4.4.x (kstreams/.../Compat.java).
#
# Usage:
#   scripts/kstreams.sh build [VERSION...]
#       Build the driver for each VERSION (default: $KAFKA_STREAMS_VERSION,
#       else 4.4.0) if kstreams/pom.xml or anything under kstreams/src
#       changed since that version's last build (otherwise do nothing): mvn
#       package (which also runs the driver's unit tests), then copy the
#       driver jar and every runtime dependency jar into
#       .cache/kstreams/VERSION/lib/. On failure the Maven log is printed
#       as plain text (no terminal escapes), the exit status is 1, and a
#       version that was never built leaves no .cache/kstreams/VERSION.
#   scripts/kstreams.sh classpath [VERSION]
#       Build if needed, then print the classpath to launch the driver with
#       (the lib directory with a '*' wildcard, for java -cp).
#   scripts/kstreams.sh run CONFIG.properties | --digest-vectors FILE
#       Build if needed, then run the driver of $KAFKA_STREAMS_VERSION (default
#       4.4.0) in the foreground (stdin: commands, stdout: JSON events,
#       stderr: log). For manual use; restorebench starts the driver itself.
#
# Files (KSTREAMS_CACHE_DIR, default <repo>/.cache/kstreams, must be git-ignored):
#   VERSION/lib/        the driver jar (restorebench-kstreams.jar) and its runtime
#                       dependencies, kafka-streams-VERSION.jar among them
#   VERSION/lib.stamp   "HASH VERSION": sha256 over kstreams/pom.xml and
#                       kstreams/src/** the jars were built from, and the version
#   VERSION/build/      Maven's build directory (instead of kstreams/target)
#   VERSION/mvn.log     the last Maven run's output for that version
#   lib                 a symlink to 4.4.0/lib, where builds before per-version
#                       caches put the default driver (RESTOREBENCH_KSTREAMS_LIB
#                       and older tools point there)
#   build.lock          held while building, so concurrent builds do not overlap
#
# Environment:
#   KAFKA_STREAMS_VERSION  the version build, classpath and run use when none is given
#   KSTREAMS_CACHE_DIR     cache directory (default <repo>/.cache/kstreams)
#   JAVA                   java binary (default: java on PATH)
#   MVN                    mvn binary (default: mvn on PATH)
#   KSTREAMS_JAVA_OPTS     JVM flags for `run` (default -Xmx1g)
#
# Requires: bash, java 17+, mvn (to build), coreutils; flock (util-linux) is
# used when present so that concurrent builds do not overlap.

set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SRC_DIR="$REPO_ROOT/kstreams"
POM="$SRC_DIR/pom.xml"
CACHE_DIR="${KSTREAMS_CACHE_DIR:-$REPO_ROOT/.cache/kstreams}"
DEFAULT_VERSION=4.4.0
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

# check_version refuses anything but MAJOR.MINOR.PATCH: the version names
# a directory and goes to Maven.
check_version() {
	[[ "$1" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "Kafka Streams version \"$1\": want MAJOR.MINOR.PATCH (e.g. 4.4.0)"
}

# plain copies stdin to stdout without terminal escape sequences (CSI
# ones such as colours and resets, then any ESC left) or carriage returns.
plain() { LC_ALL=C sed -e $'s|\e\\[[0-9;?]*[ -/]*[@-~]||g' -e $'s|[\e\r]||g'; }

lib_dir() { printf '%s\n' "$CACHE_DIR/$1/lib"; }

is_built() {
	local version=$1 want=$2
	local stamp="$CACHE_DIR/$version/lib.stamp"
	[[ -f "$stamp" && "$(cat "$stamp")" == "$want $version" && -f "$(lib_dir "$version")/$DRIVER_JAR" ]]
}

build_locked() {
	local version=$1 want=$2
	local dir="$CACHE_DIR/$version"
	local lib="$dir/lib" new="$dir/lib.new"
	is_built "$version" "$want" && return 0 # another build finished while we waited
	command -v "$MVN" >/dev/null || die "mvn not found (needed to build the Kafka Streams driver)"
	log "building the Kafka Streams driver for Kafka Streams $version with mvn into $lib"
	rm -rf "$new" "$dir/lib.stamp"
	mkdir -p "$new"
	# Batch mode, no transfer progress, no colour; Maven 3.8 (Debian's)
	# still writes ESC[0m resets whatever it is told, so the log is
	# stripped of escape sequences too: it is printed as plain text.
	if ! "$MVN" -B -q --no-transfer-progress -Dstyle.color=never -f "$POM" -Dkafka.version="$version" -Dkstreams.build.dir="$dir/build" \
		package dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$new" \
		2>&1 </dev/null | plain >"$dir/mvn.log"; then
		cat "$dir/mvn.log" >&2
		rm -rf "$new"
		# A version never built leaves nothing behind (a failed rebuild
		# keeps the lib an earlier build left, and the log).
		[[ -d "$lib" ]] || rm -rf "$dir"
		die "mvn package failed for Kafka Streams $version (is kafka-streams $version on Maven Central?)"
	fi
	cp "$dir/build/$DRIVER_JAR" "$new/$DRIVER_JAR"
	rm -rf "$lib"
	mv "$new" "$lib"
	echo "$want $version" >"$dir/lib.stamp"
}

# link_default keeps <cache>/lib, where the default driver lived before
# per-version caches, pointing at the default version's lib.
link_default() {
	local link="$CACHE_DIR/lib"
	[[ -L "$link" && "$(readlink "$link")" == "$DEFAULT_VERSION/lib" ]] && return 0
	rm -rf "$link" "$CACHE_DIR/lib.stamp"
	ln -s "$DEFAULT_VERSION/lib" "$link"
}

build_one() {
	local version=$1 want
	check_version "$version"
	want="$(source_hash)"
	if ! is_built "$version" "$want"; then
		mkdir -p "$CACHE_DIR"
		if command -v flock >/dev/null; then
			(
				flock 9
				build_locked "$version" "$want"
			) 9>"$CACHE_DIR/build.lock"
		else
			build_locked "$version" "$want"
		fi
	fi
	if [[ "$version" == "$DEFAULT_VERSION" ]]; then
		link_default
	fi
}

cmd_build() {
	(($# > 0)) || set -- "${KAFKA_STREAMS_VERSION:-$DEFAULT_VERSION}"
	local v
	for v in "$@"; do
		build_one "$v"
	done
}

cmd_classpath() {
	(($# <= 1)) || die "classpath takes at most one VERSION"
	local version=${1:-${KAFKA_STREAMS_VERSION:-$DEFAULT_VERSION}}
	build_one "$version"
	printf '%s\n' "$(lib_dir "$version")/*"
}

cmd_run() {
	(($# >= 1)) || die "run: usage: scripts/kstreams.sh run CONFIG.properties | --digest-vectors FILE"
	local version=${KAFKA_STREAMS_VERSION:-$DEFAULT_VERSION}
	build_one "$version"
	# shellcheck disable=SC2086 # KSTREAMS_JAVA_OPTS is a word list
	exec "$JAVA" ${KSTREAMS_JAVA_OPTS:--Xmx1g} -cp "$(lib_dir "$version")/*" "$MAIN_CLASS" "$@"
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
	build) cmd_build "$@" ;;
	classpath) cmd_classpath "$@" ;;
	run) cmd_run "$@" ;;
	-h | --help | help) usage ;;
	*) log "unknown command: $cmd"; usage ;;
	esac
}

main "$@"
