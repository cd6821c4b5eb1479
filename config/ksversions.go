package config

import (
	"slices"
	"strings"

	"github.com/restorebench/restorebench/ksdriver"
)

// KSFeature is something a Kafka Streams version has or lacks that a case
// can depend on: a scenario (ScenarioDef.KafkaStreamsNeeds) or a setting
// (streams.group.protocol=streams) that a version without it cannot run is
// refused when the profile is read, naming the version and the feature.
type KSFeature string

const (
	// FeatureStreamsProtocol is group.protocol=streams (KIP-1071): early
	// access in 4.1, generally available from 4.2.
	FeatureStreamsProtocol KSFeature = "the streams group protocol (group.protocol=streams, KIP-1071; from 4.1)"
	// FeatureStandbyListener is StandbyUpdateListener (KIP-988, 3.7): the
	// driver's standby_* events, which the scenarios with a standby, a
	// warmup or a second instance read.
	FeatureStandbyListener KSFeature = "StandbyUpdateListener (KIP-988; from 3.7)"
	// FeatureStoreOffsets is KIP-1035 (4.3): RocksDB stores keep their
	// changelog offset in the store (no .checkpoint file). Informational:
	// every scenario runs either way, and measures the difference.
	FeatureStoreOffsets KSFeature = "changelog offsets in the RocksDB store (KIP-1035; from 4.3)"
	// FeatureCloseOptions is org.apache.kafka.streams.CloseOptions (4.2),
	// with which a dynamic member leaves the group on close. Before it the
	// driver has the main consumer leave on close instead
	// (kstreams/PROTOCOL.md, "Kafka Streams versions"), so `stop` means
	// the same on every version. Informational.
	FeatureCloseOptions KSFeature = "CloseOptions with LEAVE_GROUP for dynamic members (from 4.2)"
	// FeatureTransactionalStores is enable.transactional.statestores
	// (KIP-892, 4.4): a case setting it needs it.
	FeatureTransactionalStores KSFeature = "transactional state stores (enable.transactional.statestores, KIP-892; from 4.4)"
)

// KSVersion is one Kafka Streams version a kafka-streams case can run:
// the driver in kstreams/ builds against it (scripts/kstreams.sh build
// VERSION) and what that version has.
type KSVersion struct {
	Version  string
	Features []KSFeature
	// Note is what else a user comparing versions should know of it.
	Note string
}

// Has reports whether the version has feature f.
func (v KSVersion) Has(f KSFeature) bool { return slices.Contains(v.Features, f) }

// KafkaStreamsVersions are the versions kafka_streams_version accepts, the
// newest patch of each minor that Maven Central serves (and 4.3.0 beside
// 4.3.1, for KAFKA-20663): the one table of what each can run. Adding a
// version is a row here, once the driver builds and passes its tests
// against it.
var KafkaStreamsVersions = []KSVersion{
	{Version: "3.9.1", Features: []KSFeature{FeatureStandbyListener},
		Note: "the last 3.x; checkpoint files; classic group protocol only"},
	{Version: "4.0.2", Features: []KSFeature{FeatureStandbyListener},
		Note: "APIs deprecated in 3.x removed; classic group protocol only"},
	{Version: "4.1.2", Features: []KSFeature{FeatureStandbyListener, FeatureStreamsProtocol},
		Note: "the streams group protocol in early access"},
	{Version: "4.2.2", Features: []KSFeature{FeatureStandbyListener, FeatureStreamsProtocol, FeatureCloseOptions},
		Note: "the streams group protocol generally available"},
	{Version: "4.3.0", Features: []KSFeature{FeatureStandbyListener, FeatureStreamsProtocol, FeatureCloseOptions, FeatureStoreOffsets},
		Note: "offsets in the store; after a SIGKILL a low-traffic store can restart from a stale offset (KAFKA-20663)"},
	{Version: "4.3.1", Features: []KSFeature{FeatureStandbyListener, FeatureStreamsProtocol, FeatureCloseOptions, FeatureStoreOffsets},
		Note: "KAFKA-20663 fixed"},
	{Version: ksdriver.DefaultKafkaStreamsVersion, Features: []KSFeature{FeatureStandbyListener, FeatureStreamsProtocol, FeatureCloseOptions, FeatureStoreOffsets,
		FeatureTransactionalStores},
		Note: "the default"},
}

