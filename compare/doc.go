// Package compare sets runs or cases side by side: per metric the medians
// of verified repeats, the change, and whether it exceeds the run-to-run
// spread; and renders comparisons as tables, Markdown or Go benchmark lines
// (reporters are func(io.Writer) error, composable as vegeta's are).
package compare
