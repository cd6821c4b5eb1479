package agent

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/ksdriver"
)

// An agent checks every field of every command itself, as strictly as a
// profile is checked, before it acts on any: a signed command comes from a
// holder of the key, but a coordinator's bug (or a stolen key) must still
// not reach past the agent's state directory, run a command through a JVM
// flag, or write to a topic that is not the run's.
//
// Bounds of what one command may ask.
const (
	// maxProcessN bounds a start's process number: restarts of one
	// instance within a run.
	maxProcessN = 10_000
	// maxProperties and maxPropertyBytes bound a start's properties.
	maxProperties    = 512
	maxPropertyBytes = 64 << 10
	// maxJVMFlags bounds a start's JVM flags.
	maxJVMFlags = 64
	// maxOffsetPartitions bounds a model restore's offset maps.
	maxOffsetPartitions = 100_000
	// MaxFillBytes bounds the records a fill command may write on an agent
	// (its spec's estimate): 1 TiB, far past what a benchmark fills.
	MaxFillBytes = 1 << 40
	// minLeaseTTL and maxLeaseTTL bound a lease's time to live.
	minLeaseTTL = 100 * time.Millisecond
	maxLeaseTTL = time.Hour
	// maxQueriesAfter bounds how long a queries_stop lets a load go on.
	maxQueriesAfter = time.Hour
)

// sendLines are the driver commands a send may carry: balances has its own
// operation (whose path the agent chooses), and nothing else reaches a
// driver's standard input.
var sendLines = map[string]bool{"stop": true, "digest": true, "digest all": true}

// versionPattern is a Kafka Streams version as the driver builds are named.
var versionPattern = regexp.MustCompile(`^[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}$`)

// driverKeys are the driver's restorebench.* properties a coordinator may
// set (the secrets file and connection check are the agent's own).
var driverKeys = map[string]bool{
	ksdriver.PropInstanceID: true, ksdriver.PropTopology: true, ksdriver.PropStore: true, ksdriver.PropStoreType: true,
	ksdriver.PropStoreKind: true, ksdriver.PropStoreRetentionMs: true, ksdriver.PropStoreWindowSizeMs: true,
	ksdriver.PropStoreSegmentIntervalMs: true, ksdriver.PropStoreKeys: true, ksdriver.PropInputTopic: true,
	ksdriver.PropOutputTopic: true, ksdriver.PropTasksIntervalMs: true, ksdriver.PropProcessedIntervalMs: true,
	ksdriver.PropLagsIntervalMs: true, ksdriver.PropProcessIntervalMs: true, ksdriver.PropCloseLeaveGroup: true,
	ksdriver.PropMetrics: true, ksdriver.PropBare: true, ksdriver.PropAPIPort: true, ksdriver.PropAPIHost: true,
	ksdriver.PropAPIRetryMs: true, ksdriver.PropAPIPartitions: true,
}

// validate checks m's fields for its operation: the names that become
// path elements, and every payload, before the agent does anything.
func validate(m *Message) error {
	if m.Protocol != ProtocolVersion {
		return versionErr(m.Protocol)
	}
	if err := checkName("run", m.Run); err != nil {
		return err
	}
	if m.N < 0 || m.N > maxProcessN {
		return fmt.Errorf("process number %d is not from 0 to %d", m.N, maxProcessN)
	}
	switch m.Op {
	case OpHello, OpClock:
		return nil
	case OpFill:
		return validateFill(m.FillJob)
	}
	if err := checkName("fleet", m.Fleet); err != nil {
		return err
	}
	if m.Op == OpRemove {
		return nil
	}
	if err := checkName("instance", m.Instance); err != nil {
		return err
	}
	switch m.Op {
	case OpStart:
		return validateStart(m)
	case OpSend:
		if !sendLines[m.Line] {
			return fmt.Errorf("send %.40q: a driver command line is one of stop, digest, digest all", m.Line)
		}
	case OpModelRestore:
		return validateModel(m.Model)
	case OpQueries:
		return validateQueries(m.QueryJob)
	case OpQueriesStop:
		if m.QueryStop == nil {
			return errors.New("a queries_stop command without its stop")
		}
		if a := m.QueryStop.AfterMs; a < 0 || time.Duration(a)*time.Millisecond > maxQueriesAfter {
			return fmt.Errorf("queries_stop after %d ms: must be from 0 to %s", a, maxQueriesAfter)
		}
	case OpBalances, OpStop, OpKill, OpWipe, OpProcessID, OpDiskUsage:
	default:
		return fmt.Errorf("unknown command %.40q", m.Op)
	}
	return nil
}

