// Package measure holds the instruments a run measures with: latency
// histograms, 1-second throughput series, process CPU and memory, and the
// shapes of the figures they produce (Latency, Point, StoreStats).
package measure
