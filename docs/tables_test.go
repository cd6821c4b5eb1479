package docs

import (
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// maxCell is the longest a Markdown table cell may be, in characters: a
// longer explanation belongs in a section the cell links to, where it can be
// read without scrolling a table sideways (issue 53).
const maxCell = 400

// TestTableCellsAreShort checks that no table cell of README.md or
// docs/*.md is over maxCell characters. docs/cli is generated from the
// commands' help and is left out.
func TestTableCellsAreShort(t *testing.T) {
	for _, doc := range markdownFiles(t) {
		if strings.HasPrefix(doc, filepath.Join("docs", "cli")+string(filepath.Separator)) {
			continue
		}
		for _, l := range outsideCode(t, filepath.Join("..", doc)) {
			for _, c := range tableCells(l.text) {
				if n := utf8.RuneCountInString(c); n > maxCell {
					t.Errorf("%s:%d: a table cell of %d characters (over %d) starting %q: move its explanation to a section and link to it",
						doc, l.n, n, maxCell, firstWords(c, 8))
				}
			}
		}
	}
}

// tableCells returns the trimmed cells of a Markdown table row (a line
// starting with "|"), split on pipes not escaped as \|; nil for any other
// line.
func tableCells(line string) []string {
	s := strings.TrimSpace(line)
	if !strings.HasPrefix(s, "|") {
		return nil
	}
	var cells []string
	var cur strings.Builder
	for i := 1; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == '|':
			cur.WriteString(`\|`)
			i++
		case s[i] == '|':
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(s[i])
		}
	}
	if rest := strings.TrimSpace(cur.String()); rest != "" {
		cells = append(cells, rest)
	}
	return cells
}

// firstWords returns a cell's first n words, to name it in a failure.
func firstWords(cell string, n int) string {
	w := strings.Fields(cell)
	if len(w) > n {
		w = w[:n]
	}
	return strings.Join(w, " ")
}
