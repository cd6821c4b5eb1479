// Package plots draws the charts of a restorebench run from its results.
//
// There is one function per chart, results in, image out: each takes a
// *runs.Results (as loaded from a results.json) and returns a gonum
// *plot.Plot built from that alone, so old runs can be re-plotted at any time.
// The charts of the planner's analysis across runs (analysis.go: time to
// ready against size, throughput per size, size within a recovery time)
// take a *capacity.Analysis instead; the report draws them, WriteAll not.
// The package never measures anything, never talks to Kafka or RocksDB, and
// never changes the results it is given.
//
// The charts are those of the registry (Charts, registry.go), each
// registered once from the file that draws it (registerChart in its init:
// its order, name, file name, draw function, the scenario it belongs to or
// none for a general chart, and the report's title and caption); each draw
// function's comment says what it shows. This comment does not list them,
// so that it cannot fall behind the registry: Charts() at run time, and the
// registerChart calls in the source, do.
//
// Legends sit in a column right of the data area, never over the lines; long
// names are shortened in the middle ("…"), never the " #repeat (UNVERIFIED)"
// part.
//
// WriteAll walks the registry, and so does the report, which shows each
// scenario's charts in its section. A new scenario's charts are one file
// here, drawing and registering them; or none, when its record declares
// the figure it is read by (runs.DeclaredFigure): then Charts adds its
// default chart, the figure's median per case (figure.go).
//
// WriteAll writes every chart there is data for as PNG and SVG into a
// directory, 8×4.5 in (PNG at 96 dpi: 768×432 px). The restore charts need
// at least one restore: for results without any, they return ErrNoRestores
// and WriteAll skips those charts (without error) and writes the rest; it
// likewise skips a chart that returns ErrNotASweep, ErrNotApplicable or no
// plot (nil, nil) for results without data for it.
package plots
