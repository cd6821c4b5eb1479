package config

import "github.com/restorebench/restorebench/loadgen"

// StoreSession is Stores.persistentSessionStore (or
// Stores.inMemorySessionStore): segmented by session end, sessions past
// the retention dropped on restore.
const StoreSession = loadgen.KindSession

// LayoutSession is a session store's segments, by session end.
const LayoutSession StoreLayout = "session"

// A session store restores cold and restarts warm; its segments are laid
// out as a window store's (KeyValueSegments under both).
func init() {
	registerStoreKind(StoreKindDef{Kind: StoreSession, Layout: LayoutSession, Retention: true,
		Can: []KindCap{CapRestore, CapReopen},
		// Kafka Streams does not save stream time: a restarted session
		// store's is the largest session end it restores again. A
		// session changelog's ends are not in order across keys, so after
		// a short pause that largest end can lie below the fill's and the
		// store serves sessions the fill's expected state has expired (a
		// standby run on the model failed so, now and then). A failover
		// and a rolling restart reopen kept stores likewise: a survivor's
		// left from an earlier assignment (a warm takeover), a restarted
		// instance's.
		Refused: map[Scenario]string{
			ScenarioStandby:  sessionRefusal(),
			ScenarioFailover: sessionRefusal(),
			ScenarioRolling:  sessionRefusal(),
		},
		check: func(c Case) error {
			if err := c.checkSegmented(); err != nil {
				return err
			}
			return c.checkSessionSegments()
		},
		NoLookups:   "session fetches are not built yet",
		fillSpec:    segmentedFillSpec,
		driverProps: retentionProperties,
		fillProps:   windowSizeProperties,
		Figures:     KindFigures{Recorded: true, Uncounted: true, SegmentInterval: Case.SegmentIntervalOf, SegmentDirs: true},
		// A session store's changelog an application wrote restores as
		// one (a DSL session-windowed count or aggregate materializes a
		// plain session store); its driver store is built, as a window
		// store's, with a window size its restore never reads.
		Foreign: true, foreignProps: foreignWindowSize,
		ForeignRead: ForeignRead{Keys: KeysSession, Folds: "each session's last value, the sessions past the retention left out"}})
}

// sessionRefusal is why session stores do not run standbys, failovers
// and rolling restarts.
func sessionRefusal() string {
	return "a reopened session store's " +
		"stream time is the largest session end it restores again, which after a short pause (a " +
		"standby's, or in a failover or a rolling restart a store kept from an earlier assignment or a " +
		"restarted instance's) can lie below the fill's, a state the fill's expected state does not " +
		"describe yet"
}

// checkSessionSegments checks a session store's segment interval: the
// model engine takes any (one RocksDB per interval of session ends, as a
// sweep), but Kafka Streams builds a session store only through
// Stores.persistentSessionStore, whose RocksDbSessionBytesStoreSupplier
// fixes the interval at max(retention / 2, 60 s) (no constructor takes
// one, 3.9 through 4.4), and Stores.inMemorySessionStore has no segments.
func (c Case) checkSessionSegments() error {
	if c.SegmentInterval != 0 && c.Engine == EngineKafkaStreams {
		return fieldErr("segment_interval", "Kafka Streams' session stores take no segment interval "+
			"(RocksDbSessionBytesStoreSupplier uses max(retention / 2, 60 s)); leave it unset on the "+
			"kafka-streams engine")
	}
	return nil
}
