// Package plots draws the charts of a restorebench run from its results.
//
// There is one function per chart, results in, image out: each takes a
// *runs.Results (as loaded from a results.json) and returns a gonum
// *plot.Plot built from that alone, so old runs can be re-plotted at any time.
// The package never measures anything, never talks to Kafka or RocksDB, and
// never changes the results it is given.
//
// Charts:
//
//   - RestoreThroughput: MB/s (10^6 bytes) over seconds since restore start,
//     one step line per restore, labelled "case #repeat"; restores that were not
//     verified (or failed) carry " (UNVERIFIED)" in the legend.
//   - RestoreTimePerCase: median restore duration per case over its verified,
//     error-free repeats (runs.Summarize), with min–max error bars when a
//     case has more than one such repeat; a case with none is a zero bar
//     labelled " (unverified)". Case names that do not fit under their bar
//     are wrapped after '-', '_', '.', '/' or ' ', or failing that rotated
//     and shortened in the middle.
//   - RestoreTimeByBatch: median restore duration (the restore phase,
//     DurationSeconds) over verified, error-free repeats against records per
//     batch (Params.BatchRecords, log scale, ticks "100", "1000", …), one line
//     with markers per group of cases whose params differ only in batch size;
//     min–max error bars where a point has more than one such repeat. Lines of
//     one strategy share a colour and differ in dash and marker; each is
//     labelled by its strategy plus the settings in which it differs from the
//     most common ones ("put", "put (level)"). Results in which no line has
//     two batch sizes give ErrNotASweep.
//   - RestorePhases: per case, stacked bars of the median load, finish (bulk's
//     compaction, ingest's sort and ingestion) and ready (settle and read
//     probe) seconds over the verified, error-free repeats, with the median
//     total seconds above each bar; cases with none are zero bars labelled as
//     in RestoreTimePerCase, whose case-name layout it shares.
//   - FillThroughput: the fill's MB/s over seconds since fill start; (nil, nil)
//     when the results carry no fill series.
//
// Legends sit in a column right of the data area, never over the lines; long
// names are shortened in the middle ("…"), never the " #repeat (UNVERIFIED)"
// part.
//
// Every chart is registered once in Charts, from the file that draws it
// (registerChart in its init: its order, name, file name, draw function,
// the scenario it belongs to or none for a general chart, and the
// report's title and caption): WriteAll walks it, and so does the report,
// which shows each scenario's charts in its section. A new scenario's
// charts are one file here, drawing and registering them.
//
// WriteAll writes every chart there is data for as PNG and SVG into a
// directory, 8×4.5 in (PNG at 96 dpi: 768×432 px). The restore charts need
// at least one restore: for results without any, they return ErrNoRestores
// and WriteAll skips those charts (without error) and writes the rest; it
// likewise skips RestoreTimeByBatch on ErrNotASweep.
package plots
