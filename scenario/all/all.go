// Package all links every scenario runner into the program that imports
// it. The runners of package scenario register from its own files' inits;
// a scenario with a package of its own (scenario/failover) registers from
// that package's init, which runs only when something imports it, and
// package scenario cannot import it (it imports scenario). Whatever calls
// scenario.For (bench) imports all, blank, so that the runner table holds
// every scenario; a new scenario package is one more import here, and
// scenario's registry test, which imports all, fails while one is missing.
package all

import (
	// The failover scenario on the kafka-streams engine.
	_ "github.com/restorebench/restorebench/scenario/failover"
)
