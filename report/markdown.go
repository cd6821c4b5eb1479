package report

import (
	"fmt"
	"io"
	"strings"
)

// NewMarkdownReporter renders d as GitHub-flavoured Markdown; figures are
// images linked by their file name (see FigureFile), written beside it.
func NewMarkdownReporter(d *Document) func(io.Writer) error {
	return func(w io.Writer) error {
		ew := &errWriter{w: w}
		fmt.Fprintf(ew, "# %s\n\n%s\n\n", d.Title, d.Subtitle)
		if len(d.Facts) > 0 {
			fmt.Fprint(ew, "## Summary\n\n")
			for _, f := range d.Facts {
				fmt.Fprintf(ew, "- **%s:** %s", f.Label, f.Value)
				if f.Detail != "" {
					fmt.Fprintf(ew, " — %s", f.Detail)
				}
				fmt.Fprintln(ew)
			}
			fmt.Fprintln(ew)
		}
		for _, s := range d.Sections {
			fmt.Fprintf(ew, "## %s\n\n", s.Title)
			for _, b := range s.Blocks {
				mdBlock(ew, b)
			}
		}
		return ew.err
	}
}

func mdBlock(w io.Writer, b Block) {
	switch b := b.(type) {
	case *Heading:
		fmt.Fprintf(w, "### %s\n\n", b.Text)
	case *Para:
		if b.Note {
			fmt.Fprintf(w, "*%s*\n\n", strings.TrimSpace(b.Text))
		} else {
			fmt.Fprintf(w, "%s\n\n", b.Text)
		}
	case *List:
		for _, it := range b.Items {
			fmt.Fprintf(w, "- %s\n", it)
		}
		fmt.Fprintln(w)
	case *Table:
		mdTable(w, b)
	case *Figure:
		fmt.Fprintf(w, "![%s](%s)\n\n", b.Title, FigureFile(b))
		if b.Caption != "" {
			fmt.Fprintf(w, "*%s*\n\n", b.Caption)
		}
	}
}

func mdTable(w io.Writer, t *Table) {
	if t.Caption != "" {
		fmt.Fprintf(w, "**%s**\n\n", t.Caption)
	}
	fmt.Fprintf(w, "| %s |\n|", strings.Join(mdCells(t.Head), " | "))
	for i := range t.Head {
		if i < len(t.Right) && t.Right[i] {
			fmt.Fprint(w, " ---: |")
		} else {
			fmt.Fprint(w, " --- |")
		}
	}
	fmt.Fprintln(w)
	for _, row := range t.Rows {
		fmt.Fprintf(w, "| %s |\n", strings.Join(mdCells(row), " | "))
	}
	fmt.Fprintln(w)
}

var mdCellReplacer = strings.NewReplacer("|", `\|`, "\n", "<br>")

func mdCells(cells []string) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = mdCellReplacer.Replace(c)
	}
	return out
}
