// Package termsafe makes untrusted text (case names, run ids, errors read
// from a results.json) safe to print on a terminal: no escape sequence,
// control character or bidirectional override in it reaches the terminal
// as itself.
package termsafe

import (
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
)

// unsafe reports whether r must not reach a terminal as itself: C0
// controls (ESC among them), DEL, C1 controls (U+0080-U+009F: 8-bit CSI
// and OSC), and the Unicode format characters that reorder or hide text
// (bidirectional overrides and isolates, line and paragraph separators).
func unsafe(r rune) bool {
	switch {
	case r < 0x20 || r == 0x7f:
		return true
	case r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c,
		r == 0x2028, r == 0x2029:
		return true
	}
	return false
}

// String is s with every unsafe rune written as a Go escape (\x1b,
// \n, \u202e) and every byte that is not UTF-8 as \xNN, so what was there
// stays visible: for one-line values such as a case name.
func String(s string) string { return escape(s, false) }

// Lines is String but keeps newlines and tabs, for whole messages of
// several lines (an error printed at exit).
func Lines(s string) string { return escape(s, true) }

func escape(s string, keepLines bool) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || (unsafe(r) && !(keepLines && (r == '\n' || r == '\t'))) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case keepLines && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x80 && unsafe(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafe(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// Prefix is s quoted as Go quotes it (every unsafe rune escaped), cut to
// its first max bytes at a rune boundary with "…" after the quote when cut:
// an untrusted value of any length named in one short line of a message.
func Prefix(s string, max int) string {
	if len(s) <= max {
		return strconv.Quote(s)
	}
	i := max
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return strconv.Quote(s[:i]) + "…"
}

// NewWriter returns a writer that passes Lines of what it is given to w:
// the last guard of a command's output, whatever string reached it. Each
// Write is escaped on its own (fmt and text/tabwriter write whole runes).
func NewWriter(w io.Writer) io.Writer { return &writer{w: w} }

type writer struct{ w io.Writer }

func (t *writer) Write(p []byte) (int, error) {
	s := Lines(string(p))
	if _, err := io.WriteString(t.w, s); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Scrub rewrites, in place, every string reachable from ptr (a pointer to
// a struct such as runs.Results: fields, slices, maps' keys and values,
// pointers) through String, so a command printing any of it prints no
// control character, whichever field it picks.
func Scrub(ptr any) {
	v := reflect.ValueOf(ptr)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return
	}
	scrub(v.Elem())
}

func scrub(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		if v.CanSet() {
			if s := String(v.String()); s != v.String() {
				v.SetString(s)
			}
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			if v.Kind() == reflect.Interface {
				// A value in an interface is not addressable: copy it.
				c := reflect.New(v.Elem().Type()).Elem()
				c.Set(v.Elem())
				scrub(c)
				if v.CanSet() {
					v.Set(c)
				}
				return
			}
			scrub(v.Elem())
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				scrub(v.Field(i))
			}
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			scrub(v.Index(i))
		}
	case reflect.Map:
		if v.IsNil() || !v.CanSet() {
			return
		}
		out := reflect.MakeMapWithSize(v.Type(), v.Len())
		it := v.MapRange()
		for it.Next() {
			k := reflect.New(v.Type().Key()).Elem()
			k.Set(it.Key())
			scrub(k)
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(it.Value())
			scrub(e)
			out.SetMapIndex(k, e)
		}
		v.Set(out)
	}
}
