package cluster

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

const (
	plainLoginModule = "org.apache.kafka.common.security.plain.PlainLoginModule"
	scramLoginModule = "org.apache.kafka.common.security.scram.ScramLoginModule"
)

type jaasConfig struct {
	module             string
	username, password string
}

var javaClassName = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*(\.[A-Za-z_$][A-Za-z0-9_$]*)*LoginModule$`)

// parseJAAS parses a client sasl.jaas.config value:
//
//	<LoginModuleClass> <flag> [key=value ...];
//
// with values bare or double-quoted (backslash escapes inside quotes).
// Errors never include the text, which holds a password.
func parseJAAS(s string) (jaasConfig, error) {
	var jc jaasConfig
	toks, err := jaasTokens(s)
	if err != nil {
		return jc, err
	}
	const format = "expected: <LoginModule class> required username=\"...\" password=\"...\";"
	if len(toks) < 3 || toks[0].kind != tokWord || toks[1].kind != tokWord {
		return jc, errors.New("malformed; " + format)
	}
	jc.module = toks[0].text
	switch jc.module {
	case plainLoginModule, scramLoginModule:
	default:
		if javaClassName.MatchString(jc.module) {
			return jaasConfig{}, fmt.Errorf("login module %s is not supported; use %s or %s", jc.module, plainLoginModule, scramLoginModule)
		}
		return jaasConfig{}, fmt.Errorf("unsupported or malformed login module; use %s or %s", plainLoginModule, scramLoginModule)
	}
	switch strings.ToLower(toks[1].text) {
	case "required", "requisite", "sufficient", "optional":
	default:
		return jaasConfig{}, errors.New("malformed control flag (expected required, requisite, sufficient or optional)")
	}
	i := 2
	opt := 0
	var haveUser, havePass bool
	for {
		if i >= len(toks) {
			return jaasConfig{}, errors.New("malformed: missing ';' after the login module options")
		}
		if toks[i].kind == tokSemicolon {
			i++
			break
		}
		opt++
		if i+2 >= len(toks) || toks[i].kind != tokWord || toks[i+1].kind != tokEquals ||
			(toks[i+2].kind != tokWord && toks[i+2].kind != tokQuoted) {
			return jaasConfig{}, fmt.Errorf("malformed option %d (expected key=value or key=\"value\")", opt)
		}
		key, val := toks[i].text, toks[i+2].text
		i += 3
		switch key {
		case "username":
			jc.username, haveUser = val, true
		case "password":
			jc.password, havePass = val, true
		case "tokenauth":
			if strings.EqualFold(val, "true") {
				return jaasConfig{}, errors.New("delegation token authentication (tokenauth=true) is not supported")
			}
		default:
			// The name is not echoed: in a malformed line it may be part of
			// a password.
			return jaasConfig{}, fmt.Errorf("option %d is not supported (only username and password are read)", opt)
		}
	}
	if i != len(toks) {
		return jaasConfig{}, errors.New("more than one login module; a client uses exactly one")
	}
	if !haveUser || jc.username == "" {
		return jaasConfig{}, errors.New("no username option")
	}
	if !havePass {
		return jaasConfig{}, errors.New("no password option")
	}
	return jc, nil
}

type tokKind int

const (
	tokWord tokKind = iota
	tokQuoted
	tokEquals
	tokSemicolon
)

type jaasToken struct {
	kind tokKind
	text string
}

func jaasTokens(s string) ([]jaasToken, error) {
	var toks []jaasToken
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			i++
		case c == '=':
			toks = append(toks, jaasToken{kind: tokEquals})
			i++
		case c == ';':
			toks = append(toks, jaasToken{kind: tokSemicolon})
			i++
		case c == '"':
			var b strings.Builder
			i++
			closed := false
			for i < len(s) {
				c := s[i]
				if c == '"' {
					closed = true
					i++
					break
				}
				if c == '\\' && i+1 < len(s) {
					i++
					switch s[i] {
					case 'n':
						b.WriteByte('\n')
					case 't':
						b.WriteByte('\t')
					case 'r':
						b.WriteByte('\r')
					default:
						b.WriteByte(s[i])
					}
					i++
					continue
				}
				b.WriteByte(c)
				i++
			}
			if !closed {
				return nil, errors.New("malformed: unterminated quoted value")
			}
			toks = append(toks, jaasToken{kind: tokQuoted, text: b.String()})
		default:
			j := i
			for j < len(s) && !strings.ContainsRune(" \t\n\r\f=;\"", rune(s[j])) {
				j++
			}
			toks = append(toks, jaasToken{kind: tokWord, text: s[i:j]})
			i = j
		}
	}
	return toks, nil
}
