package config

// ScenarioCold is a cold restore: an instance with an empty state
// directory is assigned every task and restores it from the changelog.
const ScenarioCold Scenario = "cold"

func init() { registerScenario(coldDef) }

// coldDef registers the cold scenario: both engines, any strategy, every
// size of a sweep, a transactional fill too, any topic on the kafka-streams
// engine (fill.topic: restored as a KTable's source-topic changelog), no
// settings of its own (the case's common settings are its settings).
var coldDef = ScenarioDef{
	Queries:              true,
	Name:                 ScenarioCold,
	KindNeeds:            []KindCap{CapRestore},
	Order:                10,
	Engines:              []Engine{EngineModel, EngineKafkaStreams},
	EverySize:            true,
	TransactionalFill:    true,
	KafkaStreamsAnyTopic: true,
	Roles:                []string{RoleActive},
	RoleOf:               activeFirst,
	OnAgents:             true,
	SingleInstance:       true,
	ModelOnAgents:        true,
}
