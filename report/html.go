package report

import (
	"bytes"
	"html/template"
	"io"
	"regexp"
	"sort"
	"strings"

	"github.com/restorebench/restorebench/internal/termsafe"
)

// NewHTMLReporter renders d as one self-contained HTML page: styles inline,
// charts as inline SVG, no scripts, and a Content-Security-Policy that
// forbids loading anything, so the page reads the same offline, attached to
// a ticket or printed. The page is html/template's (page.html.tmpl): every
// text of d is escaped by the template, none by hand.
func NewHTMLReporter(d *Document) func(io.Writer) error {
	return func(w io.Writer) error { return pageTemplate.Execute(w, newPageView(d)) }
}

// pageView is what the page template reads of a Document: its texts cut
// into inline markup, its blocks tagged by kind, and the CSS.
type pageView struct {
	// Title is the <title>: plain text, control characters shown escaped.
	Title        string
	Heading, Sub []inlineNode
	Facts        []factView
	Sections     []sectionView
	CSS          template.CSS
}

type factView struct {
	Label, Value, Detail []inlineNode
	Warn                 bool
}

type sectionView struct {
	ID     string
	Title  []inlineNode
	Blocks []blockView
}

// blockView is one block; exactly one of its pointers is set.
type blockView struct {
	Heading, Para []inlineNode
	Note          bool
	List          [][]inlineNode
	Table         *tableView
	Figure        *figureView
}

type tableView struct {
	Caption, Legend []inlineNode
	Head            []cellView
	Rows            [][]cellView
}

// cellView is one table cell; Num aligns it right (a number).
type cellView struct {
	Text []inlineNode
	Num  bool
}

type figureView struct {
	Name    string
	Label   string
	Caption []inlineNode
	// SVGTag is the chart's opening <svg tag without its closing '>'
	// (the template adds the role and escaped aria-label), SVGRest the
	// rest of the chart; both are gonum's SVG, made safe by svgSafe.
	SVGTag, SVGRest template.HTML
}

func newPageView(d *Document) pageView {
	v := pageView{Title: termsafe.String(d.Title), Heading: inline(d.Title), Sub: inline(d.Subtitle), CSS: template.CSS(css)}
	for _, f := range d.Facts {
		v.Facts = append(v.Facts, factView{Label: inline(f.Label), Value: inline(f.Value), Detail: inline(f.Detail), Warn: f.Warn})
	}
	for _, s := range d.Sections {
		sv := sectionView{ID: s.ID, Title: inline(s.Title)}
		for _, b := range s.Blocks {
			sv.Blocks = append(sv.Blocks, newBlockView(b))
		}
		v.Sections = append(v.Sections, sv)
	}
	return v
}

func newBlockView(b Block) blockView {
	switch b := b.(type) {
	case *Heading:
		return blockView{Heading: inline(b.Text)}
	case *Para:
		return blockView{Para: inline(b.Text), Note: b.Note}
	case *List:
		items := make([][]inlineNode, len(b.Items))
		for i, it := range b.Items {
			items[i] = inline(it)
		}
		return blockView{List: items}
	case *Table:
		return blockView{Table: newTableView(b)}
	case *Figure:
		tag, rest := inlineSVG(b.SVG)
		return blockView{Figure: &figureView{Name: b.Name, Label: termsafe.String(b.Title), Caption: inline(b.Caption), SVGTag: tag, SVGRest: rest}}
	}
	return blockView{}
}

func newTableView(t *Table) *tableView {
	cells := func(row []string) []cellView {
		out := make([]cellView, len(row))
		for i, s := range row {
			out[i] = cellView{Text: inline(s), Num: i < len(t.Right) && t.Right[i]}
		}
		return out
	}
	v := &tableView{Caption: inline(t.Caption), Legend: inline(t.Legend), Head: cells(t.Head)}
	for _, r := range t.Rows {
		v.Rows = append(v.Rows, cells(r))
	}
	return v
}

// pageTemplate is the page; "inline" renders a text's inline markup.
var pageTemplate = template.Must(template.New("page").Parse(pageHTML))

