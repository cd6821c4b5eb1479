// Package extsort is an external sort of a changelog partition into the
// state it describes: records arrive in offset order and leave once per live
// key, in key order, the last write winning and tombstones removing keys. It
// bounds its memory and spills sorted runs to disk.
package extsort
