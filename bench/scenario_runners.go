package bench

// The runners of the scenarios with a package of their own (failover)
// register from that package's init: scenario/all links each in, so that
// scenario.For, which run.go calls, finds every scenario.
import _ "github.com/restorebench/restorebench/scenario/all"
