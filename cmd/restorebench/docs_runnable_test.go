package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// runnableInfo is the info string of a fenced block whose commands
// TestRunnableDocBlocks runs: ```sh runnable. brokerInfo marks a block
// whose commands name the local real broker (--brokers 127.0.0.1:19092,
// what `make kafka-up` starts): it runs where $RESTOREBENCH_BROKERS names
// that broker (make test), fails without it under CI=true, and is skipped
// otherwise.
const (
	runnableInfo = "sh runnable"
	brokerInfo   = "sh runnable broker"
	docsBroker   = "127.0.0.1:19092"
)

// docCommand is one command of a runnable block: where it stands and its
// arguments after the program name.
type docCommand struct {
	doc  string // docs/<page>.md
	line int
	text string
	args []string
	// broker is set on the commands of a brokerInfo block.
	broker bool
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
				if block[0].broker {
					needDocsBroker(t)
				}
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
	in, broker := false, false
	pending, pendingLine := "", 0
	for i, s := range strings.Split(string(data), "\n") {
		n := i + 1
		trimmed := strings.TrimSpace(s)
		if !in {
			info := strings.Join(strings.Fields(strings.TrimPrefix(trimmed, "```")), " ")
			if strings.HasPrefix(trimmed, "```") && (info == runnableInfo || info == brokerInfo) {
				in, cur, broker = true, nil, info == brokerInfo
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
		if broker && !slices.Contains(words, "--brokers") {
			return nil, fmt.Errorf("%s:%d: %s: a command of a broker block names --brokers %s", doc, pendingLine, text, docsBroker)
		}
		cur = append(cur, docCommand{doc: doc, line: pendingLine, text: strings.Join(strings.Fields(text), " "), args: words[1:], broker: broker})
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

// needDocsBroker skips a broker block unless $RESTOREBENCH_BROKERS names
// the broker the docs name (under CI=true it fails instead: make test
// starts it), and deletes the topics of application ids starting with
// "docs-" that an earlier run of the docs' commands left there, so that
// each block fills its topics afresh.
func needDocsBroker(t *testing.T) {
	t.Helper()
	if b := os.Getenv("RESTOREBENCH_BROKERS"); b != docsBroker {
		if os.Getenv("CI") == "true" {
			t.Fatalf("RESTOREBENCH_BROKERS=%q: the docs' broker blocks need the local broker at %s (make test starts it)", b, docsBroker)
		}
		t.Skipf("RESTOREBENCH_BROKERS=%q: the docs' broker blocks run against %s (make test)", b, docsBroker)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(docsBroker))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	docsTopics := func() []string {
		topics, err := adm.ListTopics(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, name := range topics.Names() {
			if strings.HasPrefix(name, "docs-") {
				out = append(out, name)
			}
		}
		return out
	}
	if old := docsTopics(); len(old) > 0 {
		if _, err := adm.DeleteTopics(ctx, old...); err != nil {
			t.Fatal(err)
		}
		for len(docsTopics()) > 0 && ctx.Err() == nil {
			time.Sleep(200 * time.Millisecond)
		}
	}
}
