// Package profiles reads, validates and expands benchmark profiles: YAML
// files that name a fill, the cases to run against it, and how many times to
// repeat each. The built-in profiles are embedded in the binary.
package profiles
