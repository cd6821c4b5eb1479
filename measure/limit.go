package measure

import "time"

// Limit is one measured limit of the machine: how long moving a changelog's
// records took with one side of a restore alone (fetching, or writing), and
// the process CPU time it used.
type Limit struct {
	Duration time.Duration
	Records  int64
	Bytes    int64
	CPU      time.Duration
}
