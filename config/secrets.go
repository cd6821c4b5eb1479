package config

import (
	"strings"
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
// property to one of its clients (StreamsConfig.consumerPrefix and friends),
// and the Schema Registry client's: "main.consumer.bootstrap.servers" is
// bootstrap.servers for the main consumer.
var clientPrefixes = []string{
	"main.consumer.", "restore.consumer.", "global.consumer.", "consumer.", "producer.", "admin.",
	"schema.registry.",
}

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

// IsSecretKey reports whether a property of that name holds a secret:
// one of Kafka's PASSWORD configs (see kafkaPasswordConfigs), under any
// client prefix, or a name that says so (password, secret, jaas, ...).
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
	return false
}

// SecretShape says what makes value look like a credential whatever its
// key: "a PEM block", "a URL with a user name or password", "a JAAS login
// module", "a password=... setting"; "" when nothing does.
func SecretShape(value string) string {
	lv := strings.ToLower(value)
	switch {
	case strings.Contains(value, "-----BEGIN"):
		return "a PEM block (a key or certificate)"
	case urlUserinfo(value) >= 0:
		return "a URL with a user name or password in it"
	case strings.Contains(lv, "loginmodule"):
		return "a JAAS login module configuration"
	}
	for _, w := range []string{"password", "passwd", "secret", "token"} {
		if i := strings.Index(lv, w); i >= 0 {
			rest := strings.TrimLeft(lv[i+len(w):], " \t\"'")
			if strings.HasPrefix(rest, "=") || strings.HasPrefix(rest, ":") {
				return "a " + w + "=... setting"
			}
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
			return fieldErr(path+"."+k, "the value looks like a credential (%s), which does not belong in a profile: results.json and the reports record every property", shape)
		}
	}
	return nil
}

// RedactText hides the credentials free text (an error, a profile's YAML)
// may carry: URL userinfo, and PEM blocks from their BEGIN line to their
// END line (or to the end of the text).
func RedactText(s string) string {
	s = hideUserinfo(s)
	for {
		i := strings.Index(s, "-----BEGIN")
		if i < 0 {
			return s
		}
		end := len(s)
		if j := strings.Index(s[i:], "-----END"); j >= 0 {
			end = i + j + len("-----END")
			if k := strings.Index(s[end:], "-----"); k >= 0 {
				end += k + len("-----")
			} else {
				end = len(s)
			}
		}
		s = s[:i] + Hidden + s[end:]
	}
}
