// Package config owns every setting of a benchmark once: the fill a changelog
// holds, and the case a restore runs with (engine, scenario, strategy,
// consumer settings, RocksDB options and presets, Kafka Streams properties),
// with their defaults and one validation that names the field at fault.
//
// Each scenario is one descriptor (ScenarioDef), defined with its settings
// in its own file (scenario_<name>.go) and registered from that file's
// init; what walks scenarios walks the registry (scenarios.go). Each store
// kind likewise (StoreKindDef, storekind_<name>.go, storekinds.go).
//
// Profiles (YAML) and command-line flags both build these types, the engines
// consume them, and results.json records them. The package links no cgo, so
// reading a profile never loads RocksDB.
package config
