package failover

import (
	"fmt"

	"github.com/restorebench/restorebench/config"
)

// A failover case of a store kind beyond key-value (timestamped-key-value
// or window; config says which kinds run it) runs the kv topology over
// the profile's fill of that kind, as a case with a query load does
// (failover_kv.go): the ledger keeps plain key-value balances only. The
// write load continues the fill's generator through the input topic
// (loadgen.ProduceInputAt: a window store's records under their record
// key, in the windows of their event times), Kafka Streams puts each into
// the case's kind of store (the driver's WindowPut, TimestampedPut), and
// after the last kill the survivor's stores are digested as the kind's
// and verified against the expected state of the fill plus the load's
// records, whose windows expire as their event times move stream time
// on. Each kill records what a key-value one does (per task gaps,
// detection, takeover) and the store kind (runs.FailoverRecord.StoreKind).

// storeKind is the kind of store the failover's instances run: the case's
// over the fill, key-value for the ledger's balances.
func (r *failoverRun) storeKind() config.StoreKind {
	if r.kv == nil {
		return config.StoreKeyValue
	}
	return r.req.Case.StoreKind
}

// kvLoadText describes a kv failover's load for the progress line.
func (r *failoverRun) kvLoadText() string {
	s := fmt.Sprintf("the kv topology over %s (%s stores), %.0f records/s written", r.changelog, r.storeKind(), r.set.Rate)
	if q := r.req.Case.Queries; q != nil {
		s += fmt.Sprintf(", lookups at %.0f/s from each kill's wait on", q.Rate)
	}
	return s
}
