package config

// checkSessionSegments checks a session store's segment interval: the
// model engine takes any (one RocksDB per interval of session ends, as a
// sweep), but Kafka Streams builds a session store only through
// Stores.persistentSessionStore, whose RocksDbSessionBytesStoreSupplier
// fixes the interval at max(retention / 2, 60 s) (no constructor takes
// one, 3.9 through 4.4), and Stores.inMemorySessionStore has no segments.
func (c Case) checkSessionSegments() error {
	if c.SegmentInterval != 0 && c.Engine == EngineKafkaStreams {
		return fieldErr("segment_interval", "Kafka Streams' session stores take no segment interval (RocksDbSessionBytesStoreSupplier uses max(retention / 2, 60 s)); leave it unset on the kafka-streams engine")
	}
	return nil
}
