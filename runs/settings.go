package runs

import (
	"reflect"

	"github.com/restorebench/restorebench/config"
)

// withDefaults fills the settings a record of an older file leaves at zero
// (it was written before they existed) with the defaults it ran with, so
// an old and a new restore of the same settings compare equal in every
// reader. Top-level numbers and strings at zero take the default (none of
// them has zero as a valid setting; settings added to config.Case later
// are covered too), empty lists and maps count as absent, and the RocksDB
// options older files left at zero are named one by one
// (bloom_bits_per_key 0 is a real setting).
func withDefaults(c config.Case) config.Case {
	d := config.DefaultCase()
	cv, dv := reflect.ValueOf(&c).Elem(), reflect.ValueOf(d)
	for i := range cv.NumField() {
		f := cv.Field(i)
		switch f.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
			reflect.Float32, reflect.Float64, reflect.String:
			if f.IsZero() && cv.Type().Field(i).Name != "Name" {
				f.Set(dv.Field(i))
			}
		case reflect.Slice, reflect.Map:
			if f.Len() == 0 {
				f.Set(reflect.Zero(f.Type()))
			}
		}
	}
	r, dr := &c.RocksDB, d.RocksDB
	if r.Level0FileNumCompactionTrigger == 0 {
		r.Level0FileNumCompactionTrigger = dr.Level0FileNumCompactionTrigger
	}
	if r.Level0SlowdownWritesTrigger == 0 {
		r.Level0SlowdownWritesTrigger = dr.Level0SlowdownWritesTrigger
	}
	if r.Level0StopWritesTrigger == 0 {
		r.Level0StopWritesTrigger = dr.Level0StopWritesTrigger
	}
	if r.MaxBackgroundJobs == 0 {
		r.MaxBackgroundJobs = r.Parallelism
	}
	return c
}
