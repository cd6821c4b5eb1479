package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"unicode"
)

// kafkaPasswordConfigs are the client configs Apache Kafka defines as
// ConfigDef.Type.PASSWORD (Kafka 4.x: SslConfigs.addClientSslSupport,
// SaslConfigs.addClientSaslSupport), the ones Kafka itself never logs
// ("[hidden]"), plus the Schema Registry client's credentials, which
// Kafka Streams applications commonly carry in the same properties:
//
//	ssl.key.password                                  SslConfigs
//	ssl.keystore.password                             SslConfigs
//	ssl.truststore.password                           SslConfigs
//	ssl.keystore.key             (a PEM private key)  SslConfigs, KIP-651
//	ssl.keystore.certificate.chain                    SslConfigs, KIP-651
//	ssl.truststore.certificates                       SslConfigs, KIP-651
//	sasl.jaas.config                                  SaslConfigs
//	sasl.oauthbearer.client.credentials.client.secret SaslConfigs, KIP-1139
//	sasl.oauthbearer.assertion.private.key.passphrase SaslConfigs, KIP-1139
//	basic.auth.user.info         (user:password)      Schema Registry client
//	bearer.auth.token                                 Schema Registry client
//	bearer.auth.client.secret                         Schema Registry client
//
// Each is matched after the prefixes of clientPrefixes are taken off, so
// consumer.ssl.keystore.key and schema.registry.ssl.key.password are
// secrets too.
var kafkaPasswordConfigs = map[string]bool{
	"ssl.key.password":                                  true,
	"ssl.keystore.password":                             true,
	"ssl.truststore.password":                           true,
	"ssl.keystore.key":                                  true,
	"ssl.keystore.certificate.chain":                    true,
	"ssl.truststore.certificates":                       true,
	"sasl.jaas.config":                                  true,
	"sasl.oauthbearer.client.credentials.client.secret": true,
	"sasl.oauthbearer.assertion.private.key.passphrase": true,
	"basic.auth.user.info":                              true,
	"bearer.auth.token":                                 true,
	"bearer.auth.client.secret":                         true,
}

// secretWords are parts of a property name that mark a secret whatever the
// rest says (a plugin's own "my.api.password", "x.secret.key").
var secretWords = []string{"password", "passwd", "passphrase", "jaas", "secret", "credentials.info", "user.info", "private.key"}

// clientPrefixes are the prefixes under which Kafka Streams passes a
// property to one of its clients (streamsClientPrefixes), and the Schema
// Registry client's: "main.consumer.bootstrap.servers" is
// bootstrap.servers for the main consumer.
var clientPrefixes = append(StreamsClientPrefixes(), "schema.registry.")

// ClientBaseName is the property a Kafka Streams property configures with
// its client prefixes taken off: "restore.consumer.max.poll.records" is
// "max.poll.records"; a name without such a prefix is itself.
func ClientBaseName(key string) string {
	for {
		cut := false
		for _, p := range clientPrefixes {
			if rest, ok := strings.CutPrefix(key, p); ok && rest != "" {
				key, cut = rest, true
				break
			}
		}
		if !cut {
			return key
		}
	}
}

// secretSegments are words of a property name that mark a secret on
// their own ("x.token", "db.pwd", "accessToken"), and secretPairs two
// words that do together ("x.api.key", "aws.access.key"); see keyWords.
var (
	secretSegments = map[string]bool{
		"token": true, "tokens": true, "credential": true, "credentials": true, "creds": true,
		"apikey": true, "apikeys": true, "accesskey": true, "privatekey": true,
		"pwd": true, "pass": true, "passwd": true, "passcode": true,
	}
	secretPairs = map[string]bool{"api.key": true, "access.key": true, "private.key": true, "signing.key": true}
	// harmlessLast are last words that make a name about a secret rather
	// than one: sasl.oauthbearer.token.endpoint.url,
	// sasl.oauthbearer.client.credentials.client.id, x.token.file.
	harmlessLast = map[string]bool{
		"id": true, "ids": true, "url": true, "urls": true, "uri": true, "endpoint": true, "location": true,
		"file": true, "path": true, "dir": true, "type": true, "class": true, "name": true, "ms": true,
		"seconds": true, "enable": true, "enabled": true, "size": true, "count": true, "mode": true,
		"method": true, "header": true, "algorithm": true, "provider": true, "format": true, "scope": true,
		"version": true, "audience": true, "issuer": true,
	}
)

