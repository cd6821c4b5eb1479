package fleet

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/runs"
)

// What every Kafka Streams instance of a case is given (its properties and
// JVM flags) and asked (its hello, the digest of its stores), whichever
// scenario starts it and wherever it runs.

// Bounds of an instance's waits besides the stall timeout.
const (
	// KSDigestTimeout bounds the digest of the restored stores.
	KSDigestTimeout = 30 * time.Minute
	// ksProcessWait bounds the wait for the process event after the restore
	// that closes its CPU split (the driver sends one a second).
	ksProcessWait = 3 * time.Second
	// KSInstanceID names the single instance of a cold restore.
	KSInstanceID = "i0"
)

// CheckKafkaStreamsTarget refuses what the kafka-streams engine's
// scenarios other than cold cannot restore: a changelog Kafka Streams would
// not name after the store (the kv topology's store's changelog is always
// <application.id>-<store>-changelog; only the cold restore has the table
// topology for any other topic).
func CheckKafkaStreamsTarget(env *Env, t Target) error {
	if want := config.ChangelogTopic(t.AppID, t.StoreName); t.Topic != want {
		return fmt.Errorf("the kafka-streams engine restores store %s of application %s from %s, the changelog Kafka Streams names for it; "+
			"topic %s is not that (fill it under that name, or restore it on the model engine)",
			t.StoreName, t.AppID, want, t.Topic)
	}
	return nil
}

// ResetKafkaStreamsFill readies a repeat of a kafka-streams scenario that
// writes to the changelog (warm, failover): it refuses a request without a
// changer (ErrNoChanger) and a target the engine cannot restore
// (CheckKafkaStreamsTarget), then resets the topic to the fill itself, so
// an earlier repeat's writes and deletions do not carry over.
func ResetKafkaStreamsFill(ctx context.Context, env *Env, t Target, req Request) error {
	if req.Changer == nil {
		return ErrNoChanger
	}
	if err := CheckKafkaStreamsTarget(env, t); err != nil {
		return err
	}
	return req.Changer.Reset(ctx)
}

// ColdDriverProperties are the driver settings of a cold restore: its
// restore listeners and the process (CPU, RSS) poller, and none of the
// pollers a cold restore has no use for (tasks, processed records, lags:
// those are for standby and failover timelines), so the instance does as
// little besides restoring as a bare Kafka Streams app.
var ColdDriverProperties = map[string]string{
	ksdriver.PropTasksIntervalMs:     "0",
	ksdriver.PropProcessedIntervalMs: "0",
	ksdriver.PropLagsIntervalMs:      "0",
}

// InputTopic is the kv topology's input topic for a store.
func InputTopic(appID, store string) string { return appID + "-" + store + "-input" }

// InstanceProperties are the instance's CONFIG.properties: the case's
// Kafka Streams properties, the ones restorebench owns, and the driver's.
func InstanceProperties(env *Env, t Target, req Request, input string) (map[string]string, error) {
	stateDir, err := filepath.Abs(req.StateDir)
	if err != nil {
		return nil, err
	}
	props := req.Case.KafkaStreamsProperties()
	props["application.id"] = t.AppID
	if err := AddClientProperties(env, props); err != nil {
		return nil, err
	}
	props["state.dir"] = stateDir
	props[ksdriver.PropTopology] = ksdriver.TopologyKV
	props[ksdriver.PropStore] = t.StoreName
	props[ksdriver.PropInputTopic] = input
	maps.Copy(props, ColdDriverProperties)
	return props, nil
}

// JVMFlags are the JVM flags of a case's instances: -Xmx from jvm_heap,
// -XX:+ExitOnOutOfMemoryError (a heap too small ends the instance at its
// first OutOfMemoryError, which the tool reports as such, instead of
// leaving it to thrash in GC or to run on with a dead thread), then
// jvm_flags (a later -Xmx or -XX:-ExitOnOutOfMemoryError wins).
func JVMFlags(c config.Case) []string {
	heap := c.JVMHeap
	if heap <= 0 {
		heap = config.DefaultJVMHeap
	}
	xmx := fmt.Sprintf("-Xmx%dk", (heap+1023)/1024)
	if heap%(1<<20) == 0 {
		xmx = fmt.Sprintf("-Xmx%dm", heap>>20)
	}
	return append([]string{xmx, ExitOnOOM}, c.JVMFlags...)
}

// ExitOnOOM is the HotSpot flag that ends the JVM at its first
// OutOfMemoryError (exit status 3).
const ExitOnOOM = "-XX:+ExitOnOutOfMemoryError"

// RecordHello copies what the instance said about itself into the record.
func RecordHello(ks *runs.KafkaStreamsRun, h *ksdriver.Hello) {
	ks.Version, ks.JavaVersion, ks.Compat = h.KafkaStreamsVersion, h.JavaVersion, h.Compat
	ks.JVMArgs, ks.MaxHeapBytes, ks.GC = h.JVMArgs, h.MaxHeapBytes, h.GC
}

// requester is an instance process that takes commands: a
// *ksdriver.Instance, or a fleet's Process.
type requester interface {
	Request(ctx context.Context, command, reply string) (ksdriver.Event, error)
}

// DigestStores asks the instance for the digest of its active stores.
func DigestStores(ctx context.Context, inst requester, store string) (*ksdriver.Digest, error) {
	dctx, cancel := context.WithTimeout(ctx, KSDigestTimeout)
	defer cancel()
	e, err := inst.Request(dctx, "digest", ksdriver.EvDigest)
	if err != nil {
		return nil, fmt.Errorf("digest of the restored stores: %w", err)
	}
	d := e.(*ksdriver.Digest)
	if d.Store != store {
		return nil, fmt.Errorf("digest of store %s, expected %s", d.Store, store)
	}
	return d, nil
}

// StoreEntries asks an instance for one active store partition's live
// entries key by key (the driver's `entries PARTITION` file command, run
// where the instance runs): key → the entry's hash, as the digest sums
// them.
func StoreEntries(ctx context.Context, p Process, partition int32) (map[string]uint64, error) {
	dctx, cancel := context.WithTimeout(ctx, KSDigestTimeout)
	defer cancel()
	b, err := p.Fetch(dctx, fmt.Sprintf("entries %d", partition))
	if err != nil {
		return nil, err
	}
	return ParseEntries(bytes.NewReader(b), fmt.Sprintf("entries of partition %d of instance %s", partition, p.ID()))
}

// ParseEntries reads the driver's KEYHEX<TAB>ENTRYHASH lines.
func ParseEntries(r io.Reader, name string) (map[string]uint64, error) {
	out := map[string]uint64{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for line := 1; sc.Scan(); line++ {
		k, h, ok := strings.Cut(sc.Text(), "\t")
		key, kerr := hex.DecodeString(k)
		hash, herr := strconv.ParseUint(h, 16, 64)
		if !ok || kerr != nil || herr != nil {
			return nil, fmt.Errorf("%s:%d: want a key in hex, a tab and a 16-digit hex hash", name, line)
		}
		out[string(key)] = hash
	}
	return out, sc.Err()
}
