#!/usr/bin/env bash
# scripts/kafka.sh - a local, real Apache Kafka cluster for restorebench.
#
# Runs Apache Kafka in KRaft mode (every node is broker and controller at once)
# from jars that Maven fetches from Maven Central (kafka/pom.xml). Everything
# listens on 127.0.0.1 only. Nothing outside the repository is touched except
# Maven's own ~/.m2 cache.
#
# Usage:
#   scripts/kafka.sh up [--nodes 1|3] [--scram|--no-scram] [--timeout SECONDS]
#       Fetch the jars if needed, format storage, start the node(s) in the
#       background and wait until every broker answers metadata requests
#       (default timeout 90 s; on failure the log tail is printed and the exit
#       status is 1). If the cluster already runs and answers, says so and
#       exits 0 (it exits 1 if it runs with a different --nodes count).
#       Each `up` starts from empty storage, except after `down --keep`.
#         --nodes 1   (default) one node, heap 768 MiB, replication factor 1.
#         --nodes 3   three nodes, heap 512 MiB each, default.replication.factor=3,
#                     min.insync.replicas=2, static quorum (controller.quorum.voters).
#         --scram     (default, accepted for clarity) also open a SASL_PLAINTEXT
#                     listener with SCRAM-SHA-256, SCRAM-SHA-512 and PLAIN for
#                     user "restorebench", password "restorebench-secret".
#                     It is always on because it costs nothing measurable.
#         --no-scram  format without the SCRAM credentials (the SASL listener
#                     still opens; only PLAIN logins then succeed).
#   scripts/kafka.sh down [--keep]
#       SIGTERM every node, wait up to 30 s, then SIGKILL; then delete the
#       run directory (data and logs) unless --keep. Exits 0 if nothing runs.
#   scripts/kafka.sh status
#       Per node: pid and whether it answers. Exit 0 when all nodes run and
#       answer, 3 when nothing runs, 1 otherwise.
#   scripts/kafka.sh bootstrap [--sasl|--ssl|--sasl-ssl]
#       Print the bootstrap servers (comma separated) of the running cluster,
#       or of the single-node default when nothing runs. --sasl prints the
#       SASL_PLAINTEXT addresses instead, --ssl the SSL ones and --sasl-ssl
#       the SASL_SSL ones.
#   scripts/kafka.sh ca
#       Print the path of the CA certificate (PEM) the TLS listeners chain to.
#   scripts/kafka.sh fetch
#       Only fetch the jars (mvn) into the cache.
#   scripts/kafka.sh topics ARGS...
#       Run Kafka's TopicCommand against the cluster, e.g.
#       scripts/kafka.sh topics --create --topic t --config cleanup.policy=compact
#   scripts/kafka.sh class CLASS ARGS...
#       Run any class from the Kafka jars (e.g. org.apache.kafka.tools.ConfigCommand).
#
# Ports (node N = 1, 2, 3 uses base KAFKA_BASE_PORT + 100*(N-1), base 19092):
#   node 1: PLAINTEXT 19092, CONTROLLER 19093, SASL_PLAINTEXT 19094, SSL 19095, SASL_SSL 19096
#   node 2: PLAINTEXT 19192, CONTROLLER 19193, SASL_PLAINTEXT 19194, SSL 19195, SASL_SSL 19196
#   node 3: PLAINTEXT 19292, CONTROLLER 19293, SASL_PLAINTEXT 19294, SSL 19295, SASL_SSL 19296
# The SASL listeners take the same user on PLAIN, SCRAM-SHA-256 and
# SCRAM-SHA-512. The TLS listeners present a certificate for 127.0.0.1 and
# localhost signed by a CA made at `up` (run/tls/, below); clients need not
# present one (ssl.client.auth=requested: one that does is verified).
#
# Files (KAFKA_CACHE_DIR, default <repo>/.cache/kafka, must be git-ignored):
#   lib/                     jars copied by mvn dependency:copy-dependencies
#   lib.stamp                sha256 of kafka/pom.xml the jars were fetched for
#   run/cluster.env          node count, cluster id, SCRAM on/off of the cluster
#   run/node-N/server.properties  rendered from kafka/server.properties.tmpl
#   run/node-N/data/         log.dirs (KRaft metadata log included)
#   run/node-N/logs/server.log    broker log (kafka/log4j2.properties)
#   run/node-N/kafka.out     the JVM's stdout/stderr
#   run/node-N/kafka.pid     pid of the node's JVM
#   run/tls/ca.pem           the CA certificate (PEM), what clients trust
#   run/tls/truststore.p12   the same CA in a PKCS12 trust store, and
#   run/tls/truststore.jks   in a JKS one (store password "restorebench-store")
#   run/tls/client.p12       a client certificate and key signed by the CA,
#                            for mutual TLS (PKCS12, password "restorebench-store")
#   run/tls/client.pem       the same key (PKCS#8) and chain in PEM, 0600 (only
#                            where openssl is installed: keytool cannot export keys)
#   run/tls/ca.p12, broker.p12  the CA's and the brokers' keys (keytool)
#
# Environment:
#   KAFKA_CACHE_DIR  cache directory (default <repo>/.cache/kafka)
#   KAFKA_RUN_DIR    run directory (default $KAFKA_CACHE_DIR/run): a second
#                    cluster beside the first needs its own, and its own
#   KAFKA_BASE_PORT  first port of node 1 (default 19092; the others follow
#                    as listed under Ports)
#   JAVA             java binary (default: java on PATH)
#   MVN              mvn binary (default: mvn on PATH)
#   KCAT             kcat binary for the readiness check (default kcat; a name
#                    that does not exist selects the Java fallback)
#   KAFKA_HEAP_OPTS  JVM heap flags per node (default -Xmx768m -Xms256m for one
#                    node, -Xmx512m -Xms256m each for three)
#
# Requires: bash, java 17+, mvn (first run only), coreutils. kcat is used for
# the readiness check when installed; otherwise a TCP check plus Kafka's
# TopicCommand is used.