// keyWords splits a property name into its lower-case words: at '.', '_',
// '-' and where a lower-case letter or a digit meets an upper-case one
// ("javax.net.ssl.keyStorePassword" is javax, net, ssl, key, store,
// password).
func keyWords(key string) []string {
	var words []string
	var cur []rune
	prevLower := false
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	for _, r := range key {
		switch {
		case r == '.' || r == '_' || r == '-' || unicode.IsSpace(r):
			flush()
			prevLower = false
		case unicode.IsUpper(r) && prevLower:
			flush()
			cur = append(cur, r)
			prevLower = false
		default:
			cur = append(cur, r)
			prevLower = unicode.IsLower(r) || unicode.IsDigit(r)
		}
	}
	flush()
	return words
}

// IsSecretKey reports whether a property of that name holds a secret:
// one of Kafka's PASSWORD configs (see kafkaPasswordConfigs), under any
// client prefix, a name that says so (password, secret, jaas, ...), or one
// with a word that does (token, credentials, apikey, pwd, pass, api.key,
// access.key; see secretSegments) unless its last word says it is about
// the secret, not the secret (…token.endpoint.url, …credentials.client.id).
func IsSecretKey(key string) bool {
	lk := strings.ToLower(strings.TrimSpace(key))
	if kafkaPasswordConfigs[ClientBaseName(lk)] {
		return true
	}
	for _, w := range secretWords {
		if strings.Contains(lk, w) {
			return true
		}
	}
	words := keyWords(strings.TrimSpace(key))
	if len(words) == 0 || harmlessLast[words[len(words)-1]] {
		return false
	}
	for i, w := range words {
		if secretSegments[w] || i+1 < len(words) && secretPairs[w+"."+words[i+1]] {
			return true
		}
	}
	return false
}

// SecretShape says what makes value look like a credential whatever its
// key: "a PEM block", "a URL with a user name or password", "a JAAS login
// module", "a password=... setting", HTTP Basic or Bearer credentials, a
// JSON Web Token, an AWS access key id, a PuTTY key, user:password@host;
// "" when nothing does. A percent-encoded value is decoded first
// ("http%3A%2F%2Fu%3Ap%40h" is a URL with a password).
func SecretShape(value string) string {
	for _, v := range decodings(value) {
		lv := strings.ToLower(v)
		switch {
		case pemBegin.MatchString(v):
			return "a PEM block (a key or certificate)"
		case puttyKey.MatchString(v):
			return "a PuTTY private key"
		case strings.Contains(lv, "loginmodule"):
			return "a JAAS login module configuration"
		}
		if sp := textSecrets(v); len(sp) > 0 {
			return sp[0].shape
		}
	}
	return ""
}

// urlStop are the bytes that end a URL's authority (or the URL).
const urlStop = "/?#, \t\r\n;\"'"

// authority returns the end of the authority that starts at start in s.
func authority(s string, start int) int {
	end := start
	for end < len(s) && !strings.ContainsRune(urlStop, rune(s[end])) {
		end++
	}
	return end
}

// urlUserinfo returns the index in s of the first URL's userinfo
// ("scheme://user:pass@host": the index of "user"), or -1 when no URL in s
// carries one.
func urlUserinfo(s string) int {
	from := 0
	for {
		i := strings.Index(s[from:], "://")
		if i < 0 {
			return -1
		}
		start := from + i + 3
		// The userinfo hideUserinfo left ("[hidden]@") is no credential.
		if at := strings.LastIndexByte(s[start:authority(s, start)], '@'); at >= 0 && s[start:start+at] != Hidden {
			return start
		}
		from = start
	}
}

// hideUserinfo replaces every URL's userinfo in s with [hidden]:
// "http://u:p@host/x" becomes "http://[hidden]@host/x".
func hideUserinfo(s string) string {
	var b strings.Builder
	for {
		i := urlUserinfo(s)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := authority(s, i)
		at := i + strings.LastIndexByte(s[i:end], '@')
		b.WriteString(s[:i])
		b.WriteString(Hidden)
		s = s[at:] // from the '@', which has no "://" before it
	}
}

// Hidden is what a secret's value is recorded as, Kafka's own word for it.
const Hidden = "[hidden]"

// RedactValue returns value as it may be recorded or shown under key: a
// secret key's value and a credential-shaped value (SecretShape) become
// [hidden], but a URL only loses its userinfo ("http://[hidden]@host").
func RedactValue(key, value string) string {
	if IsSecretKey(key) {
		return Hidden
	}
	value = hideUserinfo(value)
	if SecretShape(value) != "" {
		return Hidden
	}
	return value
}

