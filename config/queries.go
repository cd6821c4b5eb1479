package config

import "time"

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
}

// DefaultQueryLoad returns the defaults documented on QueryLoad's fields.
func DefaultQueryLoad() *QueryLoad {
	return &QueryLoad{Rate: 1000, After: Duration(5 * time.Second), Retry: Duration(2 * time.Second)}
}

// MaxQueryRetry bounds QueryLoad.Retry below the client's 5 s a lookup.
const MaxQueryRetry = 4 * time.Second

// MaxQueryRate bounds QueryLoad.Rate: one client goroutine sends them.
const MaxQueryRate = 200_000

// checkQueries validates the case's query load: bounded, and on what runs
// queries so far: key-value stores' cold restores and warm restarts, on
// both engines (on kafka-streams through the driver's API layer), and
// failovers (kafka-streams only; the failover then runs the kv topology
// over the fill instead of the ledger, whose values lookups cannot judge).
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
	case c.Scenario != ScenarioCold && c.Scenario != ScenarioWarm && c.Scenario != ScenarioFailover:
		return fieldErr("queries", "queries run beside scenarios cold, warm and failover only so far, not %s", c.Scenario)
	case c.StoreKind == StoreVersionedKeyValue:
		return fieldErr("queries", "key lookups read key-value stores; versioned lookups are not built yet")
	case c.StoreKind.Segmented():
		return fieldErr("queries", "key lookups read key-value stores; %s fetches are not built yet", c.StoreKind)
	}
	return nil
}
