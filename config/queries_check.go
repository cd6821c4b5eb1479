package config

// CheckQueryLoad validates a query load on its own, by the rules a
// profile's queries: follow (checkQueries) for a kafka-streams cold case:
// an agent is handed the load without its case, and checks it before it
// builds a key draw or a lookup rate from it.
func CheckQueryLoad(q QueryLoad) error {
	c := Case{Scenario: ScenarioCold, Engine: EngineKafkaStreams, StoreKind: StoreKeyValue, Queries: &q}
	return c.checkQueries()
}
