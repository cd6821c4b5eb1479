package report

import (
	"bytes"
	"fmt"
	"html"
	"io"
	"regexp"
	"strings"

	"github.com/restorebench/restorebench/internal/errwriter"
	"github.com/restorebench/restorebench/internal/termsafe"
)

// NewHTMLReporter renders d as one self-contained HTML page: styles inline,
// charts as inline SVG, no scripts, and a Content-Security-Policy that
// forbids loading anything, so the page reads the same offline, attached to
// a ticket or printed.
func NewHTMLReporter(d *Document) func(io.Writer) error {
	return func(w io.Writer) error {
		ew := errwriter.New(w)
		fmt.Fprintf(ew, htmlHead, html.EscapeString(termsafe.String(d.Title)), css)
		fmt.Fprintf(ew, "<header>\n<h1>%s</h1>\n<p class=\"subtitle\">%s</p>\n</header>\n", inline(d.Title), inline(d.Subtitle))
		htmlFacts(ew, d.Facts)
		htmlTOC(ew, d.Sections)
		for _, s := range d.Sections {
			fmt.Fprintf(ew, "<section id=\"%s\">\n<h2>%s</h2>\n", html.EscapeString(s.ID), inline(s.Title))
			for _, b := range s.Blocks {
				htmlBlock(ew, b)
			}
			fmt.Fprintln(ew, "</section>")
		}
		fmt.Fprint(ew, "</main>\n</body>\n</html>\n")
		return ew.Err()
	}
}

const htmlHead = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>%s</title>
<style>%s</style>
</head>
<body>
<main>
`

func htmlFacts(w io.Writer, facts []Fact) {
	if len(facts) == 0 {
		return
	}
	fmt.Fprintln(w, `<section id="summary" class="summary">`+"\n<h2>Summary</h2>\n<div class=\"facts\">")
	for _, f := range facts {
		class := "fact"
		if f.Warn {
			class += " warn"
		}
		fmt.Fprintf(w, "<div class=\"%s\"><div class=\"label\">%s</div><div class=\"value\">%s</div>", class, inline(f.Label), inline(f.Value))
		if f.Detail != "" {
			fmt.Fprintf(w, "<div class=\"detail\">%s</div>", inline(f.Detail))
		}
		fmt.Fprintln(w, "</div>")
	}
	fmt.Fprintln(w, "</div>\n</section>")
}

func htmlTOC(w io.Writer, sections []Section) {
	fmt.Fprint(w, "<nav class=\"toc\"><span>Contents</span>")
	for _, s := range sections {
		fmt.Fprintf(w, " <a href=\"#%s\">%s</a>", html.EscapeString(s.ID), inline(s.Title))
	}
	fmt.Fprintln(w, "</nav>")
}

func htmlBlock(w io.Writer, b Block) {
	switch b := b.(type) {
	case *Heading:
		fmt.Fprintf(w, "<h3>%s</h3>\n", inline(b.Text))
	case *Para:
		class := ""
		if b.Note {
			class = ` class="note"`
		}
		fmt.Fprintf(w, "<p%s>%s</p>\n", class, inline(b.Text))
	case *List:
		fmt.Fprintln(w, "<ul>")
		for _, it := range b.Items {
			fmt.Fprintf(w, "<li>%s</li>\n", inline(it))
		}
		fmt.Fprintln(w, "</ul>")
	case *Table:
		htmlTable(w, b)
	case *Figure:
		fmt.Fprintf(w, "<figure class=\"chart\" data-chart=\"%s\">\n%s\n", html.EscapeString(b.Name), inlineSVG(b.SVG, b.Title))
		if b.Caption != "" {
			fmt.Fprintf(w, "<figcaption>%s</figcaption>\n", inline(b.Caption))
		}
		fmt.Fprintln(w, "</figure>")
	}
}

func htmlTable(w io.Writer, t *Table) {
	fmt.Fprintln(w, `<div class="table-wrap"><table>`)
	if t.Caption != "" {
		fmt.Fprintf(w, "<caption>%s</caption>\n", inline(t.Caption))
	}
	cell := func(tag string, i int, s string) {
		if i < len(t.Right) && t.Right[i] {
			fmt.Fprintf(w, "<%s class=\"num\">%s</%s>", tag, inline(s), tag)
			return
		}
		fmt.Fprintf(w, "<%s>%s</%s>", tag, inline(s), tag)
	}
	fmt.Fprint(w, "<thead><tr>")
	for i, h := range t.Head {
		cell("th", i, h)
	}
	fmt.Fprintln(w, "</tr></thead>\n<tbody>")
	for _, row := range t.Rows {
		fmt.Fprint(w, "<tr>")
		for i, c := range row {
			cell("td", i, c)
		}
		fmt.Fprintln(w, "</tr>")
	}
	fmt.Fprintln(w, "</tbody></table></div>")
	if t.Legend != "" {
		fmt.Fprintf(w, "<p class=\"note legend\">%s</p>\n", inline(t.Legend))
	}
}

var (
	codeSpan = regexp.MustCompile("`([^`]+)`")
	boldSpan = regexp.MustCompile(`\*\*([^*]+)\*\*`)
)

// inline escapes s (control characters shown as \x1b, as termsafe does)
// and turns `code` and **bold** into their elements;
// line breaks become <br>.
func inline(s string) string {
	s = html.EscapeString(termsafe.Lines(s))
	s = codeSpan.ReplaceAllString(s, "<code>$1</code>")
	s = boldSpan.ReplaceAllString(s, "<strong>$1</strong>")
	return strings.ReplaceAll(s, "\n", "<br>")
}

var svgSize = regexp.MustCompile(`\s(width|height)="[^"]*"`)

// inlineSVG prepares a gonum SVG for embedding: the XML prologue and
// comments dropped, fixed width and height removed (the viewBox stays, so
// CSS scales it), and labelled for screen readers.
func inlineSVG(svg []byte, title string) string {
	svg = svgSafe(svg)
	i := bytes.Index(svg, []byte("<svg"))
	if i < 0 {
		return ""
	}
	svg = svg[i:]
	end := bytes.IndexByte(svg, '>')
	tag := svgSize.ReplaceAll(svg[:end], nil)
	return fmt.Sprintf("%s role=\"img\" aria-label=\"%s\"%s", tag, html.EscapeString(termsafe.String(title)), svg[end:])
}

// svgSafe shows the control characters a chart's labels took from a
// results file (a case name) escaped, as termsafe does: XML 1.0 forbids
// them, and an escape sequence has no business in a page or a file.
func svgSafe(svg []byte) []byte {
	s := string(svg)
	if t := termsafe.Lines(s); t != s {
		return []byte(t)
	}
	return svg
}
