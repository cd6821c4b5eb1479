package report

import (
	"fmt"
	"html"
	"io"
	"net/url"
	"regexp"
	"strings"

	"github.com/restorebench/restorebench/internal/errwriter"
	"github.com/restorebench/restorebench/internal/termsafe"
)

// NewMarkdownReporter renders d as GitHub-flavoured Markdown; figures are
// images linked by their file name (see FigureFile), written beside it.
func NewMarkdownReporter(d *Document) func(io.Writer) error {
	return func(w io.Writer) error {
		ew := errwriter.New(w)
		fmt.Fprintf(ew, "# %s\n\n%s\n\n", mdText(d.Title, false), mdText(d.Subtitle, true))
		if len(d.Facts) > 0 {
			fmt.Fprint(ew, "## Summary\n\n")
			for _, f := range d.Facts {
				fmt.Fprintf(ew, "- **%s:** %s", mdText(f.Label, false), mdText(f.Value, false))
				if f.Detail != "" {
					fmt.Fprintf(ew, " — %s", mdText(f.Detail, false))
				}
				fmt.Fprintln(ew)
			}
			fmt.Fprintln(ew)
		}
		for _, s := range d.Sections {
			fmt.Fprintf(ew, "## %s\n\n", mdText(s.Title, false))
			for _, b := range s.Blocks {
				mdBlock(ew, b)
			}
		}
		return ew.Err()
	}
}

func mdBlock(w io.Writer, b Block) {
	switch b := b.(type) {
	case *Heading:
		fmt.Fprintf(w, "### %s\n\n", mdText(b.Text, false))
	case *Para:
		if b.Note {
			fmt.Fprintf(w, "*%s*\n\n", mdText(strings.TrimSpace(b.Text), false))
		} else {
			fmt.Fprintf(w, "%s\n\n", mdText(b.Text, true))
		}
	case *List:
		for _, it := range b.Items {
			fmt.Fprintf(w, "- %s\n", mdText(it, true))
		}
		fmt.Fprintln(w)
	case *Table:
		mdTable(w, b)
	case *Figure:
		fmt.Fprintf(w, "![%s](%s)\n\n", mdText(b.Title, false), url.PathEscape(FigureFile(b)))
		if b.Caption != "" {
			fmt.Fprintf(w, "*%s*\n\n", mdText(b.Caption, false))
		}
	}
}

func mdTable(w io.Writer, t *Table) {
	if t.Caption != "" {
		fmt.Fprintf(w, "**%s**\n\n", mdText(t.Caption, false))
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
	if t.Legend != "" {
		fmt.Fprintf(w, "*%s*\n\n", mdText(t.Legend, false))
	}
}

func mdCells(cells []string) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		// A pipe splits GFM table cells before any inline parsing, inside
		// code too: mdText escapes every one (\|, or &#124; in <code>).
		out[i] = mdText(c, false)
	}
	return out
}

// mdText renders a Document text, which may use the Document's `code` and
// **bold** (see Para), as Markdown that shows every other character as
// itself: the one escaping of report.md, applied to every text the
// Document holds, so a case name, run id, host field or property value
// read from a results.json (any of which anyone may have written) can add
// no markup, line, heading, link or HTML to the report. Line breaks become
// <br>, as in report.html; control characters are shown escaped (\x1b).
// lineStart says the text begins a Markdown line (a paragraph, a list
// item), where "#", "-", "1." and the like would start a block.
func mdText(s string, lineStart bool) string {
	var b strings.Builder
	for s != "" {
		loc := mdSpan.FindStringSubmatchIndex(s)
		if loc == nil {
			mdPlain(&b, s, lineStart && b.Len() == 0)
			break
		}
		mdPlain(&b, s[:loc[0]], lineStart && b.Len() == 0)
		if loc[2] >= 0 { // `code`
			mdCode(&b, s[loc[2]:loc[3]])
		} else { // **bold**
			b.WriteString("**")
			mdPlain(&b, s[loc[4]:loc[5]], false)
			b.WriteString("**")
		}
		s = s[loc[1]:]
	}
	return b.String()
}

// mdSpan matches the Document's inline markup, as report.html reads it.
var mdSpan = regexp.MustCompile("`([^`]+)`|\\*\\*([^*]+)\\*\\*")

// mdPlainReplacer escapes what Markdown (GFM) would read as markup inside
// a line: emphasis, code, links, raw HTML and entities, strikethrough, and
// the pipes that split a table's cells.
var mdPlainReplacer = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`, "~", `\~`, "|", `\|`,
	"&", "&amp;", "<", "&lt;", ">", "&gt;",
	"\r\n", "<br>", "\n", "<br>", "\r", "<br>",
)

// mdBlockStart matches what would start a block at the beginning of a line.
var mdBlockStart = regexp.MustCompile(`^(\s*)([#>+=-]|[0-9]+[.)])`)

func mdPlain(b *strings.Builder, s string, lineStart bool) {
	s = mdPlainReplacer.Replace(termsafe.String(strings.NewReplacer("\r\n", "\n").Replace(keepBreaks(s))))
	s = strings.ReplaceAll(s, breakMark, "<br>")
	if lineStart {
		if m := mdBlockStart.FindStringSubmatchIndex(s); m != nil {
			s = s[:m[5]-1] + `\` + s[m[5]-1:]
		}
	}
	b.WriteString(s)
}

// breakMark stands for a line break while termsafe escapes the rest of a
// text's control characters: a private-use rune no report text holds.
const breakMark = "\ue000"

// keepBreaks marks the line breaks of s, which render as <br>.
func keepBreaks(s string) string {
	return strings.NewReplacer("\r\n", breakMark, "\n", breakMark, "\r", breakMark).Replace(s)
}

// mdCode renders a code span. Markdown has no escapes inside one, so
// content holding HTML's or a table's special characters, or a control
// character, is written as an HTML <code> element with those escaped.
func mdCode(b *strings.Builder, s string) {
	safe := termsafe.String(s)
	if safe == s && !strings.ContainsAny(s, "<>&|") {
		// Nothing in it Markdown would read.
		b.WriteString("`" + s + "`")
		return
	}
	b.WriteString("<code>" + strings.ReplaceAll(html.EscapeString(safe), "|", "&#124;") + "</code>")
}
