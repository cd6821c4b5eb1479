package engine

import "github.com/restorebench/restorebench/config"

// The versioned layout: one RocksDB of a latest-value store and logical
// history segments; a warm restart of it is not modelled (Kafka Streams
// reopens it without its history segments: config's versioned kind).
func init() { registerLayout(config.LayoutVersioned, layoutOps{loader: newVersionedLoader}) }

// newVersionedLoader opens a task's versioned store where Kafka Streams
// keeps it (RocksDBVersionedStore's one RocksDB instance:
// <task dir>/rocksdb/<store>), restored by put.
func newVersionedLoader(s loaderSpec, id TaskID) (Loader, error) {
	v, err := openVersionedStore(s.Case, storePath(s.AppDir, id, s.Store))
	if err != nil {
		return nil, err
	}
	return storeLoader{v}, nil
}
