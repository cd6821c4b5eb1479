package measure

import (
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Latency summarises a latency distribution in milliseconds.
type Latency struct {
	Count  int64   `json:"count"`
	MeanMs float64 `json:"mean_ms"`
	P50Ms  float64 `json:"p50_ms"`
	P99Ms  float64 `json:"p99_ms"`
	P999Ms float64 `json:"p999_ms"`
	MaxMs  float64 `json:"max_ms"`
}

// Histogram records durations from 1µs to 10 minutes at 3 significant
// digits. It is safe for concurrent use.
type Histogram struct {
	mu sync.Mutex
	h  *hdrhistogram.Histogram
}

// NewHistogram returns an empty histogram.
func NewHistogram() *Histogram {
	return &Histogram{h: hdrhistogram.New(1, int64(10*time.Minute/time.Microsecond), 3)}
}

// Record adds one duration; values beyond the range are clamped to it.
func (h *Histogram) Record(d time.Duration) {
	us := d.Microseconds()
	if us < 1 {
		us = 1
	}
	h.mu.Lock()
	if err := h.h.RecordValue(us); err != nil {
		_ = h.h.RecordValue(h.h.HighestTrackableValue())
	}
	h.mu.Unlock()
}

// Merge adds all of other's values into h.
func (h *Histogram) Merge(other *Histogram) {
	other.mu.Lock()
	snap := other.h.Export()
	other.mu.Unlock()
	h.mu.Lock()
	h.h.Merge(hdrhistogram.Import(snap))
	h.mu.Unlock()
}

// Summary returns the distribution's count, mean and percentiles.
func (h *Histogram) Summary() Latency {
	h.mu.Lock()
	defer h.mu.Unlock()
	ms := func(us int64) float64 { return float64(us) / 1000 }
	if h.h.TotalCount() == 0 {
		return Latency{}
	}
	return Latency{
		Count:  h.h.TotalCount(),
		MeanMs: h.h.Mean() / 1000,
		P50Ms:  ms(h.h.ValueAtQuantile(50)),
		P99Ms:  ms(h.h.ValueAtQuantile(99)),
		P999Ms: ms(h.h.ValueAtQuantile(99.9)),
		MaxMs:  ms(h.h.Max()),
	}
}
