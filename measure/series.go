package measure

import (
	"sync"
	"sync/atomic"
	"time"
)

// Point is one second of a throughput time series: the records and bytes
// completed in the interval ending at T seconds after the start.
type Point struct {
	T       float64 `json:"t"`
	Records int64   `json:"records"`
	Bytes   int64   `json:"bytes"`
}

// Counter counts records and bytes from any goroutine and samples their
// per-interval deltas once a second into a series.
type Counter struct {
	records atomic.Int64
	bytes   atomic.Int64

	start    time.Time
	interval time.Duration
	stop     chan struct{}
	done     chan struct{}
	mu       sync.Mutex
	series   []Point
	lastR    int64
	lastB    int64
	lastT    time.Time
}

// Add counts n records of b bytes.
func (c *Counter) Add(n, b int64) {
	c.records.Add(n)
	c.bytes.Add(b)
}

// Totals returns the records and bytes counted until the call.
func (c *Counter) Totals() (records, bytes int64) { return c.records.Load(), c.bytes.Load() }

// Start begins sampling every interval (1 s in runs).
func (c *Counter) Start(interval time.Duration) {
	c.start = time.Now()
	c.interval = interval
	c.lastT = c.start
	c.stop = make(chan struct{})
	c.done = make(chan struct{})
	go func() {
		defer close(c.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				c.sample(time.Now())
			case <-c.stop:
				return
			}
		}
	}()
}

func (c *Counter) sample(now time.Time) {
	r, b := c.Totals()
	c.mu.Lock()
	defer c.mu.Unlock()
	if now.Sub(c.lastT) <= 0 {
		return
	}
	c.series = append(c.series, Point{T: now.Sub(c.start).Seconds(), Records: r - c.lastR, Bytes: b - c.lastB})
	c.lastR, c.lastB, c.lastT = r, b, now
}

// Stop ends sampling, records the final partial interval, and returns the
// series. A final interval shorter than a quarter of the sampling interval is
// merged into the one before it, so a few milliseconds of tail do not show as
// a spike in rate; totals are unchanged.
func (c *Counter) Stop() []Point {
	close(c.stop)
	<-c.done
	c.sample(time.Now())
	c.mu.Lock()
	defer c.mu.Unlock()
	if n := len(c.series); n >= 2 {
		last, prev := c.series[n-1], &c.series[n-2]
		if last.T-prev.T < c.interval.Seconds()/4 {
			prev.T, prev.Records, prev.Bytes = last.T, prev.Records+last.Records, prev.Bytes+last.Bytes
			c.series = c.series[:n-1]
		}
	}
	return c.series
}
