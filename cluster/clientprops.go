package cluster

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/restorebench/restorebench/internal/boundedread"
	"github.com/restorebench/restorebench/internal/javaprops"
)

// ClientProperties is what ReadClientProperties read from a Kafka client
// properties file.
type ClientProperties struct {
	// Brokers is bootstrap.servers (nil when the file does not set it).
	Brokers []string
	// Security holds the security.protocol, sasl.* and ssl.* settings.
	Security Security
	// Ignored lists, sorted, the keys that restorebench does not use and
	// that do not affect security (client.id, request.timeout.ms, ...).
	Ignored []string
}

// LoadClientProperties reads a Kafka client properties file (the file
// Kafka's command-line tools take with --command-config) and returns its
// bootstrap servers and security settings. See ReadClientProperties.
func LoadClientProperties(path string) (brokers []string, sec Security, err error) {
	cp, err := ReadClientProperties(path)
	return cp.Brokers, cp.Security, err
}

// ReadClientProperties reads a Kafka client properties file in Java
// .properties syntax. It understands bootstrap.servers, security.protocol,
// sasl.mechanism, sasl.jaas.config (PlainLoginModule, ScramLoginModule) and
// the PEM forms of the ssl.* trust and key stores. Settings that would
// change security in a way restorebench does not support (JKS or PKCS12
// stores, encrypted keys, GSSAPI, OAUTHBEARER, custom callback handlers,
// ...) are errors naming the key; keys unrelated to security are returned
// in Ignored. Errors never contain property values that may be secret.
// The result is not validated beyond the file itself; call Security.Opts.
func ReadClientProperties(path string) (ClientProperties, error) {
	var cp ClientProperties
	data, err := boundedread.ReadFile(path, boundedread.Security)
	if err != nil {
		return cp, fmt.Errorf("client properties: %w", err)
	}
	props, err := javaprops.Parse(data)
	if err != nil {
		return cp, fmt.Errorf("client properties %s: %w", path, err)
	}
	cp, err = clientPropertiesFrom(props)
	if err != nil {
		return ClientProperties{}, fmt.Errorf("client properties %s: %w", path, err)
	}
	return cp, nil
}

// ignoredSecurityKeys are ssl.* and sasl.* keys that do not change security
// semantics for the mechanisms and store types restorebench supports (Kafka
// ignores them or they concern only GSSAPI/OAUTHBEARER, which are rejected
// anyway).
var ignoredSecurityKeys = map[string]bool{
	"ssl.secure.random.implementation":         true,
	"ssl.client.auth":                          true, // broker-side
	"ssl.principal.mapping.rules":              true, // broker-side
	"sasl.login.refresh.window.factor":         true,
	"sasl.login.refresh.window.jitter":         true,
	"sasl.login.refresh.min.period.seconds":    true,
	"sasl.login.refresh.buffer.seconds":        true,
	"sasl.login.connect.timeout.ms":            true,
	"sasl.login.read.timeout.ms":               true,
	"sasl.login.retry.backoff.ms":              true,
	"sasl.login.retry.backoff.max.ms":          true,
	"sasl.kerberos.service.name":               true,
	"sasl.kerberos.kinit.cmd":                  true,
	"sasl.kerberos.min.time.before.relogin":    true,
	"sasl.kerberos.ticket.renew.jitter":        true,
	"sasl.kerberos.ticket.renew.window.factor": true,
}

// propsReader accumulates the settings of one properties file.
type propsReader struct {
	cp                                 ClientProperties
	truststoreTypeSet, keystoreTypeSet bool
}

// propertyRule reads one key's value; at is "line N: key" for errors, which
// never quote a value that may be secret.
type propertyRule func(r *propsReader, v, at string) error

// unsupportedUnlessEmpty refuses a setting restorebench cannot honour.
func unsupportedUnlessEmpty(_ *propsReader, v, at string) error {
	if v != "" {
		return fmt.Errorf("%s: is not supported (remove it to use the defaults)", at)
	}
	return nil
}

// storeTypeRule accepts PEM, JKS and PKCS12 stores, remembering that the
// type was given.
func storeTypeRule(set func(*propsReader, string)) propertyRule {
	return func(r *propsReader, v, at string) error {
		if !contains(storeTypes, storeType(v)) {
			return fmt.Errorf("%s: %q is not supported; allowed values: %s", at, v, strings.Join(storeTypes, ", "))
		}
		set(r, storeType(v))
		return nil
	}
}

