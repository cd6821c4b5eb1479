package capacitytest

import (
	"fmt"
	"math"
	"time"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/runs"
)

// Shape is one changelog shape of a shape sweep: fixed-size values of
// ValueBytes behind 16-byte keys, RecordsPerKey records for each live key.
type Shape struct {
	ValueBytes    int
	RecordsPerKey int
	// HotShare is the share of its records whose key is among the
	// loadgen.HotKeyWindow of its partition before it, recorded in the
	// fills when the ShapeCost prices hot records (PerHot other than 0).
	HotShare float64
}

// ShapeSweep is the record sizes of the shapes profile: 8 B to 4 KiB values.
var ShapeSweep = []Shape{{ValueBytes: 8, RecordsPerKey: 1}, {ValueBytes: 64, RecordsPerKey: 1}, {ValueBytes: 512, RecordsPerKey: 1},
	{ValueBytes: 4096, RecordsPerKey: 1}, {ValueBytes: 64, RecordsPerKey: 20}}

// ShapeCost is a restore cost the synthetic shape runs follow: seconds =
// Fixed + PerRecord × records + PerByte × bytes + PerOverwrite × (records −
// live keys) (one partition, one thread); with PerHot other than 0, a shape's hot
// records (Shape.HotShare) cost PerHot instead of PerRecord and its fills
// record how many there are (without, they record none, as results
// written before hot records were counted).
type ShapeCost struct {
	Fixed, PerRecord, PerByte, PerOverwrite, PerHot float64
}

// ShapeRuns is one run per shape of the sweep, each with the Kafka Streams
// default case on engine at two changelog sizes (records and 2 × records)
// × 3 repeats, whose times follow cost with ±2% noise.
func ShapeRuns(engine config.Engine, cost ShapeCost, records int64, shapes []Shape) []*runs.Results {
	var out []*runs.Results
	for i, sh := range shapes {
		start := time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC).Add(time.Duration(i) * 10 * time.Minute)
		r := &runs.Results{
			SchemaVersion: runs.SchemaVersion, RunID: shapeRunID(start, sh),
			ToolVersion: "0.2.0-test", StartedAt: start, FinishedAt: start.Add(5 * time.Minute), Complete: true, Host: host(),
			Broker:  runs.Broker{Kind: "embedded", Bootstrap: []string{"127.0.0.1:9092"}, Version: "kfake v0.0.0-test"},
			Profile: &runs.ProfileInfo{Name: "shapes", Source: "builtin", Repeats: 3},
		}
		for k, n := range []int64{records, 2 * records} {
			fill := shapeFill(sh, n, start)
			perRecord := cost.PerRecord * float64(fill.Records)
			if cost.PerHot != 0 {
				hot := int64(sh.HotShare * float64(n))
				fill.HotRecords = &hot
				perRecord = cost.PerRecord*float64(n-hot) + cost.PerHot*float64(hot)
			}
			fill.Topic = fmt.Sprintf("rb-shape-%d-%d-%d-balances-changelog", sh.ValueBytes, sh.RecordsPerKey, k)
			if sh.HotShare > 0 {
				fill.Topic = fmt.Sprintf("rb-shape-%d-%d-hot%.0f-%d-balances-changelog", sh.ValueBytes, sh.RecordsPerKey, 100*sh.HotShare, k)
				fill.Spec.KeyOrder = loadgen.KeysZipf
			}
			r.Fills = append(r.Fills, fill)
			if r.Fill == nil {
				r.Fill = fill
			}
			for rep, noise := range []float64{1, 1.02, 0.98} {
				over := float64(fill.Records - fill.Expected[0].Keys)
				secs := (cost.Fixed + perRecord + cost.PerByte*float64(fill.Bytes) + cost.PerOverwrite*over) * noise
				rec := restore(Case{Name: "kstreams-default", Modify: func(c *config.Case) { c.Engine = engine }, Fixed: secs, Rate: math.Inf(1),
					Noise: []float64{1, 1, 1}},
					rep, fill, start)
				rec.Partitions = 1
				rec.SetSize(fmt.Sprintf("%dk", n/1000))
				r.Restores = append(r.Restores, rec)
			}
		}
		out = append(out, r)
	}
	return out
}

// shapeFill is a one-partition fill of n records of the shape.
func shapeFill(sh Shape, n int64, at time.Time) *runs.Fill {
	bytes := n * int64(16+sh.ValueBytes)
	keys := n / int64(sh.RecordsPerKey)
	f := &runs.Fill{
		Compression: "lz4", FilledAt: at,
		Spec: &loadgen.Spec{Seed: 1, Records: n, Keys: keys, ValueMin: sh.ValueBytes, ValueMax: sh.ValueBytes,
			KeyOrder: loadgen.KeysUniform, Partitions: 1},
		Records: n, Bytes: bytes, DurationSeconds: 1, MBPerSec: float64(bytes) / 1e6, RecordsPerSec: float64(n),
	}
	f.Offsets = []loadgen.PartitionOffsets{{Partition: 0, End: n}}
	f.Expected = []loadgen.PartitionState{{Partition: 0, Keys: keys, LiveBytes: keys * int64(16+sh.ValueBytes)}}
	return f
}

// shapeRunID names a shape's run: "20261102-100000-shape-64B-20pk", with
// "-45hot" for a shape of hot records.
func shapeRunID(start time.Time, sh Shape) string {
	id := fmt.Sprintf("%s-shape-%dB-%dpk", start.Format("20060102-150405"), sh.ValueBytes, sh.RecordsPerKey)
	if sh.HotShare > 0 {
		id += fmt.Sprintf("-%.0fhot", 100*sh.HotShare)
	}
	return id
}
