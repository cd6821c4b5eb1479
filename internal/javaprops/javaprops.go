package javaprops

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Property is one key=value pair and the line it starts on.
type Property struct {
	Key, Value string
	Line       int
}

// Parse parses Java .properties syntax: "key=value", "key: value"
// or "key value"; lines whose first non-blank character is # or ! are
// comments; a line ending in an odd number of backslashes continues on the
// next (whose leading blanks are dropped); backslash escapes (\t \n \r \f
// \uXXXX, \x for any other x) are decoded. Keys and values are trimmed.
// The text is UTF-8, or ISO-8859-1 when it is not valid UTF-8.
// Errors never quote the text.
func Parse(data []byte) ([]Property, error) {
	text := string(data)
	if !utf8.Valid(data) {
		// Not UTF-8: read it as ISO-8859-1, as Properties.load(InputStream)
		// (which Kafka's tools use) does.
		r := make([]rune, len(data))
		for i, b := range data {
			r[i] = rune(b)
		}
		text = string(r)
	}
	text = strings.TrimPrefix(text, "\uFEFF")
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	sc.Split(scanNaturalLines)
	var out []Property
	lineNo := 0
	for sc.Scan() {
		lineNo++
		start := lineNo
		line := strings.TrimLeft(sc.Text(), " \t\f")
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		var logical strings.Builder
		for {
			if !endsInContinuation(line) {
				logical.WriteString(line)
				break
			}
			logical.WriteString(line[:len(line)-1])
			if !sc.Scan() {
				break
			}
			lineNo++
			line = strings.TrimLeft(sc.Text(), " \t\f")
		}
		k, v, err := splitProperty(logical.String())
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", start, err)
		}
		out = append(out, Property{Key: k, Value: v, Line: start})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// scanNaturalLines splits on \n, \r or \r\n.
func scanNaturalLines(data []byte, atEOF bool) (int, []byte, error) {
	for i, c := range data {
		switch c {
		case '\n':
			return i + 1, data[:i], nil
		case '\r':
			if i+1 < len(data) {
				if data[i+1] == '\n' {
					return i + 2, data[:i], nil
				}
				return i + 1, data[:i], nil
			}
			if atEOF {
				return i + 1, data[:i], nil
			}
			return 0, nil, nil // need more data to see if \n follows
		}
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}

func endsInContinuation(line string) bool {
	n := 0
	for i := len(line) - 1; i >= 0 && line[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

// splitProperty splits a logical line into its unescaped key and value.
func splitProperty(line string) (string, string, error) {
	// The key ends at the first unescaped '=', ':' or blank.
	i := 0
	for i < len(line) {
		c := line[i]
		if c == '\\' {
			i += 2
			continue
		}
		if c == '=' || c == ':' || c == ' ' || c == '\t' || c == '\f' {
			break
		}
		i++
	}
	if i > len(line) {
		i = len(line)
	}
	rawKey, rest := line[:i], line[i:]
	rest = strings.TrimLeft(rest, " \t\f")
	if rest != "" && (rest[0] == '=' || rest[0] == ':') {
		rest = strings.TrimLeft(rest[1:], " \t\f")
	}
	key, err := unescapeProperty(rawKey)
	if err != nil {
		return "", "", fmt.Errorf("key: %w", err)
	}
	val, err := unescapeProperty(rest)
	if err != nil {
		return "", "", fmt.Errorf("value of %s: %w", key, err)
	}
	return strings.TrimSpace(key), strings.TrimSpace(val), nil
}

func unescapeProperty(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(s) {
			break // a lone trailing backslash is dropped, as in Java
		}
		switch s[i] {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			if i+5 > len(s) {
				return "", errors.New(`malformed \uxxxx escape`)
			}
			r, err := strconv.ParseUint(s[i+1:i+5], 16, 16)
			if err != nil {
				return "", errors.New(`malformed \uxxxx escape`)
			}
			i += 4
			// A UTF-16 surrogate pair written as two escapes is one character.
			if utf16.IsSurrogate(rune(r)) && i+6 < len(s)+0 && s[i+1] == '\\' && s[i+2] == 'u' {
				if lo, err := strconv.ParseUint(s[i+3:i+7], 16, 16); err == nil {
					if c := utf16.DecodeRune(rune(r), rune(lo)); c != unicode.ReplacementChar {
						b.WriteRune(c)
						i += 6
						continue
					}
				}
			}
			b.WriteRune(rune(r))
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String(), nil
}

// Encode writes m as a .properties file, keys sorted, escaping what the
// format needs so that java.util.Properties reads back exactly m, and Parse
// too for keys and values without blanks at either end (Parse trims them).
func Encode(m map[string]string) []byte {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b bytes.Buffer
	for _, k := range keys {
		b.WriteString(escape(k, true))
		b.WriteByte('=')
		b.WriteString(escape(m[k], false))
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// escape backslash-escapes s for a .properties file: separators and
// comment characters in keys, leading blanks in values, backslashes and
// control characters everywhere, and non-ASCII as \uXXXX.
func escape(s string, key bool) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\f':
			b.WriteString(`\f`)
		case r == ' ' && (key || i == 0):
			b.WriteString(`\ `)
		case (r == '=' || r == ':') && key, (r == '#' || r == '!') && i == 0:
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r > 0x7e:
			if r > 0xffff {
				hi, lo := utf16.EncodeRune(r)
				fmt.Fprintf(&b, `\u%04x\u%04x`, hi, lo)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
