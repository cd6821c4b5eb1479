package report

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/restorebench/restorebench/internal/atomicfile"
)

// Files the report writes into its directory.
const (
	MarkdownFile = "report.md"
	HTMLFile     = "report.html"
)

// Write renders d into dir (created if missing): report.md, report.html and
// each figure as report-<name>.svg for the Markdown to show. Every file is
// written atomically. It returns the paths written, report.md first.
func Write(dir string, d *Document) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	var written []string
	put := func(name string, render func(io.Writer) error) error {
		var buf bytes.Buffer
		if err := render(&buf); err != nil {
			return err
		}
		path := filepath.Join(dir, name)
		if err := atomicfile.Write(path, buf.Bytes()); err != nil {
			return fmt.Errorf("report: %w", err)
		}
		written = append(written, path)
		return nil
	}
	if err := put(MarkdownFile, NewMarkdownReporter(d)); err != nil {
		return written, err
	}
	if err := put(HTMLFile, NewHTMLReporter(d)); err != nil {
		return written, err
	}
	for _, f := range d.Figures() {
		svg := svgSafe(f.SVG)
		if err := put(FigureFile(f), func(w io.Writer) error { _, err := w.Write(svg); return err }); err != nil {
			return written, err
		}
	}
	return written, nil
}
