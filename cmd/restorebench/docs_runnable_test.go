package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runnableInfo is the info string of a fenced block whose commands
// TestRunnableDocBlocks runs: ```sh runnable.
const runnableInfo = "sh runnable"

// docCommand is one command of a runnable block: where it stands and its
// arguments after the program name.
type docCommand struct {
	doc  string // docs/<page>.md
	line int
	text string
	args []string
}

// TestRunnableDocBlocks runs every command of every ```sh runnable block in
// docs/*.md, in process, on the embedded broker: each block in a fresh
// working directory of its own (so its data dir, state and results land
// there) holding a link to the repository's testdata/, as if run from the
// repository root. A command that fails fails the test, naming the page,
// line and command.
func TestRunnableDocBlocks(t *testing.T) {
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	pages, err := filepath.Glob(filepath.Join(repo, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := 0
	for _, page := range pages {
		doc := filepath.Join("docs", filepath.Base(page))
		cmds, err := runnableBlocks(page, doc)
		if err != nil {
			t.Error(err)
			continue
		}
		for _, block := range cmds {
			blocks++
			name := fmt.Sprintf("%s:%d", doc, block[0].line)
			t.Run(name, func(t *testing.T) {
				dir := t.TempDir()
				if err := os.Symlink(filepath.Join(repo, "testdata"), filepath.Join(dir, "testdata")); err != nil {
					t.Fatal(err)
				}
				t.Chdir(dir)
				for _, c := range block {
					start := time.Now()
					out, err := runDocCommand(c.args)
					if err != nil {
						t.Fatalf("%s:%d: `%s` failed: %v\n%s", c.doc, c.line, c.text, err, tail(out, 20))
					}
					t.Logf("%s:%d: `%s`: %.1f s", c.doc, c.line, c.text, time.Since(start).Seconds())
				}
			})
		}
	}
	if blocks == 0 {
		t.Fatalf("no %q block in docs/*.md", "```"+runnableInfo)
	}
}

// runDocCommand runs the command tree on args and returns what it printed.
func runDocCommand(args []string) (string, error) {
	var out bytes.Buffer
	cmd := newRootCmd()
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	err := cmd.ExecuteContext(ctx)
	return out.String(), err
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// runnableBlocks reads the runnable blocks of a Markdown page, each as its
// commands. A block holds restorebench commands only, one a line (a
// trailing backslash continues it, # starts a comment), without pipes,
// redirections, variables or command lists; anything else is an error
// naming the line.
func runnableBlocks(path, doc string) ([][]docCommand, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var blocks [][]docCommand
	var cur []docCommand
	in := false
	pending, pendingLine := "", 0
	for i, s := range strings.Split(string(data), "\n") {
		n := i + 1
		trimmed := strings.TrimSpace(s)
		if !in {
			if strings.HasPrefix(trimmed, "```") && strings.Join(strings.Fields(strings.TrimPrefix(trimmed, "```")), " ") == runnableInfo {
				in, cur = true, nil
			}
			continue
		}
		if trimmed == "```" {
			if pending != "" {
				return nil, fmt.Errorf("%s:%d: the block ends inside a continued command", doc, pendingLine)
			}
			if len(cur) == 0 {
				return nil, fmt.Errorf("%s:%d: a runnable block without a command", doc, n)
			}
			blocks = append(blocks, cur)
			in = false
			continue
		}
		if pending == "" {
			pendingLine = n
		}
		if strings.HasSuffix(trimmed, `\`) {
			pending += strings.TrimSuffix(trimmed, `\`) + " "
			continue
		}
		text := strings.TrimSpace(pending + trimmed)
		pending = ""
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		words, err := shellWords(text)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %s: %v", doc, pendingLine, text, err)
		}
		if len(words) == 0 {
			continue
		}
		switch words[0] {
		case "restorebench", "bin/restorebench", "./bin/restorebench":
		default:
			return nil, fmt.Errorf("%s:%d: %s: a runnable block holds restorebench commands only", doc, pendingLine, text)
		}
		cur = append(cur, docCommand{doc: doc, line: pendingLine, text: strings.Join(strings.Fields(text), " "), args: words[1:]})
	}
	if in {
		return nil, fmt.Errorf("%s: a runnable block is not closed", doc)
	}
	return blocks, nil
}

// shellWords splits a command line as sh would for plain words, single
// and double quotes and backslash escapes; a # that starts a word starts
// a comment. Shell syntax beyond that (pipes, redirections, variables,
// command lists, globs) is refused: the test runs no shell.
func shellWords(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case c == '#' && !inWord:
			return words, nil
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("unclosed single quote")
			}
			w.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '$' || s[i] == '`' {
					return nil, fmt.Errorf("%q in a runnable command: the test runs no shell", s[i])
				}
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				w.WriteByte(s[i])
			}
			if i == len(s) {
				return nil, fmt.Errorf("unclosed double quote")
			}
			inWord = true
		case c == '\\' && i+1 < len(s):
			i++
			w.WriteByte(s[i])
			inWord = true
		case strings.IndexByte("|&;<>()$`*?[]{}~", c) >= 0:
			return nil, fmt.Errorf("%q in a runnable command: the test runs no shell", c)
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}