// LookupKafkaStreamsVersion returns the table's row of version.
func LookupKafkaStreamsVersion(version string) (KSVersion, bool) {
	for _, v := range KafkaStreamsVersions {
		if v.Version == version {
			return v, true
		}
	}
	return KSVersion{}, false
}

// KafkaStreamsVersionNames lists the table's versions, oldest first.
func KafkaStreamsVersionNames() []string {
	out := make([]string, len(KafkaStreamsVersions))
	for i, v := range KafkaStreamsVersions {
		out[i] = v.Version
	}
	return out
}

// checkKafkaStreamsVersion validates kafka_streams_version: on the
// kafka-streams engine one of KafkaStreamsVersions ("" is the default,
// which Finalize writes in), with what the case's scenario and settings need; on the
// model engine, unset (it runs no Kafka Streams, and a record naming a
// version would say it did).
func (c Case) checkKafkaStreamsVersion() error {
	if c.Engine != EngineKafkaStreams {
		if c.KafkaStreamsVersion != "" {
			return fieldErr("kafka_streams_version", "%q: the %s engine runs no Kafka Streams; set it on kafka-streams cases only", c.KafkaStreamsVersion, c.Engine)
		}
		return nil
	}
	version := c.kafkaStreamsVersionOrDefault()
	v, ok := LookupKafkaStreamsVersion(version)
	if !ok {
		return fieldErr("kafka_streams_version", "%q is not one of %s (the versions the driver builds against; default %s)",
			c.KafkaStreamsVersion, strings.Join(KafkaStreamsVersionNames(), ", "), ksdriver.DefaultKafkaStreamsVersion)
	}
	if def, ok := ScenarioDefOf(c.Scenario); ok {
		for _, f := range def.KafkaStreamsNeeds {
			if !v.Has(f) {
				return fieldErr("scenario", "%s on Kafka Streams %s (kafka_streams_version): it needs %s, which %s lacks", c.Scenario, v.Version, f, v.Version)
			}
		}
	}
	if strings.EqualFold(strings.TrimSpace(c.Streams[propGroupProtocol]), "streams") && !v.Has(FeatureStreamsProtocol) {
		return fieldErr("streams."+propGroupProtocol, "streams on Kafka Streams %s (kafka_streams_version): it needs %s; "+
			"%s has the classic protocol only", v.Version, FeatureStreamsProtocol, v.Version)
	}
	return nil
}

// checkTransactionalStores validates enable.transactional.statestores on
// either engine: true or false; true only under exactly_once_v2 (Kafka
// Streams uses it under exactly-once only, and a case that set it
// otherwise would name a setting that did nothing) and, on kafka-streams,
// on a version that has it.
func (c Case) checkTransactionalStores() error {
	v, ok := c.Streams[PropTransactionalStateStores]
	if !ok {
		return nil
	}
	key := "streams." + PropTransactionalStateStores
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "false":
		return nil
	case "true":
	default:
		return fieldErr(key, "%q is not true or false", v)
	}
	if !c.ExactlyOnce() {
		return fieldErr(key, "true takes effect under processing.guarantee %s only; this case runs %s", ExactlyOnceV2, c.ProcessingGuarantee())
	}
	if c.Engine != EngineKafkaStreams {
		return nil
	}
	version := c.kafkaStreamsVersionOrDefault()
	if row, ok := LookupKafkaStreamsVersion(version); ok && !row.Has(FeatureTransactionalStores) {
		return fieldErr(key, "true on Kafka Streams %s (kafka_streams_version): it needs %s", version, FeatureTransactionalStores)
	}
	return nil
}

// kafkaStreamsVersionOrDefault is the case's kafka_streams_version, the
// default for a case not finalized yet.
func (c Case) kafkaStreamsVersionOrDefault() string {
	if c.KafkaStreamsVersion == "" {
		return ksdriver.DefaultKafkaStreamsVersion
	}
	return c.KafkaStreamsVersion
}

// propGroupProtocol is StreamsConfig's group.protocol.
const propGroupProtocol = "group.protocol"

// defaultKafkaStreamsVersion makes a kafka-streams case's unset version
// the default, so that its record names the version it ran.
func (c *Case) defaultKafkaStreamsVersion() {
	if c.Engine == EngineKafkaStreams && c.KafkaStreamsVersion == "" {
		c.KafkaStreamsVersion = ksdriver.DefaultKafkaStreamsVersion
	}
}
