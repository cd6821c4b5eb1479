package config

// kindRunsScenario says whether a store kind beyond key-value runs
// scenario s so far: every kind restores cold; timestamped, window and
// session stores also restart warm (their kept stores reopened and
// restored from their committed offsets) and keep standbys (whose pause
// step restarts a kept store likewise). Versioned stores do neither: see
// kindScenarioErr.
func kindRunsScenario(k StoreKind, s Scenario) bool {
	switch s {
	case ScenarioCold:
		return true
	case ScenarioWarm:
		return k != StoreVersionedKeyValue
	case ScenarioStandby:
		return k != StoreVersionedKeyValue && k != StoreSession
	}
	return false
}

// kindScenarioErr says why store kind k does not run scenario s.
func kindScenarioErr(k StoreKind, s Scenario) error {
	if k == StoreVersionedKeyValue && (s == ScenarioWarm || s == ScenarioStandby) {
		// Read in Kafka Streams 4.4: LogicalKeyValueSegments.openExisting
		// opens the physical RocksDB but registers none of its segments,
		// and reads (RocksDBVersionedStore.get) search only registered
		// ones, so after a restart the history in segments no restored
		// record touches again is not served.
		return fieldErr("store_kind", "%s stores run scenario cold only so far, not %s: Kafka Streams reopens a versioned store without its history segments (LogicalKeyValueSegments.openExisting registers none), so a restarted store serves only the history its restore touches again, a state the fill's expected state does not describe yet", k, s)
	}
	if k == StoreSession && s == ScenarioStandby {
		// Kafka Streams does not save stream time: a restarted session
		// store's is the largest session end it restores again. A
		// session changelog's ends are not in order across keys, so after
		// a short pause that largest end can lie below the fill's and the
		// store serves sessions the fill's expected state has expired (a
		// standby run on the model failed so, now and then).
		return fieldErr("store_kind", "session stores run scenarios cold and warm only so far, not standby: a restarted session store's stream time is the largest session end it restores again, which after a standby's short pause can lie below the fill's, a state the fill's expected state does not describe yet")
	}
	return fieldErr("store_kind", "%s stores run scenarios cold, warm and standby only so far, not %s", k, s)
}