// validateStart checks a start's process spec: its properties (no secret,
// no config provider, no connection setting that is not dropped, only the
// driver keys the coordinator sets, the application.id its fleet), its
// JVM flags (config.CheckJVMFlag) and its Kafka Streams version.
func validateStart(m *Message) error {
	if len(m.Properties) > maxProperties {
		return fmt.Errorf("start: %d properties, more than %d", len(m.Properties), maxProperties)
	}
	if err := refuseSecrets(m.Properties); err != nil {
		return err
	}
	for k, v := range m.Properties {
		if k == "" || len(k)+len(v) > maxPropertyBytes || strings.ContainsAny(k, "\x00\r\n=:") || strings.ContainsAny(v, "\x00") {
			return fmt.Errorf("start: property %.60q is not a plain key with a value of at most %d bytes", k, maxPropertyBytes)
		}
		if err := config.CheckConfigProviders(k, v); err != nil {
			return fmt.Errorf("start: %w", err)
		}
		if base := config.ClientBaseName(k); strings.HasPrefix(k, ksdriver.PropPrefix) || strings.HasPrefix(base, ksdriver.PropPrefix) {
			if !driverKeys[k] && !strings.HasPrefix(k, ksdriver.PropRocksDBPrefix) && !isClientKey(k) {
				return fmt.Errorf("start: %s is not a driver setting a coordinator sets", k)
			}
		}
	}
	if app := m.Properties["application.id"]; app != m.Fleet {
		return fmt.Errorf("start: application.id %.60q is not the fleet's (%s): an agent's directories and groups are named by it", app, m.Fleet)
	}
	for _, key := range []string{ksdriver.PropInputTopic, ksdriver.PropOutputTopic} {
		if t, ok := m.Properties[key]; ok && !strings.HasPrefix(t, m.Fleet+"-") {
			return fmt.Errorf("start: %s %.100q is not a topic of the run's application (%s-…)", key, t, m.Fleet)
		}
	}
	if len(m.JVMFlags) > maxJVMFlags {
		return fmt.Errorf("start: %d JVM flags, more than %d", len(m.JVMFlags), maxJVMFlags)
	}
	for i, f := range m.JVMFlags {
		if err := config.CheckJVMFlag(f); err != nil {
			return fmt.Errorf("start: jvm_flags[%d]: %w", i, err)
		}
	}
	if v := m.KafkaStreamsVersion; v != "" && !versionPattern.MatchString(v) {
		return fmt.Errorf("start: Kafka Streams version %.40q is not MAJOR.MINOR.PATCH", v)
	}
	if m.NeedBytes < 0 {
		return fmt.Errorf("start: needs %d bytes, a negative amount", m.NeedBytes)
	}
	return nil
}

// validateModel checks a model restore: a valid case, names that are path
// elements (its store directories are named by them), a legal topic and
// offsets that make a range.
func validateModel(r *ModelRestore) error {
	if r == nil {
		return errors.New("a model_restore command without its restore")
	}
	if err := checkName("application id", r.AppID); err != nil {
		return err
	}
	if err := checkName("store name", r.StoreName); err != nil {
		return err
	}
	if err := config.CheckNames(r.AppID, r.StoreName, r.Topic); err != nil {
		return fmt.Errorf("model_restore: %w", err)
	}
	c := r.Case
	c.Name = r.CaseName
	if err := c.Validate(); err != nil {
		return fmt.Errorf("model_restore: case: %w", err)
	}
	if len(r.Start) > maxOffsetPartitions || len(r.End) > maxOffsetPartitions {
		return fmt.Errorf("model_restore: offsets of more than %d partitions", maxOffsetPartitions)
	}
	for p, end := range r.End {
		if start := r.Start[p]; p < 0 || start < 0 || end < start {
			return fmt.Errorf("model_restore: partition %d's offsets %d to %d are not a range", p, start, end)
		}
	}
	if r.StallTimeoutMs < 0 || r.Repeat < 0 {
		return errors.New("model_restore: a negative stall timeout or repeat")
	}
	return nil
}

// validateFill checks a fill: a legal topic and a valid spec of bounded
// size. The agent also refuses to write to a topic that is not empty
// (Agent.checkEmpty): a fill's topic is one the coordinator just created.
func validateFill(j *FillJob) error {
	if j == nil {
		return errors.New("a fill command without its fill")
	}
	if err := config.CheckNames("a", "s", j.Topic); err != nil {
		return fmt.Errorf("fill: %w", err)
	}
	if err := j.Spec.Validate(); err != nil {
		return fmt.Errorf("fill: %w", err)
	}
	if b := fillBytes(j); b > MaxFillBytes {
		return fmt.Errorf("fill: about %d bytes, more than the %d an agent writes for one fill", b, int64(MaxFillBytes))
	}
	switch j.Compression {
	case "", "none", "gzip", "snappy", "lz4", "zstd":
	default:
		return fmt.Errorf("fill: compression %.20q is not one of none, gzip, snappy, lz4, zstd", j.Compression)
	}
	return nil
}

// fillBytes is about how many bytes a fill writes.
func fillBytes(j *FillJob) int64 {
	if j.Spec.TargetBytes > 0 {
		return j.Spec.TargetBytes
	}
	per := int64(16 + (j.Spec.ValueMin+j.Spec.ValueMax)/2)
	if j.Spec.Records > MaxFillBytes/per {
		return MaxFillBytes + 1
	}
	return j.Spec.Records * per
}

// validateQueries checks a query load by a profile's rules and its spec.
func validateQueries(j *QueryJob) error {
	if j == nil {
		return errors.New("a queries command without its query load")
	}
	if err := config.CheckQueryLoad(j.Load); err != nil {
		return fmt.Errorf("queries: %w", err)
	}
	if err := j.Spec.Validate(); err != nil {
		return fmt.Errorf("queries: %w", err)
	}
	if j.Repeat < 0 {
		return fmt.Errorf("queries: repeat %d is negative", j.Repeat)
	}
	return nil
}

// validLeaseTTL is a lease's time to live, or an error when out of bounds.
func validLeaseTTL(ms int64) (time.Duration, error) {
	d := time.Duration(ms) * time.Millisecond
	if ms != 0 && (d < minLeaseTTL || d > maxLeaseTTL) {
		return 0, fmt.Errorf("a lease of %d ms: must be from %s to %s", ms, minLeaseTTL, maxLeaseTTL)
	}
	return d, nil
}
