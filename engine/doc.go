// Package engine is the model engine: a Go model of how a Kafka Streams
// instance restores its state stores from their changelogs (franz-go's
// consumer and RocksDB through grocksdb), with strategies Kafka Streams
// lacks, the machine's limits, and the check of restored stores against the
// expected state.
//
// Its vocabulary is Kafka Streams': a task (sub-topology, partition) owns a
// store and restores it from its changelog partition between two offsets; an
// instance (a Kafka Streams client, with stream threads and a state
// directory) is assigned tasks and restores them. A cold restore is an
// instance with an empty state directory assigned every task from the log
// start.
//
// A store kind restores into its layout's store (config.StoreKindDef.Layout):
// each layout's is registered once from the file implementing it
// (registerLayout: how a restore opens it and a warm restart reopens it;
// the key-value one in loader.go, window.go, session.go,
// versioned_loader.go); the loader and the warm restart look the layout
// up rather than switch on it, and TestEveryKindsLayoutHasTheModelsStore
// fails while a kind's layout has none. A kind of an existing layout
// needs nothing here; a new layout is its store and its registration.
package engine
