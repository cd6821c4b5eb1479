// Package boundedread reads input files (profiles, manifests, results) with
// a size limit and only from regular files, so a FIFO, a device or a huge
// file is an error that names it, not a hang or an out-of-memory crash.
package boundedread
