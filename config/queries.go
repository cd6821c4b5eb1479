package config

import (
	"math"
	"time"

	"github.com/restorebench/restorebench/internal/listing"
)

// QueryLoad is a load of interactive queries beside a case's scenario: key
// lookups, as an application's API layer sends them to
// KafkaStreams.store(StoreQueryParameters...) or IQv2's KeyQuery, each
// checked against the value the fill gave its key. Set as the case's
// queries block; nil (the default) runs no queries.
type QueryLoad struct {
	// Rate is the lookups a second, spread evenly. Default 1000.
	Rate float64 `json:"rate" yaml:"rate"`
	// Stale allows reads from a store that is still restoring, as
	// StoreQueryParameters.enableStaleStores() does; by default (false)
	// Kafka Streams refuses them (InvalidStateStoreException) until the
	// store is restored, and so does the model.
	Stale bool `json:"stale,omitempty" yaml:"stale"`
	// After is how long the lookups go on once the restore (and the ready
	// phase) is over, for the latency a restored store gives. Default 5s.
	After Duration `json:"after" yaml:"after"`
	// Retry is how long the instance asked retries a stale lookup that no
	// copy can serve yet before refusing it, as Kafka Streams' documentation
	// tells an application's API layer to retry an
	// InvalidStateStoreException: one is thrown while a task migrates (a
	// standby promoted to active is briefly neither) or a rebalance leaves
	// no metadata, though a caught-up copy exists. With stale reads only
	// (without them the refusal while a store restores is the answer);
	// kafka-streams engine. Default 2s (a promotion took 0.1-2.3 s on a
	// loaded 2-core machine); 0 refuses at once; at most 4s (the client
	// gives a lookup 5 s).
	Retry Duration `json:"retry" yaml:"retry"`
	// Keys is how the looked-up keys are drawn from the fill's:
	// KeysUniform (the default; "" means it too) or KeysZipf, a few hot
	// keys asked most, as users of a real application ask.
	Keys string `json:"keys,omitempty" yaml:"keys"`
	// ZipfS is the Zipf exponent of KeysZipf (key id k is asked in
	// proportion to 1/(1+k)^s; math/rand's Zipf needs s > 1). Default
	// 1.1 when Keys is zipf; unused otherwise.
	ZipfS float64 `json:"zipf_s,omitempty" yaml:"zipf_s"`
	// Ask is which instance a lookup goes to (kafka-streams engine):
	// AskAny (the default; "" means it too), each instance in turn as a
	// round-robin load balancer sends them, the instance asked forwarding
	// to the owner KafkaStreams.queryMetadataForKey names; or AskOwner,
	// the instance holding the key's active copy as the client last saw
	// the assignment (what queryMetadataForKey's activeHost names), asked
	// not to forward: a client that routes by the metadata itself. The
	// model engine has one instance and ignores it.
	Ask string `json:"ask,omitempty" yaml:"ask"`
	// RangeShare is the share of the lookups, from 0 to 1, sent as range
	// queries instead (kafka-streams engine): each asks an instance, in
	// turn whatever Ask says, for every entry with a key from a drawn key
	// to RangeKeys keys on, which the instance gathers over every
	// partition (ReadOnlyKeyValueStore.range on its own, forwarded for
	// the others, as an application's API layer does) or refuses whole,
	// and each key of it is judged as a lookup of it would be. Default 0:
	// key lookups only.
	RangeShare float64 `json:"range_share,omitempty" yaml:"range_share"`
	// RangeKeys is how many consecutive fill keys a range query spans.
	// Default 20 with a RangeShare; at most MaxRangeKeys.
	RangeKeys int `json:"range_keys,omitempty" yaml:"range_keys"`
	// Partitioner is how an instance finds a key's partition
	// (kafka-streams engine; PartitionerKafkaStreams, the default, or
	// PartitionerTopic; see queries_partitioner.go).
	Partitioner string `json:"partitioner,omitempty" yaml:"partitioner"`
}

// DefaultRangeKeys is QueryLoad.RangeKeys' default; MaxRangeKeys its
// bound (the driver refuses a range of over 10,000 entries).
const (
	DefaultRangeKeys = 20
	MaxRangeKeys     = 1000
)

// RangeWidth is RangeKeys with 0 read as DefaultRangeKeys.
func (q QueryLoad) RangeWidth() int {
	if q.RangeKeys == 0 {
		return DefaultRangeKeys
	}
	return q.RangeKeys
}

// Key distributions of QueryLoad.Keys.
const (
	KeysUniform = "uniform"
	KeysZipf    = "zipf"
)

// Instances a lookup asks (QueryLoad.Ask).
const (
	AskAny   = "any"
	AskOwner = "owner"
)

// DefaultZipfS is QueryLoad.ZipfS's default.
const DefaultZipfS = 1.1

// DefaultQueryLoad returns the defaults documented on QueryLoad's fields.
func DefaultQueryLoad() *QueryLoad {
	return &QueryLoad{Rate: 1000, After: Duration(5 * time.Second), Retry: Duration(2 * time.Second), Keys: KeysUniform, Ask: AskAny}
}

