package config

import (
	"encoding/base64"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

var (
	// pemBegin and pemEnd are the armour lines of a PEM block
	// ("-----BEGIN PRIVATE KEY-----") and of an RFC 4716 SSH2 key
	// ("---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----").
	pemBegin = regexp.MustCompile(`-{4,} ?BEGIN\b`)
	pemEnd   = regexp.MustCompile(`-{4,} ?END\b[^-\n]*-{4,}`)
	// pemBody is a line inside a PEM or PuTTY block: base64, or a header
	// (Proc-Type: 4,ENCRYPTED; Private-Lines: 14; Comment: "...").
	pemBody = regexp.MustCompile(`^\s*([A-Za-z0-9+/=]+|(Proc-Type|DEK-Info|Comment|Subject|Encryption|Public-Lines|` +
		`Private-Lines|Private-MAC|Private-Hash|Key-Derivation|Argon2-[A-Za-z]+):.*)\s*$`)
	puttyKey = regexp.MustCompile(`(?i)PuTTY-User-Key-File-`)

	// basicAuth is an HTTP Basic credential: base64 of user:password.
	basicAuth = regexp.MustCompile(`(?i)\bbasic[ \t]+([A-Za-z0-9+/]+={0,2})`)
	// bearerAuth is an HTTP Bearer token; one without a digit or a dot
	// ("bearer authentication") is a word, not a token.
	bearerAuth = regexp.MustCompile(`(?i)\bbearer[ \t]+([A-Za-z0-9._~+/-]{12,}=*)`)
	// jwt is a JSON Web Token: base64url of {"...} twice, then a signature.
	jwt = regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*`)
	// awsKeyID is an AWS access key id (long-term AKIA, temporary ASIA).
	awsKeyID = regexp.MustCompile(`\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b`)
	// hostUserinfo is user:password@host without a scheme (a URL's is
	// urlUserinfo's): group 1 is user:password.
	hostUserinfo = regexp.MustCompile(`(?:^|[\s,;"'=(\[{<>])([^\s,;"'=(\[{<>/@:]+:[^\s,;"'/@]*)@[A-Za-z0-9\[]`)
	// assignment is a name=value or name: value in free text (a comment,
	// a description, a JAAS line, a JVM flag): group 1 is the name, and
	// the value starts at the match's end.
	assignment = regexp.MustCompile(`(?:-D)?([A-Za-z][A-Za-z0-9_.-]*)["']?[ \t]*[=:][ \t]*`)
	// encoded is a run of text a percent-encoding may hide a secret in.
	encoded = regexp.MustCompile(`[^\s"'<>]*%[0-9A-Fa-f]{2}[^\s"'<>]*`)
)

// span is a part of a text to hide, and what it looks like.
type span struct {
	start, end int
	shape      string
}

// textSecrets returns the parts of s (best one line) that are credentials,
// in order and not overlapping: URL userinfo, user:password@host, HTTP
// Basic and Bearer credentials, JSON Web Tokens, AWS access key ids, the
// value of a secret-named name=value (IsSecretKey), and percent-encoded
// text that decodes to one of these.
func textSecrets(s string) []span {
	var sp []span
	for from := 0; from < len(s); {
		i := urlUserinfo(s[from:])
		if i < 0 {
			break
		}
		i += from
		end := authority(s, i)
		at := i + strings.LastIndexByte(s[i:end], '@')
		sp = append(sp, span{i, at, "a URL with a user name or password in it"})
		from = end
	}
	for _, m := range hostUserinfo.FindAllStringSubmatchIndex(s, -1) {
		if s[m[2]:m[3]] != Hidden {
			sp = append(sp, span{m[2], m[3], "a user name and password before a host (user:password@host)"})
		}
	}
	for _, m := range basicAuth.FindAllStringSubmatchIndex(s, -1) {
		if basicCredential(s[m[2]:m[3]]) {
			sp = append(sp, span{m[2], m[3], "HTTP Basic credentials"})
		}
	}
	for _, m := range bearerAuth.FindAllStringSubmatchIndex(s, -1) {
		if strings.ContainsAny(s[m[2]:m[3]], "0123456789.") {
			sp = append(sp, span{m[2], m[3], "an HTTP Bearer token"})
		}
	}
	for _, m := range jwt.FindAllStringIndex(s, -1) {
		sp = append(sp, span{m[0], m[1], "a JSON Web Token"})
	}
	for _, m := range awsKeyID.FindAllStringIndex(s, -1) {
		sp = append(sp, span{m[0], m[1], "an AWS access key id"})
	}
	for _, m := range assignment.FindAllStringSubmatchIndex(s, -1) {
		if !IsSecretKey(s[m[2]:m[3]]) {
			continue
		}
		if start, end := assignedValue(s, m[1]); end > start && s[start:end] != Hidden {
			sp = append(sp, span{start, end, "a " + secretName(s[m[2]:m[3]]) + "=... setting"})
		}
	}
	for _, m := range encoded.FindAllStringIndex(s, -1) {
		if d := percentDecode(s[m[0]:m[1]]); d != s[m[0]:m[1]] {
			if shape := SecretShape(d); shape != "" {
				sp = append(sp, span{m[0], m[1], shape + ", percent-encoded"})
			}
		}
	}
	return merge(sp)
}

// secretName is the word of a secret-named key a message may say:
// "password" for any password, else "secret".
func secretName(key string) string {
	lk := strings.ToLower(key)
	for _, w := range []string{"password", "passwd", "pwd", "pass", "token", "secret"} {
		if strings.Contains(lk, w) {
			return w
		}
	}
	return "secret"
}

// assignedValue returns where the value that starts at i in s ends: a
// quoted value ("x", 'x', \"x\") within its quotes, any other at the
// first space, comma, semicolon, quote or bracket.
func assignedValue(s string, i int) (start, end int) {
	j := i
	for j < len(s) && s[j] == '\\' {
		j++
	}
	if j < len(s) && (s[j] == '"' || s[j] == '\'') {
		q := s[j]
		start = j + 1
		end = start
		for end < len(s) && s[end] != q {
			end++
		}
		for end > start && s[end-1] == '\\' {
			end--
		}
		return start, end
	}
	end = i
	for end < len(s) && !strings.ContainsRune(" \t\r\n,;\"'()[]{}", rune(s[end])) {
		end++
	}
	return i, end
}

// basicCredential reports whether b is the base64 of user:password.
func basicCredential(b string) bool {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding} {
		if d, err := enc.DecodeString(b); err == nil && utf8.Valid(d) && strings.ContainsRune(string(d), ':') {
			for _, r := range string(d) {
				if !unicode.IsPrint(r) {
					return false
				}
			}
			return true
		}
	}
	return false
}

// merge sorts spans and joins the ones that overlap.
func merge(sp []span) []span {
	if len(sp) < 2 {
		return sp
	}
	sort.Slice(sp, func(i, j int) bool { return sp[i].start < sp[j].start })
	out := sp[:1]
	for _, x := range sp[1:] {
		last := &out[len(out)-1]
		if x.start <= last.end {
			last.end = max(last.end, x.end)
			continue
		}
		out = append(out, x)
	}
	return out
}

// hideSpans replaces each span of s with [hidden].
func hideSpans(s string, sp []span) string {
	for i := len(sp) - 1; i >= 0; i-- {
		s = s[:sp[i].start] + Hidden + s[sp[i].end:]
	}
	return s
}

// percentDecode decodes every valid %XX in s and leaves the rest
// ("%eth0" in an IPv6 zone stays).
func percentDecode(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// decodings are s and what percent-decoding it gives, up to three times
// over (a twice-encoded URL).
func decodings(s string) []string {
	out := []string{s}
	for range 3 {
		d := percentDecode(s)
		if d == s {
			break
		}
		out = append(out, d)
		s = d
	}
	return out
}

// yamlKeyLine is a YAML mapping line: its indentation (group 1), the key
// (2) and the value after the colon (3).
var yamlKeyLine = regexp.MustCompile(`^(\s*(?:-\s+)?)["']?([^\s:#"'{}\[\],][^:#"'{}\[\]]*?)["']?\s*:(?:\s+(.*?))?\s*$`)

// blockIndicator is a YAML block scalar's header (|, >-, |2+, ...), with
// perhaps a comment.
var blockIndicator = regexp.MustCompile(`^[|>][-+0-9]*\s*(#.*)?$`)

// RedactText hides the credentials free text (an error, a profile's YAML
// with its comments and descriptions) may carry, and nothing else of it:
//
//   - a PEM (or SSH2) block from its BEGIN to its END line; one without an
//     END, or whose END comes after lines that are not the block's, to the
//     end of its BEGIN line and the base64 lines after it; a PuTTY key
//     likewise;
//   - the value of a YAML key that names a secret (IsSecretKey), block
//     scalars and nested lines included;
//   - on every line, a secret-named name=value's value and credential-
//     shaped text (URL userinfo, user:password@host, Basic and Bearer
//     credentials, JSON Web Tokens, AWS access key ids; see textSecrets),
//     percent-encoded or not.
func RedactText(s string) string {
	lines := strings.Split(s, "\n")
	out := make([]string, 0, len(lines))
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if m := yamlKeyLine.FindStringSubmatchIndex(line); m != nil && IsSecretKey(line[m[4]:m[5]]) {
			value := ""
			if m[6] >= 0 {
				value = line[m[6]:m[7]]
			}
			if value != "" && !blockIndicator.MatchString(value) {
				if value != Hidden {
					line = line[:m[6]] + Hidden + line[m[7]:]
				}
				out = append(out, line)
				continue
			}
			// The value is on the lines indented under the key.
			out = append(out, line)
			indent := leadingSpace(line[:m[3]])
			for i+1 < len(lines) && (strings.TrimSpace(lines[i+1]) == "" || leadingSpace(lines[i+1]) > indent) {
				i++
				if strings.TrimSpace(lines[i]) == "" {
					out = append(out, lines[i])
				} else {
					out = append(out, lines[i][:leadingSpace(lines[i])]+Hidden)
				}
			}
			continue
		}
		var hidden []string
		line, hidden, i = hideBlocks(lines, i)
		out = append(out, hideSpans(line, textSecrets(line)))
		out = append(out, hidden...)
	}
	return strings.Join(out, "\n")
}

// hideBlocks hides the PEM blocks and PuTTY keys that start on lines[i]:
// it returns that line with them hidden (an END found on a later line
// brings the rest of that line onto this one), the lines after it that
// were a block's body without an END, each now [hidden], and the index of
// the last line it used.
func hideBlocks(lines []string, i int) (string, []string, int) {
	line := lines[i]
	var body []string
	for from := 0; ; {
		loc := pemBegin.FindStringIndex(line[from:])
		if loc == nil {
			break
		}
		c := from + loc[0]
		if e := pemEnd.FindStringIndex(line[c:]); e != nil {
			line = line[:c] + Hidden + line[c+e[1]:]
			from = c + len(Hidden)
			continue
		}
		// The block's body on the lines after, up to an END or to the
		// first line that is not the block's.
		j := i + 1
		for j < len(lines) && pemBody.MatchString(lines[j]) && !pemEnd.MatchString(lines[j]) {
			j++
		}
		if j < len(lines) && len(body) == 0 {
			if e := pemEnd.FindStringIndex(lines[j]); e != nil && strings.TrimSpace(lines[j][:e[0]]) == "" {
				line = line[:c] + Hidden + lines[j][e[1]:]
				i = j
				from = c + len(Hidden)
				continue
			}
		}
		line = line[:c] + Hidden
		body = append(body, bodyHidden(lines[i+1:j])...)
		i = j - 1
		break
	}
	if loc := puttyKey.FindStringIndex(line); loc != nil && len(body) == 0 {
		line = line[:loc[0]] + Hidden
		j := i + 1
		for j < len(lines) && pemBody.MatchString(lines[j]) {
			j++
		}
		body = bodyHidden(lines[i+1 : j])
		i = j - 1
	}
	return line, body, i
}

// bodyHidden returns lines, each [hidden] at its indentation.
func bodyHidden(lines []string) []string {
	out := make([]string, len(lines))
	for k, l := range lines {
		out[k] = l[:leadingSpace(l)] + Hidden
	}
	return out
}

// leadingSpace is how many spaces and tabs start s.
func leadingSpace(s string) int {
	return len(s) - len(strings.TrimLeft(s, " \t"))
}
