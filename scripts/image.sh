#!/usr/bin/env bash
# scripts/image.sh - build and try the restorebench image without a registry.
#
# Usage:
#   scripts/image.sh build   build restorebench:latest (IMAGE) with podman
#   scripts/image.sh test    build it, then run `restorebench agent --help`,
#                            `restorebench run quick` and a small
#                            kafka-streams restore on each driver in it
#
# build: installs podman, buildah and mmdebstrap with apt when missing
# (sudo when not root); builds bin/restorebench (make build) and the Kafka
# Streams driver for each of KSTREAMS_VERSIONS (scripts/kstreams.sh build);
# makes the base image from Debian's packages only: mmdebstrap writes a
# minimal Debian of this machine's release (the binary links its shared
# libraries; RocksDB's release library, ROCKSDB_LINK=release, goes beside
# the binary instead, and Debian's is linked in with static) with the JRE
# and the libraries the binary needs (as ldd lists them) into
# .cache/image/base-<hash>.tar, and `podman import` makes it
# localhost/restorebench-base:latest (remade only when the package list
# changes); then `podman build` of deploy/image/Containerfile over a
# context of the binary and the drivers' lib directories. Its RUN step and
# the tests run containers with podman as configured, else with runc and
# resource limits no higher than this shell's (a sandbox without
# CAP_SYS_RESOURCE and with a hybrid cgroup layout, as on the machine this
# was written on, needs both).
#
# test: where podman cannot run a container either way, it says what
# failed and exits 0 having tested nothing, unless IMAGE_TEST_REQUIRED=1
# (then it fails). It is not part of make test.
#
# Environment:
#   IMAGE               the image's name (default restorebench:latest)
#   KSTREAMS_VERSIONS   Kafka Streams versions to put the driver in for
#                       (default: profiles/versions.yaml's kafka_streams_versions)
#   DEBIAN_MIRROR       default http://deb.debian.org/debian
#   IMAGE_TEST_REQUIRED 1: a podman that cannot run fails the test
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO_ROOT"
IMAGE="${IMAGE:-restorebench:latest}"
BASE_IMAGE=localhost/restorebench-base:latest
CACHE="$REPO_ROOT/.cache/image"
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo

log() { printf 'image: %s\n' "$*" >&2; }

default_versions() {
	sed -n 's/^kafka_streams_versions: *\[\(.*\)\].*/\1/p' profiles/versions.yaml | tr -d ' ' | tr ',' ' '
}
KSTREAMS_VERSIONS="${KSTREAMS_VERSIONS:-$(default_versions)}"
[ -n "$KSTREAMS_VERSIONS" ] || { log "no Kafka Streams versions (profiles/versions.yaml has no kafka_streams_versions)"; exit 1; }

