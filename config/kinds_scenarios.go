package config

import "strings"

// kindRunsScenario says whether a store kind beyond key-value runs
// scenario s so far: every kind restores cold; timestamped, window and
// session stores also restart warm (their kept stores reopened and
// restored from their committed offsets) and keep standbys (whose pause
// step restarts a kept store likewise), but for session ones; timestamped
// and window stores also fail over (on the kafka-streams engine, the kv
// topology over the fill in place of the ledger) and restart rolling (a
// window store's under a write load: checkRolling). Versioned stores run
// cold only, session stores no failover or rolling restart: see
// kindScenarioErr. Scale-outs take key-value stores only so far.
func kindRunsScenario(k StoreKind, s Scenario) bool {
	switch s {
	case ScenarioCold:
		return true
	case ScenarioWarm:
		return k != StoreVersionedKeyValue
	case ScenarioStandby:
		return k != StoreVersionedKeyValue && k != StoreSession
	case ScenarioFailover, ScenarioRolling:
		return k == StoreTimestampedKeyValue || k == StoreWindow
	}
	return false
}

// kindScenarioErr says why store kind k does not run scenario s.
func kindScenarioErr(k StoreKind, s Scenario) error {
	if k == StoreVersionedKeyValue && (s == ScenarioWarm || s == ScenarioStandby || s == ScenarioFailover) {
		// Read in Kafka Streams 4.4: LogicalKeyValueSegments.openExisting
		// opens the physical RocksDB but registers none of its segments,
		// and reads (RocksDBVersionedStore.get) search only registered
		// ones, so after a restart the history in segments no restored
		// record touches again is not served.
		return fieldErr("store_kind", "%s stores run scenario cold only so far, not %s: Kafka Streams reopens a versioned store without its history segments (LogicalKeyValueSegments.openExisting registers none), so a restarted store serves only the history its restore touches again, a state the fill's expected state does not describe yet", k, s)
	}
	if k == StoreSession && (s == ScenarioStandby || s == ScenarioFailover || s == ScenarioRolling) {
		// Kafka Streams does not save stream time: a restarted session
		// store's is the largest session end it restores again. A
		// session changelog's ends are not in order across keys, so after
		// a short pause that largest end can lie below the fill's and the
		// store serves sessions the fill's expected state has expired (a
		// standby run on the model failed so, now and then). A failover
		// and a rolling restart reopen kept stores likewise: a survivor's
		// left from an earlier assignment (a warm takeover), a restarted
		// instance's.
		return fieldErr("store_kind", "session stores run scenarios cold and warm only so far, not %s: a reopened session store's stream time is the largest session end it restores again, which after a short pause (a standby's, or in a failover or a rolling restart a store kept from an earlier assignment or a restarted instance's) can lie below the fill's, a state the fill's expected state does not describe yet", s)
	}
	return fieldErr("store_kind", "%s stores run scenarios %s only so far, not %s", k, kindScenarios(k), s)
}

// kindScenarios lists the scenarios store kind k runs, e.g. "cold, warm
// and standby".
func kindScenarios(k StoreKind) string {
	var names []string
	for _, s := range []Scenario{ScenarioCold, ScenarioWarm, ScenarioStandby, ScenarioFailover, ScenarioRolling} {
		if kindRunsScenario(k, s) {
			names = append(names, string(s))
		}
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
