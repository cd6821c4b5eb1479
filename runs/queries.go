package runs

import "github.com/restorebench/restorebench/measure"

// QueryFigures is what a load of key lookups beside a restore met
// (Params.Queries): each lookup refused or answered, each answer judged
// against the fill. Times are seconds from when the lookups began, as the
// instance began its restore.
type QueryFigures struct {
	// Rate is the lookups a second asked; Stale whether reads of a store
	// still restoring were allowed (enableStaleStores).
	Rate  float64 `json:"rate"`
	Stale bool    `json:"stale,omitempty"`
	// Agent is the agent whose host sent the lookups (run --agents: the
	// host of the instance they asked), empty when this machine did.
	Agent string `json:"agent,omitempty"`
	// Lookups were sent; Refused found no store to read (not yet opened,
	// or restoring without stale reads, as Kafka Streams'
	// InvalidStateStoreException) or failed; Answered were read, each
	// Correct (the key's final value, or no value for a key the fill
	// leaves without one), StaleReads (an earlier value of the key, or no
	// value yet, from a store still restoring) or Wrong (a value the fill
	// never wrote to that key, or a stale one from a restored store).
	Lookups    int64 `json:"lookups"`
	Refused    int64 `json:"refused"`
	Answered   int64 `json:"answered"`
	Correct    int64 `json:"correct"`
	StaleReads int64 `json:"stale_reads"`
	Wrong      int64 `json:"wrong"`
	// Misrouted (kafka-streams engine) are the Wrong answers read from a
	// store partition the key is not in: the one
	// KafkaStreams.queryMetadataForKey named was not the key's (murmur2
	// over the topic's partitions, as the fill placed it). Kafka Streams'
	// routing, not its store, gave them; see kstreams/PROTOCOL.md, "The
	// API layer", for when Kafka Streams does so.
	Misrouted int64 `json:"misrouted,omitempty"`
	// Failed (kafka-streams engine) are the refused lookups that got no
	// answer at all: the instance asked could not be reached, or did not
	// answer within ksdriver.DefaultLookupTimeout.
	Failed int64 `json:"failed,omitempty"`
	// Forwarded (kafka-streams engine) are the answers that came through
	// an instance that forwarded the lookup to the owner
	// KafkaStreams.queryMetadataForKey named, as an application's API
	// layer does; FromStandby those a standby copy gave (stale reads).
	Forwarded   int64 `json:"forwarded,omitempty"`
	FromStandby int64 `json:"from_standby,omitempty"`
	// RefusedWhy (kafka-streams engine) holds up to five distinct reasons
	// the API layer gave for refusing, as it gave them.
	RefusedWhy []string `json:"refused_why,omitempty"`
	// Retried (kafka-streams engine) are the lookups, answered or refused,
	// the instance asked retried because no copy could serve them yet
	// (queries.retry: a task migrating, a rebalance); RetriedMaxMs the
	// longest such wait.
	Retried      int64 `json:"retried,omitempty"`
	RetriedMaxMs int64 `json:"retried_max_ms,omitempty"`
	// Ranges (kafka-streams engine, queries.range_share) are the lookups
	// sent as range queries, counted in Lookups, Refused, Answered and
	// the verdicts too: a range's verdict is its worst key's.
	// RangesRefused were refused whole: some partition had no copy that
	// could serve, or (RangesBusy, counted in RangesRefused too) the
	// instance asked already gathered as many ranges as it takes at once
	// (restorebench.api.range.concurrency, HTTP 429), a refusal for load
	// and not for a missing copy. RangeKeys the keys the answered ranges were judged
	// on, and RangeLatency the answered ranges' latency (not in During or
	// After, which are key lookups').
	Ranges        int64            `json:"ranges,omitempty"`
	RangesRefused int64            `json:"ranges_refused,omitempty"`
	RangesBusy    int64            `json:"ranges_busy,omitempty"`
	RangeKeys     int64            `json:"range_keys,omitempty"`
	RangeLatency  *measure.Latency `json:"range_latency,omitempty"`
	// ByInstance (kafka-streams engine) counts the answers by the
	// instance that answered.
	ByInstance map[string]int64 `json:"by_instance,omitempty"`
	// MaxStaleBehind is, over the stale answers, the most records of the
	// fill between the value answered and the key's last write.
	MaxStaleBehind int64 `json:"max_stale_behind,omitempty"`
	// RestoredSeconds is when the last store was restored (readable
	// without stale reads); FirstAnsweredSeconds when the first lookup was
	// answered; ServedAgainSeconds when the first lookup after the last
	// refusal was answered: from then on, every lookup was. Nil when no
	// lookup was answered.
	RestoredSeconds      float64  `json:"restored_seconds"`
	FirstAnsweredSeconds *float64 `json:"first_answered_seconds,omitempty"`
	ServedAgainSeconds   *float64 `json:"served_again_seconds,omitempty"`
	// During and After are the answered lookups' latencies while a store
	// restored and once every store was restored (in a failover: from the
	// kill until the survivor took over, and after); Before, a failover's
	// only, those answered before the kill.
	During measure.Latency  `json:"during"`
	After  measure.Latency  `json:"after"`
	Before *measure.Latency `json:"before,omitempty"`
	// Series is the lookups second by second.
	Series []QuerySecond `json:"series"`
	// WrongReads describes up to ten wrong answers.
	WrongReads []string `json:"wrong_reads,omitempty"`
	// Outage (failover on kafka-streams) is what lookups of the killed
	// instance's keys met from the kill on; nil elsewhere.
	Outage *ReadOutage `json:"outage,omitempty"`
	// StandbyLag (kafka-streams, with a write load) is how far behind the
	// changelog's end the standby answers were; nil without one.
	StandbyLag *StandbyLag `json:"standby_lag,omitempty"`
}

// QuerySecond is one second of a query load: its lookups and what became
// of them.
type QuerySecond struct {
	T        int   `json:"t"`
	Lookups  int64 `json:"lookups"`
	Answered int64 `json:"answered"`
	Refused  int64 `json:"refused"`
	Stale    int64 `json:"stale"`
	Wrong    int64 `json:"wrong"`
	// ByInstance (kafka-streams engine) counts the second's answers by
	// the instance that gave them.
	ByInstance map[string]int64 `json:"by_instance,omitempty"`
}