# install_tools installs podman, buildah and mmdebstrap when missing.
install_tools() {
	local missing=()
	command -v podman >/dev/null || missing+=(podman)
	command -v buildah >/dev/null || missing+=(buildah)
	command -v mmdebstrap >/dev/null || missing+=(mmdebstrap)
	# podman's rootless mode needs newuidmap; its storage, fuse-overlayfs
	# where the kernel's overlay is not allowed.
	command -v newuidmap >/dev/null || missing+=(uidmap)
	command -v fuse-overlayfs >/dev/null || missing+=(fuse-overlayfs)
	if [ ${#missing[@]} -gt 0 ]; then
		log "installing ${missing[*]}"
		$SUDO apt-get update -qq
		DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
	fi
}

# base_packages are the Debian packages of the base: the JRE, the binary's
# shared libraries' packages, CA certificates, passwd (useradd).
base_packages() {
	local libs pkgs
	# (The release RocksDB library, ROCKSDB_LINK=release, is no Debian
	# package's: it goes into the image beside the binary, from lib/.)
	libs=$(ldd bin/restorebench | awk '/=> \// && $3 !~ /librocksdbjni-/{print $3}')
	# dpkg -S names the package of each library (by its real path: /lib is
	# /usr/lib on a merged /usr).
	pkgs=$(for l in $libs; do dpkg -S "$(readlink -f "$l")" 2>/dev/null || dpkg -S "$l"; done | cut -d: -f1 | sort -u)
	echo openjdk-17-jre-headless ca-certificates passwd $pkgs | tr ' ' '\n' | sort -u | paste -sd, -
}

build_base() {
	local suite pkgs hash tar tmp
	# shellcheck disable=SC1091
	suite=$(. /etc/os-release && echo "$VERSION_CODENAME")
	[ -n "$suite" ] || { log "cannot tell this machine's Debian release (/etc/os-release has no VERSION_CODENAME)"; exit 1; }
	pkgs=$(base_packages)
	hash=$(printf '%s %s %s\n' "$suite" "$pkgs" "$MIRROR" | sha256sum | cut -c1-12)
	tar="$CACHE/base-$hash.tar"
	mkdir -p "$CACHE"
	if [ ! -f "$tar" ]; then
		log "making the base: Debian $suite (minbase) with $pkgs"
		# mmdebstrap tells the output's format by its name: it ends in .tar.
		# (Man pages stay: the JRE's update-alternatives links into them.)
		tmp="$CACHE/base-$hash.partial.tar"
		rm -rf "$CACHE"/base-*.tar
		$SUDO mmdebstrap --variant=minbase --include="$pkgs" \
			--aptopt='APT::Install-Recommends "false"' \
			--dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
			"$suite" "$tmp" \
			"deb $MIRROR $suite main" "deb $MIRROR $suite-updates main" \
			"deb ${MIRROR%/debian}/debian-security $suite-security main" >"$CACHE/mmdebstrap.log" 2>&1 ||
			{ tail -30 "$CACHE/mmdebstrap.log" >&2; log "mmdebstrap failed (log: $CACHE/mmdebstrap.log)"; rm -f "$tmp"; exit 1; }
		mv "$tmp" "$tar"
	fi
	if [ "$(podman image inspect --format '{{index .Labels "restorebench.base"}}' "$BASE_IMAGE" 2>/dev/null)" != "$hash" ]; then
		log "importing the base as $BASE_IMAGE"
		podman import --change "LABEL restorebench.base=$hash" --change 'CMD ["/bin/bash"]' "$tar" "$BASE_IMAGE" >/dev/null
	fi
}

# prepare builds the binary, the drivers and the base, and lays out the
# build context; none of it runs a container.
prepare() {
	install_tools
	log "building bin/restorebench"
	make --no-print-directory build >/dev/null
	log "building the Kafka Streams driver for $KSTREAMS_VERSIONS"
	# shellcheck disable=SC2086
	scripts/kstreams.sh build $KSTREAMS_VERSIONS
	build_base
	CONTEXT="$CACHE/context"
	rm -rf "$CONTEXT"
	mkdir -p "$CONTEXT/kstreams" "$CONTEXT/lib"
	cp bin/restorebench "$CONTEXT/restorebench"
	# The RocksDB library the binary loads from beside itself (rpath
	# $ORIGIN), when make build linked the release one; else lib/ is empty.
	cp bin/librocksdbjni-*.so "$CONTEXT/lib/" 2>/dev/null || true
	for v in $KSTREAMS_VERSIONS; do
		[ -f ".cache/kstreams/$v/lib/restorebench-kstreams.jar" ] || { log "no driver for $v in .cache/kstreams/$v/lib"; exit 1; }
		mkdir -p "$CONTEXT/kstreams/$v"
		cp -rL ".cache/kstreams/$v/lib" "$CONTEXT/kstreams/$v/lib"
	done
	[ -d "$CONTEXT/kstreams/4.4.0/lib" ] || { log "KSTREAMS_VERSIONS must include 4.4.0, the default version"; exit 1; }
}

# build_image builds the image over the context (its RUN step runs a
# container).
build_image() {
	log "building $IMAGE"
	local opts=()
	[ ${#PODMAN_OPTS[@]} -gt 0 ] && opts=("${PODMAN_OPTS[@]:0:2}")
	podman "${opts[@]}" build --pull=never --network=none "${PODMAN_OPTS[@]:2}" --build-arg BASE="$BASE_IMAGE" \
		-f deploy/image/Containerfile -t "$IMAGE" "$CONTEXT"
	podman image ls "$IMAGE"
}

# PODMAN_OPTS are the options podman run and podman build need here,
# found by pick_runtime.
PODMAN_OPTS=()

# pick_runtime finds how podman can run a container here: as configured;
# else with runc (installed when missing) and resource limits no higher
# than this shell's hard limits: in a sandbox without CAP_SYS_RESOURCE
# podman's default limits (nofile, nproc) cannot be set, and crun refuses
# a hybrid cgroup v1/v2 layout that runc takes. It sets WHY to why none
# works, or to nothing.
WHY=""
pick_runtime() {
	local out why=""
	if out=$(podman run --rm --network=none "$BASE_IMAGE" true 2>&1); then
		PODMAN_OPTS=()
		return
	fi
	why="podman run --rm --network=none $BASE_IMAGE true: $out"
	if ! command -v runc >/dev/null; then
		log "installing runc"
		DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq runc >/dev/null
	fi
	# The process limit podman's runtime may set can be below this shell's
	# (here 32768 against 96363): the first of these that works.
	local n opts=()
	for n in "$(ulimit -Hu)" 32768 4096; do
		opts=(--runtime runc --ulimit "nofile=$(ulimit -Hn):$(ulimit -Hn)" --ulimit "nproc=$n:$n")
		if out=$(podman "${opts[@]:0:2}" run --rm --network=none "${opts[@]:2}" "$BASE_IMAGE" true 2>&1); then
			log "podman runs containers here with ${opts[*]} (as configured it cannot: $why)"
			PODMAN_OPTS=("${opts[@]}")
			return
		fi
	done
	WHY="$why; podman ${opts[*]}: $out"
}

# podman_run runs podman run with PODMAN_OPTS.
podman_run() {
	if [ ${#PODMAN_OPTS[@]} -gt 0 ]; then
		podman "${PODMAN_OPTS[@]:0:2}" run "${PODMAN_OPTS[@]:2}" "$@"
	else
		podman run "$@"
	fi
}

test_image() {
	prepare
	pick_runtime
	if [ -n "$WHY" ]; then
		fail_or_skip "podman cannot run a container on this machine: $WHY"
		return
	fi
	build_image
	log "podman run $IMAGE agent --help"
	podman_run --rm --network=none "$IMAGE" agent --help | grep -q -- '--control-key-file' ||
		{ log "agent --help did not list --control-key-file"; exit 1; }
	podman_run --rm --network=none --entrypoint id "$IMAGE" -u | grep -qx 10001 ||
		{ log "the image does not run as uid 10001"; exit 1; }
	log "podman run $IMAGE run quick (the embedded broker, inside the container)"
	local out
	out=$(mktemp -d)
	chmod 0777 "$out"
	podman_run --rm --network=none -v "$out:/work" "$IMAGE" run quick --quiet
	ls "$out"/results/*/results.json >/dev/null 2>&1 ||
		{ log "run quick wrote no results.json under $out/results"; exit 1; }
	# The JRE and each version's driver: a small kafka-streams cold restore
	# on every version in the image, on the embedded broker.
	# (A directory of its own: the embedded broker keeps its log in the
	# working directory, and quick's changelog there holds another fill.)
	local versions n ks
	versions=$(echo "$KSTREAMS_VERSIONS" | tr ' ' ',')
	n=$(echo "$KSTREAMS_VERSIONS" | wc -w)
	ks=$(mktemp -d)
	chmod 0777 "$ks"
	cat >"$ks/image-ks.yaml" <<-PROFILE
		name: image-ks
		description: a small kafka-streams cold restore on each driver in the image
		fill: {records: 4000, keys: 800, partitions: 2, value_size: 0-150, seed: 1}
		restore: {engine: kafka-streams, jvm_heap: 256MiB}
		kafka_streams_versions: [$versions]
		cases:
		  - name: ks
		repeats: 1
	PROFILE
	chmod 0644 "$ks/image-ks.yaml"
	log "podman run $IMAGE run image-ks.yaml (a kafka-streams restore on each of $KSTREAMS_VERSIONS)"
	local got
	podman_run --rm --network=none -v "$ks:/work" "$IMAGE" run image-ks.yaml --quiet >"$ks/run.log" 2>&1 || true
	got=$(grep -c '^restore: case ks-.* #1 verified:' "$ks/run.log" || true)
	if [ "$got" != "$n" ]; then
		tail -30 "$ks/run.log" >&2
		log "the kafka-streams restores verified on $got of $n driver versions (log: $ks/run.log)"
		exit 1
	fi
	log "ok: agent --help, run quick and a kafka-streams restore on each driver ($KSTREAMS_VERSIONS) ran in $IMAGE (results: $out/results, $ks/results)"
}

fail_or_skip() {
	if [ "${IMAGE_TEST_REQUIRED:-0}" = 1 ]; then
		log "FAIL: $1"
		exit 1
	fi
	log "SKIPPED, nothing tested: $1"
}

case "${1:-}" in
build)
	prepare
	pick_runtime
	[ -z "$WHY" ] || { log "podman cannot run a container on this machine (its RUN step needs one): $WHY"; exit 1; }
	build_image
	;;
test) test_image ;;
*)
	sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
	;;
esac
