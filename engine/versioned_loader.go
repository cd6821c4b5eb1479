package engine

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
