// Package atomicfile writes files so that readers never see half of one.
package atomicfile