// clientPropertyRules are the keys restorebench reads, one rule each.
var clientPropertyRules = map[string]propertyRule{
	"bootstrap.servers": func(r *propsReader, v, at string) error {
		bs, err := parseBootstrap(v)
		if err != nil {
			return fmt.Errorf("%s: %w", at, err)
		}
		r.cp.Brokers = bs
		return nil
	},
	"security.protocol": func(r *propsReader, v, at string) error {
		u := strings.ToUpper(v)
		if !contains(protocols, u) {
			return fmt.Errorf("%s: %q is not supported; allowed values: %s", at, v, strings.Join(protocols, ", "))
		}
		r.cp.Security.Protocol = u
		return nil
	},
	"sasl.mechanism": func(r *propsReader, v, at string) error {
		if !contains(mechanisms, v) {
			return fmt.Errorf("%s: %q is not supported; allowed values: %s", at, v, strings.Join(mechanisms, ", "))
		}
		r.cp.Security.Mechanism = v
		return nil
	},
	// Read once sasl.mechanism is known (see clientPropertiesFrom).
	"sasl.jaas.config": func(*propsReader, string, string) error { return nil },
	"ssl.truststore.type": storeTypeRule(func(r *propsReader, t string) {
		r.truststoreTypeSet, r.cp.Security.TruststoreType = true, t
	}),
	"ssl.keystore.type": storeTypeRule(func(r *propsReader, t string) {
		r.keystoreTypeSet, r.cp.Security.KeystoreType = true, t
	}),
	"ssl.truststore.location": func(r *propsReader, v, _ string) error {
		r.cp.Security.CAFile = v
		return nil
	},
	"ssl.truststore.certificates": func(r *propsReader, v, _ string) error {
		r.cp.Security.CAPEM = v
		return nil
	},
	// A PEM key store file holds the certificate chain and the key.
	"ssl.keystore.location": func(r *propsReader, v, _ string) error {
		r.cp.Security.CertFile, r.cp.Security.KeyFile = v, v
		return nil
	},
	"ssl.keystore.certificate.chain": func(r *propsReader, v, _ string) error {
		r.cp.Security.CertPEM = v
		return nil
	},
	"ssl.keystore.key": func(r *propsReader, v, _ string) error {
		r.cp.Security.KeyPEM = v
		return nil
	},
	"ssl.key.password": func(r *propsReader, v, _ string) error {
		r.cp.Security.KeyPassword = v
		return nil
	},
	"ssl.keystore.password": func(r *propsReader, v, _ string) error {
		r.cp.Security.KeystorePassword = v
		return nil
	},
	"ssl.truststore.password": func(r *propsReader, v, _ string) error {
		r.cp.Security.TruststorePassword = v
		return nil
	},
	"ssl.endpoint.identification.algorithm": func(r *propsReader, v, at string) error {
		switch strings.ToLower(v) {
		case "https":
			r.cp.Security.SkipHostnameVerification = false
		case "":
			r.cp.Security.SkipHostnameVerification = true
		default:
			return fmt.Errorf("%s: %q is not supported; allowed values: https (default) or empty (no host name verification)", at, v)
		}
		return nil
	},
	"ssl.protocol": func(_ *propsReader, v, at string) error {
		switch v {
		case "TLSv1.2", "TLSv1.3", "TLS":
			// Go negotiates TLS 1.2 or 1.3, as Kafka does by default.
			return nil
		}
		return fmt.Errorf("%s: %q is not supported; restorebench uses TLS 1.2 or 1.3 (allowed: TLSv1.2, TLSv1.3, TLS)", at, v)
	},
	"ssl.enabled.protocols": func(_ *propsReader, v, at string) error {
		got := map[string]bool{}
		for _, f := range strings.Split(v, ",") {
			if f = strings.TrimSpace(f); f != "" {
				got[f] = true
			}
		}
		if len(got) != 2 || !got["TLSv1.2"] || !got["TLSv1.3"] {
			return fmt.Errorf("%s: %q is not supported; restorebench always enables TLSv1.2,TLSv1.3 (Kafka's default)", at, v)
		}
		return nil
	},
	"ssl.cipher.suites":                  unsupportedUnlessEmpty,
	"ssl.provider":                       unsupportedUnlessEmpty,
	"ssl.engine.factory.class":           unsupportedUnlessEmpty,
	"sasl.login.class":                   unsupportedUnlessEmpty,
	"sasl.login.callback.handler.class":  unsupportedUnlessEmpty,
	"sasl.client.callback.handler.class": unsupportedUnlessEmpty,
	"ssl.keymanager.algorithm":           defaultAlgorithm("ssl.keymanager.algorithm"),
	"ssl.trustmanager.algorithm":         defaultAlgorithm("ssl.trustmanager.algorithm"),
}

// defaultAlgorithm accepts a key or trust manager algorithm only at its
// default, which needs nothing from restorebench (the key is then ignored).
func defaultAlgorithm(key string) propertyRule {
	return func(r *propsReader, v, at string) error {
		if v != "" && v != "SunX509" && v != "PKIX" {
			return fmt.Errorf("%s: %q is not supported; only the defaults (SunX509, PKIX) are", at, v)
		}
		r.cp.Ignored = append(r.cp.Ignored, key)
		return nil
	}
}

