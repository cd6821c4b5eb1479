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
	case ScenarioWarm, ScenarioStandby:
		return k != StoreVersionedKeyValue
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
	return fieldErr("store_kind", "%s stores run scenarios cold, warm and standby only so far, not %s", k, s)
}
