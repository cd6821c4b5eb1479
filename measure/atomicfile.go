package measure

import "github.com/restorebench/restorebench/internal/atomicfile"

// WriteFileAtomic writes data to path through a temporary file in the same
// directory, synced and then renamed over path, so readers see either the old
// file or the whole new one, never a half-written one.
func WriteFileAtomic(path string, data []byte) error { return atomicfile.Write(path, data) }