// MaxQueryRetry bounds QueryLoad.Retry below the client's 5 s a lookup.
const MaxQueryRetry = 4 * time.Second

// KeyDist is Keys with "" read as KeysUniform.
func (q QueryLoad) KeyDist() string {
	if q.Keys == "" {
		return KeysUniform
	}
	return q.Keys
}

// Exponent is ZipfS with 0 read as DefaultZipfS.
func (q QueryLoad) Exponent() float64 {
	if q.ZipfS == 0 {
		return DefaultZipfS
	}
	return q.ZipfS
}

// AskWho is Ask with "" read as AskAny.
func (q QueryLoad) AskWho() string {
	if q.Ask == "" {
		return AskAny
	}
	return q.Ask
}

// MaxQueryRate bounds QueryLoad.Rate: one client goroutine sends them.
const MaxQueryRate = 200_000

// queryScenarios lists, in config's order, the scenarios a query load runs
// beside (ScenarioDef.Queries): "cold, warm, failover, scaleout and
// rolling".
func queryScenarios() string {
	var names []Scenario
	for _, s := range Scenarios {
		if d, _ := ScenarioDefOf(s); d.Queries {
			names = append(names, s)
		}
	}
	return listing.And(names)
}

// scenarioRunsQueries says whether a query load runs beside scenario s.
func scenarioRunsQueries(s Scenario) bool {
	d, ok := ScenarioDefOf(s)
	return ok && d.Queries
}

// checkQueries validates the case's query load: bounded, of a known key
// distribution and instance to ask, and beside a scenario that runs one
// (ScenarioDef.Queries).
func (c Case) checkQueries() error {
	q := c.Queries
	switch {
	case q == nil:
		return nil
	case !(q.Rate > 0 && q.Rate <= MaxQueryRate): // NaN fails too
		return fieldErr("queries.rate", "%v must be in (0, %d] lookups a second", q.Rate, MaxQueryRate)
	case q.After < 0:
		return fieldErr("queries.after", "%s is negative", q.After)
	case q.After.D() > time.Hour:
		return fieldErr("queries.after", "%s is over an hour", q.After)
	case q.Retry < 0 || q.Retry.D() > MaxQueryRetry:
		return fieldErr("queries.retry", "%s must be from 0 to %s", q.Retry, Duration(MaxQueryRetry))
	case q.KeyDist() != KeysUniform && q.KeyDist() != KeysZipf:
		return fieldErr("queries.keys", "%q is not a key distribution: uniform (the default) or zipf", q.Keys)
	case q.ZipfS != 0 && q.KeyDist() != KeysZipf:
		return fieldErr("queries.zipf_s", "is the exponent of keys: zipf, and keys is %s", q.KeyDist())
	case !(q.Exponent() > 1 && q.Exponent() <= 10) || math.IsNaN(q.ZipfS):
		return fieldErr("queries.zipf_s", "%v must be in (1, 10]: a Zipf exponent of 1 or less has no finite sum to draw from", q.ZipfS)
	case q.AskWho() != AskAny && q.AskWho() != AskOwner:
		return fieldErr("queries.ask", "%q is not an instance to ask: any (each in turn, the default) or owner (the key's active host, no forwarding)", q.Ask)
	case q.PartitionBy() != PartitionerKafkaStreams && q.PartitionBy() != PartitionerTopic:
		return fieldErr("queries.partitioner", "%q is not a partitioner: kafka-streams (the default) or topic", q.Partitioner)
	case !scenarioRunsQueries(c.Scenario):
		return fieldErr("queries", "queries run beside scenarios %s only so far, not %s", queryScenarios(), c.Scenario)
	case kindDef(c.StoreKind).NoLookups != "":
		return fieldErr("queries", "key lookups read key-value stores; %s", kindDef(c.StoreKind).NoLookups)
	}
	if err := c.checkQueryOwnedStreams(); err != nil {
		return err
	}
	return c.checkRangeQueries()
}

// checkRangeQueries validates the query load's range settings: a share
// from 0 to 1, a width within bounds and only with a share, on the
// kafka-streams engine (the model's stores answer key lookups only).
func (c Case) checkRangeQueries() error {
	q := c.Queries
	switch {
	case !(q.RangeShare >= 0 && q.RangeShare <= 1):
		return fieldErr("queries.range_share", "%v must be from 0 to 1: the share of lookups sent as range queries", q.RangeShare)
	case q.RangeKeys < 0 || q.RangeKeys > MaxRangeKeys:
		return fieldErr("queries.range_keys", "%d must be from 1 to %d keys", q.RangeKeys, MaxRangeKeys)
	case q.RangeKeys != 0 && q.RangeShare == 0:
		return fieldErr("queries.range_keys", "is the width of range queries, and queries.range_share is 0: set it too")
	case q.RangeShare > 0 && c.Engine != EngineKafkaStreams:
		return fieldErr("queries.range_share", "range queries go through the kafka-streams engine's API layer; the %s "+
			"engine answers key lookups only so far", c.Engine)
	}
	return nil
}