set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
KAFKA_DIR="$REPO_ROOT/kafka"
POM="$KAFKA_DIR/pom.xml"
CACHE_DIR="${KAFKA_CACHE_DIR:-$REPO_ROOT/.cache/kafka}"
LIB_DIR="$CACHE_DIR/lib"
LIB_STAMP="$CACHE_DIR/lib.stamp"
RUN_DIR="${KAFKA_RUN_DIR:-$CACHE_DIR/run}"
BASE_PORT="${KAFKA_BASE_PORT:-19092}"
TLS_DIR="$RUN_DIR/tls"
CLUSTER_ENV="$RUN_DIR/cluster.env"
KEPT_MARKER="$RUN_DIR/kept"
JAVA="${JAVA:-java}"
MVN="${MVN:-mvn}"
KCAT="${KCAT:-kcat}"

SASL_USER=restorebench
SASL_PASSWORD=restorebench-secret
# Password of every key and trust store made at up (a throwaway test CA).
STORE_PASSWORD=restorebench-store
STOP_TIMEOUT=30

log() { printf 'kafka.sh: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

# ---------------------------------------------------------------- ports, paths
plain_port()      { echo $((BASE_PORT + 100 * ($1 - 1))); }
controller_port() { echo $((BASE_PORT + 1 + 100 * ($1 - 1))); }
sasl_port()       { echo $((BASE_PORT + 2 + 100 * ($1 - 1))); }
ssl_port()        { echo $((BASE_PORT + 3 + 100 * ($1 - 1))); }
sasl_ssl_port()   { echo $((BASE_PORT + 4 + 100 * ($1 - 1))); }
node_dir()        { echo "$RUN_DIR/node-$1"; }

kafka_version() {
	sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$POM" | head -n1
}

# ---------------------------------------------------------------- jars
pom_hash() { sha256sum "$POM" | cut -d' ' -f1; }

fetch_jars() {
	local want
	want="$(pom_hash)"
	if [[ -f "$LIB_STAMP" && "$(cat "$LIB_STAMP")" == "$want" ]] &&
		compgen -G "$LIB_DIR/kafka_2.13-*.jar" >/dev/null; then
		return 0
	fi
	command -v "$MVN" >/dev/null || die "mvn not found (needed once to fetch the Kafka jars)"
	log "fetching Kafka $(kafka_version) jars with mvn into $LIB_DIR"
	rm -rf "$LIB_DIR" "$LIB_STAMP"
	mkdir -p "$LIB_DIR"
	if ! "$MVN" -B -q -Dstyle.color=never -f "$POM" dependency:copy-dependencies \
		-DincludeScope=runtime -DoutputDirectory="$LIB_DIR" >"$CACHE_DIR/mvn.log" 2>&1; then
		cat "$CACHE_DIR/mvn.log" >&2
		die "mvn dependency:copy-dependencies failed"
	fi
	echo "$want" >"$LIB_STAMP"
}

run_class() {
	"$JAVA" -Xmx256m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC \
		-Dlog4j2.configurationFile="$KAFKA_DIR/tools-log4j2.properties" \
		-cp "$LIB_DIR/*" "$@"
}

# ---------------------------------------------------------------- cluster state
# Running nodes: pid file present and the pid is a kafka.Kafka JVM started
# with this node's server.properties (guards against reused pids).
node_pid() {
	local dir pid
	dir="$(node_dir "$1")"
	[[ -f "$dir/kafka.pid" ]] || return 1
	pid="$(cat "$dir/kafka.pid")"
	[[ "$pid" =~ ^[0-9]+$ ]] || return 1
	[[ -r "/proc/$pid/cmdline" ]] || return 1
	tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF "kafka.Kafka $dir/server.properties" || return 1
	echo "$pid"
}

cluster_nodes() {
	# Node count of the cluster in RUN_DIR (0 when there is none).
	if [[ -f "$CLUSTER_ENV" ]]; then
		local n
		n="$(sed -n 's/^NODES=\([0-9]*\)$/\1/p' "$CLUSTER_ENV")"
		echo "${n:-0}"
	else
		echo 0
	fi
}

running_pids() {
	local n pid
	for n in 1 2 3; do
		pid="$(node_pid "$n")" && echo "$pid"
	done
	return 0
}

bootstrap_list() {
	# $1 = node count, $2 = plain|sasl|ssl|sasl_ssl
	local n out=()
	for ((n = 1; n <= $1; n++)); do
		out+=("127.0.0.1:$("${2}_port" "$n")")
	done
	(IFS=,; echo "${out[*]}")
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# Does the cluster answer metadata requests with all $1 brokers registered?
cluster_answers() {
	local nodes=$1 n
	for ((n = 1; n <= nodes; n++)); do
		port_open "$(plain_port "$n")" || return 1
	done
	if command -v "$KCAT" >/dev/null; then
		local md
		md="$("$KCAT" -b "$(bootstrap_list "$nodes" plain)" -L -m 5 2>/dev/null)" || return 1
		grep -qE "^ *$nodes brokers:" <<<"$md"
	else
		# Brokers open their client listener only once unfenced; one metadata
		# round trip through the admin client confirms it.
		run_class org.apache.kafka.tools.TopicCommand \
			--bootstrap-server "$(bootstrap_list "$nodes" plain)" --list >/dev/null 2>&1
	fi
}

# ---------------------------------------------------------------- up
random_cluster_id() {
	# 16 random bytes, base64url without padding, as Kafka's Uuid prints them;
	# like Uuid.randomUuid, never starting with '-'.
	local id
	while :; do
		id="$(head -c16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n')"
		[[ "$id" != -* ]] && { echo "$id"; return; }
	done
}

# keytool starts a JVM per call: a small, quickly started one.
keytool_() { "${KEYTOOL:-keytool}" -J-XX:+UseSerialGC -J-XX:TieredStopAtLevel=1 -noprompt "$@"; }

# make_tls makes, under TLS_DIR, a CA and a certificate for 127.0.0.1 and
# localhost that it signs, every node's key store (one certificate serves all
# nodes: they share the addresses), trust stores of the CA in PEM, PKCS12 and
# JKS, and a client key pair for mutual TLS. keytool only; keys are RSA 2048,
# valid 30 days (the cluster lives for a test run).
make_tls() {
	local ks=(-storetype PKCS12 -storepass "$STORE_PASSWORD" -keypass "$STORE_PASSWORD")
	mkdir -p "$TLS_DIR"
	(
		set -e
		umask 077
		cd "$TLS_DIR"
		keytool_ -genkeypair -alias ca -keyalg RSA -keysize 2048 -validity 30 \
			-dname "CN=restorebench test CA" -ext bc:c -keystore ca.p12 "${ks[@]}"
		keytool_ -exportcert -rfc -alias ca -keystore ca.p12 "${ks[@]}" -file ca.pem
		chmod 644 ca.pem
		# Each keytool is a JVM start: the independent ones run side by side.
		sign_into broker "CN=localhost" "san=ip:127.0.0.1,dns:localhost" &
		sign_into client "CN=restorebench-client" "" &
		keytool_ -importcert -alias ca -file ca.pem -keystore truststore.p12 "${ks[@]}" &
		keytool_ -importcert -alias ca -file ca.pem -keystore truststore.jks \
			-storetype JKS -storepass "$STORE_PASSWORD" &
		local p
		for p in $(jobs -p); do wait "$p"; done
		# keytool cannot write a private key out; openssl can, when present.
		if command -v openssl >/dev/null; then
			openssl pkcs12 -in client.p12 -passin "pass:$STORE_PASSWORD" -nodes -out client.pem
		fi
		rm -f ./*.csr ./*.crt
	) >"$RUN_DIR/tls.out" 2>&1 || {
		cat "$RUN_DIR/tls.out" >&2
		die "making the TLS certificates with keytool failed"
	}
}

# sign_into NAME DNAME EXT: a key pair in NAME.p12 whose certificate the CA
# signs (EXT: keytool's -ext san=..., or empty), with the CA in its chain.
sign_into() {
	local name=$1 dname=$2 ext=$3 ks=(-storetype PKCS12 -storepass "$STORE_PASSWORD" -keypass "$STORE_PASSWORD")
	local extargs=()
	[[ -n "$ext" ]] && extargs=(-ext "$ext")
	set -e
	keytool_ -genkeypair -alias "$name" -keyalg RSA -keysize 2048 -validity 30 \
		-dname "$dname" -keystore "$name.p12" "${ks[@]}"
	keytool_ -certreq -alias "$name" -keystore "$name.p12" "${ks[@]}" -file "$name.csr"
	keytool_ -gencert -alias ca -keystore ca.p12 "${ks[@]}" -validity 30 \
		-infile "$name.csr" -outfile "$name.crt" -rfc "${extargs[@]}"
	keytool_ -importcert -alias ca -file ca.pem -keystore "$name.p12" "${ks[@]}"
	keytool_ -importcert -alias "$name" -file "$name.crt" -keystore "$name.p12" "${ks[@]}"
}

render_config() {
	# $1 node id, $2 node count
	local n=$1 nodes=$2 dir quorum rf min_isr i voters=()
	dir="$(node_dir "$n")"
	if ((nodes == 1)); then
		quorum="controller.quorum.bootstrap.servers=127.0.0.1:$(controller_port 1)"
		rf=1 min_isr=1
	else
		for ((i = 1; i <= nodes; i++)); do
			voters+=("$i@127.0.0.1:$(controller_port "$i")")
		done
		quorum="controller.quorum.voters=$(IFS=,; echo "${voters[*]}")"
		rf=3 min_isr=2
	fi
	sed -e "s|@NODE_ID@|$n|g" \
		-e "s|@QUORUM@|$quorum|g" \
		-e "s|@PORT_PLAIN@|$(plain_port "$n")|g" \
		-e "s|@PORT_CONTROLLER@|$(controller_port "$n")|g" \
		-e "s|@PORT_SASL@|$(sasl_port "$n")|g" \
		-e "s|@PORT_SSL@|$(ssl_port "$n")|g" \
		-e "s|@PORT_SASL_SSL@|$(sasl_ssl_port "$n")|g" \
		-e "s|@TLS_DIR@|$TLS_DIR|g" \
		-e "s|@STORE_PASSWORD@|$STORE_PASSWORD|g" \
		-e "s|@SASL_USER@|$SASL_USER|g" \
		-e "s|@SASL_PASSWORD@|$SASL_PASSWORD|g" \
		-e "s|@DATA_DIR@|$dir/data|g" \
		-e "s|@RF@|$rf|g" \
		-e "s|@MIN_ISR@|$min_isr|g" \
		"$KAFKA_DIR/server.properties.tmpl" >"$dir/server.properties"
	if grep -v '^#' "$dir/server.properties" | grep -q '@[A-Z_]*@'; then
		die "unfilled placeholder in $dir/server.properties"
	fi
}

format_node() {
	# $1 node id, $2 node count, $3 cluster id, $4 scram 1|0
	local n=$1 nodes=$2 cid=$3 scram=$4 dir args=()
	dir="$(node_dir "$n")"
	args=(format -t "$cid" -c "$dir/server.properties")
	# One node: dynamic quorum bootstrapped by this controller (--standalone).
	# Three nodes: static quorum from controller.quorum.voters, no flag.
	((nodes == 1)) && args+=(--standalone)
	if ((scram)); then
		args+=(--add-scram "SCRAM-SHA-256=[name=$SASL_USER,password=$SASL_PASSWORD]"
			--add-scram "SCRAM-SHA-512=[name=$SASL_USER,password=$SASL_PASSWORD]")
	fi
	run_class kafka.tools.StorageTool "${args[@]}" >"$dir/format.out" 2>&1 || {
		cat "$dir/format.out" >&2
		die "formatting node $n failed"
	}
}

start_node() {
	# $1 node id, $2 heap flags
	local n=$1 heap=$2 dir
	dir="$(node_dir "$n")"
	mkdir -p "$dir/logs"
	# shellcheck disable=SC2086 # heap flags are a word list
	# GC flags as in Kafka's kafka-run-class.sh; an out-of-memory broker exits
	# instead of limping on.
	nohup "$JAVA" $heap -server -XX:+UseG1GC -XX:MaxGCPauseMillis=20 \
		-XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent \
		-XX:MaxInlineLevel=15 -XX:+ExitOnOutOfMemoryError \
		-Djava.awt.headless=true \
		-Dkafka.logs.dir="$dir/logs" \
		-Dlog4j2.configurationFile="$KAFKA_DIR/log4j2.properties" \
		-cp "$LIB_DIR/*" kafka.Kafka "$dir/server.properties" \
		</dev/null >"$dir/kafka.out" 2>&1 &
	echo $! >"$dir/kafka.pid"
}

print_failure() {
	local nodes=$1 n dir
	for ((n = 1; n <= nodes; n++)); do
		dir="$(node_dir "$n")"
		if node_pid "$n" >/dev/null; then
			log "node $n: running (pid $(cat "$dir/kafka.pid"))"
		else
			log "node $n: NOT running"
		fi
		if [[ -s "$dir/kafka.out" ]]; then
			log "--- tail of $dir/kafka.out"
			tail -n 20 "$dir/kafka.out" >&2
		fi
		if [[ -f "$dir/logs/server.log" ]]; then
			log "--- tail of $dir/logs/server.log"
			tail -n 40 "$dir/logs/server.log" >&2
		fi
	done
}

cmd_up() {
	local nodes=1 scram=1 timeout=90 heap
	while (($#)); do
		case "$1" in
		--nodes) nodes="${2:-}"; shift 2 ;;
		--nodes=*) nodes="${1#*=}"; shift ;;
		--scram) scram=1; shift ;;
		--no-scram) scram=0; shift ;;
		--timeout) timeout="${2:-}"; shift 2 ;;
		--timeout=*) timeout="${1#*=}"; shift ;;
		*) die "up: unknown option $1" ;;
		esac
	done
	[[ "$nodes" == 1 || "$nodes" == 3 ]] || die "up: --nodes must be 1 or 3"
	[[ "$timeout" =~ ^[0-9]+$ ]] || die "up: --timeout must be a number of seconds"
	if ((nodes == 1)); then heap="${KAFKA_HEAP_OPTS:--Xmx768m -Xms256m}"; else heap="${KAFKA_HEAP_OPTS:--Xmx512m -Xms256m}"; fi

	# Already running?
	if [[ -n "$(running_pids)" ]]; then
		local have
		have="$(cluster_nodes)"
		if [[ "$have" != "$nodes" ]]; then
			die "a $have-node cluster is running; run 'scripts/kafka.sh down' first"
		fi
		if cluster_answers "$nodes"; then
			log "already running and answering ($nodes node(s)) at $(bootstrap_list "$nodes" plain)"
			return 0
		fi
		die "cluster processes run but do not answer; see 'scripts/kafka.sh status' or run 'scripts/kafka.sh down'"
	fi

	local n
	for ((n = 1; n <= 3; n++)); do
		for p in "$(plain_port "$n")" "$(controller_port "$n")" "$(sasl_port "$n")" "$(ssl_port "$n")" "$(sasl_ssl_port "$n")"; do
			if ((n <= nodes)) && port_open "$p"; then
				die "port 127.0.0.1:$p is already in use by another process"
			fi
		done
	done

	fetch_jars

	# Reuse data only if the last `down` was `down --keep` for the same shape.
	local reuse=0
	if [[ -f "$KEPT_MARKER" && "$(cluster_nodes)" == "$nodes" ]]; then
		reuse=1
		log "reusing data kept by 'down --keep' in $RUN_DIR"
	else
		rm -rf "$RUN_DIR"
	fi
	rm -f "$KEPT_MARKER"
	mkdir -p "$RUN_DIR"

	if ((!reuse)); then
		local cid
		cid="$(random_cluster_id)"
		printf 'NODES=%s\nCLUSTER_ID=%s\nSCRAM=%s\nKAFKA_VERSION=%s\n' \
			"$nodes" "$cid" "$scram" "$(kafka_version)" >"$CLUSTER_ENV"
		make_tls
		local pids=()
		for ((n = 1; n <= nodes; n++)); do
			mkdir -p "$(node_dir "$n")/data" "$(node_dir "$n")/logs"
			render_config "$n" "$nodes"
			format_node "$n" "$nodes" "$cid" "$scram" &
			pids+=($!)
		done
		for p in "${pids[@]}"; do wait "$p" || exit 1; done
	fi

	for ((n = 1; n <= nodes; n++)); do
		start_node "$n" "$heap"
	done

	local start=$SECONDS
	while ! cluster_answers "$nodes"; do
		for ((n = 1; n <= nodes; n++)); do
			# kill -0, not node_pid: right after the fork the pid may still
			# show nohup's command line rather than the JVM's.
			if ! kill -0 "$(cat "$(node_dir "$n")/kafka.pid")" 2>/dev/null; then
				print_failure "$nodes"
				die "node $n exited during startup"
			fi
		done
		if ((SECONDS - start >= timeout)); then
			print_failure "$nodes"
			die "cluster did not answer within ${timeout}s (left running; 'scripts/kafka.sh down' stops it)"
		fi
		sleep 0.5
	done
	log "up: $nodes node(s), Kafka $(kafka_version), ready in $((SECONDS - start))s"
	log "  bootstrap (PLAINTEXT):      $(bootstrap_list "$nodes" plain)"
	log "  bootstrap (SASL_PLAINTEXT): $(bootstrap_list "$nodes" sasl) user=$SASL_USER password=$SASL_PASSWORD"
	log "  bootstrap (SSL):            $(bootstrap_list "$nodes" ssl) CA $TLS_DIR/ca.pem"
	log "  bootstrap (SASL_SSL):       $(bootstrap_list "$nodes" sasl_ssl)"
}

# ---------------------------------------------------------------- down
cmd_down() {
	local keep=0
	while (($#)); do
		case "$1" in
		--keep) keep=1; shift ;;
		*) die "down: unknown option $1" ;;
		esac
	done
	local pids=() n pid
	for n in 1 2 3; do
		if pid="$(node_pid "$n")"; then
			pids+=("$pid")
			kill -TERM "$pid" 2>/dev/null || true
		fi
	done
	if ((${#pids[@]})); then
		local deadline=$((SECONDS + STOP_TIMEOUT)) alive
		while :; do
			alive=()
			for pid in "${pids[@]}"; do
				kill -0 "$pid" 2>/dev/null && alive+=("$pid")
			done
			((${#alive[@]} == 0)) && break
			if ((SECONDS >= deadline)); then
				log "still running after ${STOP_TIMEOUT}s, sending SIGKILL to ${alive[*]}"
				kill -KILL "${alive[@]}" 2>/dev/null || true
				sleep 0.5
				break
			fi
			sleep 0.2
		done
		log "stopped ${#pids[@]} node(s)"
	else
		log "nothing running"
	fi
	for n in 1 2 3; do rm -f "$(node_dir "$n")/kafka.pid"; done
	if ((keep)); then
		[[ -d "$RUN_DIR" ]] && touch "$KEPT_MARKER"
		log "kept $RUN_DIR"
	else
		rm -rf "$RUN_DIR"
	fi
}

# ---------------------------------------------------------------- status
cmd_status() {
	local nodes n pid any=0 all=1
	nodes="$(cluster_nodes)"
	if ((nodes == 0)); then
		echo "not running"
		return 3
	fi
	for ((n = 1; n <= nodes; n++)); do
		if pid="$(node_pid "$n")"; then
			any=1
			if port_open "$(plain_port "$n")"; then
				echo "node $n: running, pid $pid, 127.0.0.1:$(plain_port "$n") open"
			else
				echo "node $n: running, pid $pid, 127.0.0.1:$(plain_port "$n") not open"
				all=0
			fi
		else
			echo "node $n: not running"
			all=0
		fi
	done
	((any)) || { echo "not running"; return 3; }
	if ((all)) && cluster_answers "$nodes"; then
		echo "cluster: answering, $nodes broker(s), bootstrap $(bootstrap_list "$nodes" plain)"
		return 0
	fi
	echo "cluster: not answering"
	return 1
}

cmd_bootstrap() {
	local kind=plain nodes
	case "${1:-}" in
	"") ;;
	--sasl) kind=sasl ;;
	--ssl) kind=ssl ;;
	--sasl-ssl) kind=sasl_ssl ;;
	*) die "bootstrap: unknown option $1 (--sasl, --ssl or --sasl-ssl)" ;;
	esac
	nodes="$(cluster_nodes)"
	((nodes > 0)) || nodes=1
	bootstrap_list "$nodes" "$kind"
}

# ---------------------------------------------------------------- main
main() {
	local cmd="${1:-}"
	(($#)) && shift
	case "$cmd" in
	up) cmd_up "$@" ;;
	down) cmd_down "$@" ;;
	status) cmd_status "$@" ;;
	bootstrap) cmd_bootstrap "$@" ;;
	ca) echo "$TLS_DIR/ca.pem" ;;
	fetch) fetch_jars ;;
	topics)
		fetch_jars
		run_class org.apache.kafka.tools.TopicCommand --bootstrap-server "$(cmd_bootstrap)" "$@"
		;;
	class)
		fetch_jars
		run_class "$@"
		;;
	-h | --help | help)
		sed -n '2,/^$/{s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"
		;;
	*)
		sed -n '2,/^$/{s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}" >&2
		exit 2
		;;
	esac
}

main "$@"
