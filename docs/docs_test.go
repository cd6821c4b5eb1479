// Package docs holds restorebench's documentation; its tests check that
// the README's and the pages' relative links lead somewhere, and that the
// results the pages quote are the saved runs' own.
package docs

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// markdownFiles are README.md and every Markdown file under docs/, as
// paths from the repository root.
func markdownFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md"}
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".md") {
			files = append(files, filepath.Join("docs", path))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// link is a Markdown link's target, [text](target), outside code.
var link = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// inlineCode is a code span, whose brackets are not links.
var inlineCode = regexp.MustCompile("`[^`]*`")

// TestRelativeLinks checks that every relative link in README.md and
// docs/**/*.md names a file or directory that exists, and, for a link with
// an anchor into a Markdown file, a heading of that file.
func TestRelativeLinks(t *testing.T) {
	root := ".."
	anchors := map[string]map[string]bool{}
	for _, doc := range markdownFiles(t) {
		for _, l := range outsideCode(t, filepath.Join(root, doc)) {
			for _, m := range link.FindAllStringSubmatch(inlineCode.ReplaceAllString(l.text, ""), -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				path, anchor, _ := strings.Cut(target, "#")
				file := filepath.Join(root, doc)
				if path != "" {
					file = filepath.Join(filepath.Dir(file), path)
				}
				if _, err := os.Stat(file); err != nil {
					t.Errorf("%s:%d: link %s: %s does not exist", doc, l.n, target, file)
					continue
				}
				if anchor == "" || !strings.HasSuffix(file, ".md") {
					continue
				}
				if anchors[file] == nil {
					anchors[file] = headingAnchors(t, file)
				}
				if !anchors[file][anchor] {
					t.Errorf("%s:%d: link %s: %s has no heading with anchor #%s", doc, l.n, target, file, anchor)
				}
			}
		}
	}
}

// TestQuotedResultsAreTheSavedRuns checks that every block fenced as
// ```text from=PATH quotes lines of PATH (a saved run's summary.golden), in
// order, as they stand there.
func TestQuotedResultsAreTheSavedRuns(t *testing.T) {
	for _, doc := range markdownFiles(t) {
		for _, b := range fencedBlocks(t, filepath.Join("..", doc)) {
			src, ok := strings.CutPrefix(b.info, "text from=")
			if !ok {
				continue
			}
			data, err := os.ReadFile(filepath.Join("..", src))
			if err != nil {
				t.Errorf("%s:%d: %v", doc, b.line, err)
				continue
			}
			have := strings.Split(string(data), "\n")
			i := 0
			for k, q := range b.lines {
				for i < len(have) && strings.TrimRight(have[i], " ") != q {
					i++
				}
				if i == len(have) {
					t.Errorf("%s:%d: %q is not a line of %s (after the lines quoted before it)", doc, b.line+1+k, q, src)
					break
				}
				i++
			}
		}
	}
}

// numbered is a line of a file with its 1-based number.
type numbered struct {
	n    int
	text string
}

// outsideCode returns the lines of a Markdown file outside fenced blocks.
func outsideCode(t *testing.T, file string) []numbered {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []numbered
	fenced := false
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		s := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(s), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			out = append(out, numbered{n, s})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// block is a fenced code block: its info string, the line of its opening
// fence and its lines.
type block struct {
	info  string
	line  int
	lines []string
}

// fencedBlocks returns the fenced code blocks of a Markdown file.
func fencedBlocks(t *testing.T, file string) []block {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []block
	var cur *block
	for i, s := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimSpace(s)
		switch {
		case cur == nil && strings.HasPrefix(trimmed, "```"):
			cur = &block{info: strings.TrimSpace(strings.TrimPrefix(trimmed, "```")), line: i + 1}
		case cur != nil && trimmed == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.lines = append(cur.lines, strings.TrimRight(s, " "))
		}
	}
	return out
}

// headingAnchors are the anchors GitHub gives a Markdown file's headings:
// lower case, punctuation but hyphens and underscores dropped, spaces as
// hyphens, a repeat suffixed -1, -2, ...
func headingAnchors(t *testing.T, file string) map[string]bool {
	t.Helper()
	anchors := map[string]bool{}
	seen := map[string]int{}
	for _, l := range outsideCode(t, file) {
		if !strings.HasPrefix(l.text, "#") {
			continue
		}
		title := strings.TrimSpace(strings.TrimLeft(l.text, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(title) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		if k := seen[a]; k > 0 {
			anchors[a+"-"+strconv.Itoa(k)] = true
		} else {
			anchors[a] = true
		}
		seen[a]++
	}
	return anchors
}