const pageHTML = `{{define "inline"}}{{range .}}{{if .Break}}<br>{{else if eq .Tag "code"}}<code>{{template "inline" .Kids}}</code>` +
	`{{else if eq .Tag "strong"}}<strong>{{template "inline" .Kids}}</strong>{{else}}{{.Text}}{{end}}{{end}}{{end}}` +
	`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>{{.Title}}</title>
<style>{{.CSS}}</style>
</head>
<body>
<main>
<header>
<h1>{{template "inline" .Heading}}</h1>
<p class="subtitle">{{template "inline" .Sub}}</p>
</header>
{{if .Facts}}<section id="summary" class="summary">
<h2>Summary</h2>
<div class="facts">
{{range .Facts}}<div class="fact{{if .Warn}} warn{{end}}"><div class="label">{{template "inline" .Label}}</div>` +
	`<div class="value">{{template "inline" .Value}}</div>{{if .Detail}}<div class="detail">{{template "inline" .Detail}}</div>{{end}}</div>
{{end}}</div>
</section>
{{end}}<nav class="toc"><span>Contents</span>{{range .Sections}} <a href="#{{.ID}}">{{template "inline" .Title}}</a>{{end}}</nav>
{{range .Sections}}<section id="{{.ID}}">
<h2>{{template "inline" .Title}}</h2>
{{range .Blocks}}{{template "block" .}}{{end}}</section>
{{end}}</main>
</body>
</html>
` + `{{define "block"}}{{if .Heading}}<h3>{{template "inline" .Heading}}</h3>
{{else if .List}}<ul>
{{range .List}}<li>{{template "inline" .}}</li>
{{end}}</ul>
{{else if .Table}}{{template "table" .Table}}{{else if .Figure}}{{template "figure" .Figure}}` +
	`{{else}}<p{{if .Note}} class="note"{{end}}>{{template "inline" .Para}}</p>
{{end}}{{end}}` +
	`{{define "table"}}<div class="table-wrap"><table>
{{if .Caption}}<caption>{{template "inline" .Caption}}</caption>
{{end}}<thead><tr>{{range .Head}}<th{{if .Num}} class="num"{{end}}>{{template "inline" .Text}}</th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr>{{range .}}<td{{if .Num}} class="num"{{end}}>{{template "inline" .Text}}</td>{{end}}</tr>
{{end}}</tbody></table></div>
{{if .Legend}}<p class="note legend">{{template "inline" .Legend}}</p>
{{end}}{{end}}` +
	`{{define "figure"}}<figure class="chart" data-chart="{{.Name}}">
{{if .SVGTag}}{{.SVGTag}} role="img" aria-label="{{.Label}}"{{.SVGRest}}{{end}}
{{if .Caption}}<figcaption>{{template "inline" .Caption}}</figcaption>
{{end}}</figure>
{{end}}`

// inlineNode is a piece of a text's inline markup: plain Text, a line
// Break, or a "code" or "strong" Tag around Kids.
type inlineNode struct {
	Text  string
	Break bool
	Tag   string
	Kids  []inlineNode
}

var (
	codeSpan = regexp.MustCompile("`([^`]+)`")
	boldSpan = regexp.MustCompile(`\*\*([^*]+)\*\*`)
)

// span is one inline markup span of a text: s[start:end] with delimiters
// of width delim, rendered as tag.
type span struct {
	start, end, delim int
	tag               string
}

// inline cuts s (control characters shown as \x1b, as termsafe does) into
// its inline markup: `code`, **bold** (around code or inside it) and line
// breaks. A bold span that crosses a code span's edge stays text, so the
// markup is always well nested.
func inline(s string) []inlineNode {
	s = termsafe.Lines(s)
	var spans []span
	code := codeSpan.FindAllStringIndex(s, -1)
	for _, m := range code {
		spans = append(spans, span{m[0], m[1], 1, "code"})
	}
	for _, m := range boldSpan.FindAllStringIndex(s, -1) {
		if !crossesAny(m, code) {
			spans = append(spans, span{m[0], m[1], 2, "strong"})
		}
	}
	sort.Slice(spans, func(i, j int) bool {
		return spans[i].start < spans[j].start || spans[i].start == spans[j].start && spans[i].end > spans[j].end
	})
	return inlineNodes(s, 0, len(s), spans)
}

// crossesAny says whether m overlaps one of spans without either holding
// the other.
func crossesAny(m []int, spans [][]int) bool {
	for _, c := range spans {
		inside := m[0] >= c[0] && m[1] <= c[1]
		holds := c[0] >= m[0] && c[1] <= m[1]
		if m[0] < c[1] && c[0] < m[1] && !inside && !holds {
			return true
		}
	}
	return false
}

// inlineNodes renders s[lo:hi], whose spans are sorted by start (longest
// first) and well nested.
func inlineNodes(s string, lo, hi int, spans []span) []inlineNode {
	var out []inlineNode
	for i := 0; i < len(spans); {
		sp := spans[i]
		out = append(out, textNodes(s[lo:sp.start])...)
		j := i + 1
		for j < len(spans) && spans[j].start < sp.end {
			j++
		}
		out = append(out, inlineNode{Tag: sp.tag, Kids: inlineNodes(s, sp.start+sp.delim, sp.end-sp.delim, spans[i+1:j])})
		lo, i = sp.end, j
	}
	return append(out, textNodes(s[lo:hi])...)
}

// textNodes is plain text with its line breaks.
func textNodes(s string) []inlineNode {
	var out []inlineNode
	for i, line := range strings.Split(s, "\n") {
		if i > 0 {
			out = append(out, inlineNode{Break: true})
		}
		if line != "" {
			out = append(out, inlineNode{Text: line})
		}
	}
	return out
}

var svgSize = regexp.MustCompile(`\s(width|height)="[^"]*"`)

// inlineSVG prepares a gonum SVG for embedding: the XML prologue and
// comments dropped and fixed width and height removed (the viewBox stays,
// so CSS scales it). It returns the opening tag without its '>' (the page
// adds a label for screen readers) and the rest; empty when svg has none.
func inlineSVG(svg []byte) (tag, rest template.HTML) {
	svg = svgSafe(svg)
	i := bytes.Index(svg, []byte("<svg"))
	if i < 0 {
		return "", ""
	}
	svg = svg[i:]
	end := bytes.IndexByte(svg, '>')
	return template.HTML(svgSize.ReplaceAll(svg[:end], nil)), template.HTML(svg[end:])
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