func clientPropertiesFrom(props []javaprops.Property) (ClientProperties, error) {
	// Last occurrence wins, as in java.util.Properties.
	m := map[string]javaprops.Property{}
	for _, p := range props {
		m[p.Key] = p
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)

	r := &propsReader{}
	for _, k := range keys {
		p := m[k]
		at := fmt.Sprintf("line %d: %s", p.Line, k)
		if rule, ok := clientPropertyRules[k]; ok {
			if err := rule(r, p.Value, at); err != nil {
				return r.cp, err
			}
			continue
		}
		if (strings.HasPrefix(k, "ssl.") || strings.HasPrefix(k, "sasl.")) &&
			!ignoredSecurityKeys[k] && !strings.HasPrefix(k, "sasl.oauthbearer.") {
			return r.cp, fmt.Errorf("%s: is not supported by restorebench (supported: security.protocol, sasl.mechanism, "+
				"sasl.jaas.config and the PEM, JKS and PKCS12 ssl.truststore.*/ssl.keystore.* settings)", at)
		}
		r.cp.Ignored = append(r.cp.Ignored, k)
	}
	if err := r.checkStores(); err != nil {
		return r.cp, err
	}
	sec := &r.cp.Security
	// Kafka ignores ssl.* without TLS. Host name verification off is common
	// boilerplate in SASL_PLAINTEXT files, so it is ignored as well; other
	// TLS settings without TLS are left for Security.Validate to reject.
	if sec.SkipHostnameVerification && !sec.UsesTLS() {
		sec.SkipHostnameVerification = false
		r.cp.Ignored = append(r.cp.Ignored, "ssl.endpoint.identification.algorithm")
	}
	sort.Strings(r.cp.Ignored)
	if p, ok := m["sasl.jaas.config"]; ok {
		if err := r.readJAAS(p); err != nil {
			return r.cp, err
		}
	}
	// Without sasl.jaas.config (Kafka would fall back to the JVM's
	// java.security.auth.login.config file) the credentials stay empty for
	// the caller to fill in; Security.Opts insists on them.
	return r.cp, nil
}

// checkStores applies the rules that tie the store settings together.
func (r *propsReader) checkStores() error {
	sec := &r.cp.Security
	// Kafka's default store type is JKS; a store file without a type that
	// holds PEM is taken as PEM (restorebench's flags have always read one
	// so), any other as JKS.
	if sec.CAFile != "" && !r.truststoreTypeSet {
		t, err := untypedStore(sec.CAFile, "ssl.truststore.location")
		if err != nil {
			return err
		}
		sec.TruststoreType = t
	}
	if sec.CertFile != "" && !r.keystoreTypeSet {
		t, err := untypedStore(sec.CertFile, "ssl.keystore.location")
		if err != nil {
			return err
		}
		sec.KeystoreType = t
	}
	switch {
	case sec.CAFile != "" && sec.CAPEM != "":
		return errors.New("ssl.truststore.location and ssl.truststore.certificates are both set; use one")
	case sec.CertFile != "" && (sec.CertPEM != "" || sec.KeyPEM != ""):
		return errors.New("ssl.keystore.location and ssl.keystore.certificate.chain/ssl.keystore.key are both set; use one")
	case (sec.CertPEM != "") != (sec.KeyPEM != ""):
		return errors.New("ssl.keystore.certificate.chain and ssl.keystore.key must be set together")
	}
	return nil
}

// readJAAS reads the credentials of sasl.jaas.config, checking the login
// module agrees with sasl.mechanism.
func (r *propsReader) readJAAS(p javaprops.Property) error {
	sec := &r.cp.Security
	jc, err := parseJAAS(p.Value)
	if err != nil {
		return fmt.Errorf("line %d: sasl.jaas.config: %w", p.Line, err)
	}
	switch jc.module {
	case plainLoginModule:
		if sec.Mechanism != "" && sec.Mechanism != MechanismPlain {
			return fmt.Errorf("line %d: sasl.jaas.config uses PlainLoginModule but sasl.mechanism is %s (use ScramLoginModule)", p.Line, sec.Mechanism)
		}
	case scramLoginModule:
		if sec.Mechanism != "" && sec.Mechanism != MechanismScramSHA256 && sec.Mechanism != MechanismScramSHA512 {
			return fmt.Errorf("line %d: sasl.jaas.config uses ScramLoginModule but sasl.mechanism is %s (use PlainLoginModule)", p.Line, sec.Mechanism)
		}
	}
	sec.Username, sec.Password = jc.username, jc.password
	return nil
}

// untypedStore is the type of a store file given without one: PEM when
// it holds PEM, else Kafka's default, JKS.
func untypedStore(path, locKey string) (string, error) {
	data, err := boundedread.ReadFile(path, boundedread.Security)
	if err != nil {
		return "", fmt.Errorf("%s: %w", locKey, err)
	}
	if bytes.Contains(data, []byte("-----BEGIN ")) {
		return StorePEM, nil
	}
	return StoreJKS, nil
}

// parseBootstrap parses bootstrap.servers, accepting the optional
// "PROTOCOL://" prefix that Kafka's clients accept.
func parseBootstrap(v string) ([]string, error) {
	parts := strings.Split(v, ",")
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if j := strings.Index(p, "://"); j >= 0 {
			p = p[j+3:]
		}
		parts[i] = p
	}
	return ParseBrokers(strings.Join(parts, ","))
}