// Redact returns props with every secret value replaced (RedactValue): m
// itself when none is, so callers may redact unconditionally and cheaply,
// and a copy otherwise (m, which may be what runs, is never changed).
func Redact(m map[string]string) map[string]string {
	var out map[string]string
	for k, v := range m {
		r := RedactValue(k, v)
		if r == v {
			continue
		}
		if out == nil {
			out = make(map[string]string, len(m))
			for k2, v2 := range m {
				out[k2] = v2
			}
		}
		out[k] = r
	}
	if out == nil {
		return m
	}
	return out
}

// checkNoSecrets refuses a property map that holds a secret (IsSecretKey)
// or a credential-shaped value (SecretShape): results.json, the reports
// and the logs record every property. The error names the key, never the
// value.
func checkNoSecrets(path string, m map[string]string) error {
	for _, k := range sortedKeys(m) {
		if IsSecretKey(k) {
			return fieldErr(path+"."+k, "a secret does not belong in a profile: results.json, the reports and the logs record every property")
		}
		if shape := SecretShape(m[k]); shape != "" {
			return fieldErr(path+"."+k, "the value looks like a credential (%s), which does not belong in a profile: "+
				"results.json and the reports record every property", shape)
		}
	}
	return nil
}

// jvmFlagSecret says why a JVM flag holds a secret: a -D system property
// whose name names one (IsSecretKey: -Djavax.net.ssl.keyStorePassword=...)
// or a flag with a credential-shaped value (SecretShape); "" when it holds
// none. The answer never quotes the value.
func jvmFlagSecret(flag string) string {
	if rest, ok := strings.CutPrefix(flag, "-D"); ok {
		name, value, _ := strings.Cut(rest, "=")
		if IsSecretKey(name) {
			return "the system property -D" + name + " names a secret"
		}
		if shape := SecretShape(value); shape != "" {
			return "the value of -D" + name + " looks like a credential (" + shape + ")"
		}
	}
	if shape := SecretShape(flag); shape != "" {
		return "the flag looks like it holds a credential (" + shape + ")"
	}
	return ""
}

// checkJVMFlagSecrets refuses a jvm_flags entry that holds a secret
// (jvmFlagSecret): the JVM's command line is readable by every user of the
// host (/proc/<pid>/cmdline), and results.json and the reports record the
// flags. The error names the entry, never the value.
func checkJVMFlagSecrets(path string, flags []string) error {
	for i, f := range flags {
		if why := jvmFlagSecret(f); why != "" {
			return fieldErr(fmt.Sprintf("%s[%d]", path, i), "%s, which does not belong in a profile: every user of the host "+
				"can read a JVM's command line, and results.json and the reports record its flags; give the JVM "+
				"secrets in a file it reads (a keystore, a JAAS or properties file)", why)
		}
	}
	return nil
}

// RedactJVMFlags returns flags as they may be recorded: a -D property that
// names a secret or has a credential-shaped value as -Dname=[hidden], any
// other flag holding a credential as [hidden]. It returns flags itself when
// nothing needed hiding, and a copy otherwise.
func RedactJVMFlags(flags []string) []string {
	var out []string
	for i, f := range flags {
		r := f
		if jvmFlagSecret(f) != "" {
			r = Hidden
			if rest, ok := strings.CutPrefix(f, "-D"); ok {
				name, _, _ := strings.Cut(rest, "=")
				if SecretShape(name) == "" {
					r = "-D" + name + "=" + Hidden
				}
			}
		}
		if r != f && out == nil {
			out = append([]string(nil), flags...)
		}
		if out != nil {
			out[i] = r
		}
	}
	if out == nil {
		return flags
	}
	return out
}

// SecretFileError is the error for a file that holds a secret (a key or
// password file) and could not be read, prefixed by where its path came
// from (a flag or an environment variable). A path that names something on
// disk is shown; one that does not is described by its length only: a
// secret pasted where its file's path belongs (--sasl-password-file
// hunter2) names no file, and an error must not print it whole.
func SecretFileError(from, path string, err error) error {
	if _, serr := os.Lstat(path); serr == nil || path == "" {
		return fmt.Errorf("%s: %w", from, err)
	}
	cause := err
	var pe *fs.PathError
	if errors.As(err, &pe) {
		cause = pe.Err
	}
	msg := strings.ReplaceAll(cause.Error(), path, "(the value given)")
	return fmt.Errorf("%s: the file could not be read: %s (the value given, %d characters, is not shown: "+
		"one that names no file may be a secret given in place of its file's path)", from, msg, len(path))
}
