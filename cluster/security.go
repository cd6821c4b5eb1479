package cluster

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// Security protocols (Kafka's security.protocol values).
const (
	ProtocolPlaintext     = "PLAINTEXT"
	ProtocolSSL           = "SSL"
	ProtocolSASLPlaintext = "SASL_PLAINTEXT"
	ProtocolSASLSSL       = "SASL_SSL"
)

// SASL mechanisms (Kafka's sasl.mechanism values) that restorebench supports.
const (
	MechanismPlain       = "PLAIN"
	MechanismScramSHA256 = "SCRAM-SHA-256"
	MechanismScramSHA512 = "SCRAM-SHA-512"
)

var (
	protocols  = []string{ProtocolPlaintext, ProtocolSSL, ProtocolSASLPlaintext, ProtocolSASLSSL}
	mechanisms = []string{MechanismPlain, MechanismScramSHA256, MechanismScramSHA512}
)

const redacted = "[redacted]"

// Security describes how to authenticate to and encrypt the connection with
// a secured cluster, in the terms of Kafka's client configuration. The zero
// value connects in plaintext without authentication.
//
// The password and an inline private key are secrets: String, GoString,
// MarshalJSON, MarshalYAML and LogValue all print them as "[redacted]", so
// fmt's %v, %+v and %#v, encoding/json, yaml.v3 and log/slog never show them.
// (fmt cannot call these methods on a Security held in an unexported struct
// field; print such holders through their own String method.)
type Security struct {
	// Protocol mirrors Kafka's security.protocol: PLAINTEXT (the default
	// when empty), SSL, SASL_PLAINTEXT or SASL_SSL. Case-insensitive.
	Protocol string

	// Mechanism mirrors Kafka's sasl.mechanism: PLAIN, SCRAM-SHA-256 or
	// SCRAM-SHA-512. Kafka's default, GSSAPI (Kerberos), is not supported,
	// so a SASL protocol requires it to be set. It must be empty for
	// PLAINTEXT and SSL.
	Mechanism string

	// Username is the username option of sasl.jaas.config (PlainLoginModule
	// or ScramLoginModule). Required for SASL protocols; no default.
	Username string

	// Password is the password option of sasl.jaas.config. Required for
	// SASL protocols; no default. Never printed.
	Password string

	// CAFile mirrors ssl.truststore.location with ssl.truststore.type=PEM:
	// a file of PEM certificates the broker's certificate must chain to.
	// Empty (Kafka's default) trusts the system's root certificates.
	CAFile string

	// CertFile mirrors ssl.keystore.location with ssl.keystore.type=PEM: the
	// client's PEM certificate chain for mutual TLS. It may be the same file
	// as KeyFile, as Kafka's PEM keystore file holds both. Default none.
	CertFile string

	// KeyFile is the PEM private key of CertFile (unencrypted; Kafka's
	// ssl.key.password for encrypted keys is not supported). Default none.
	KeyFile string

	// CAPEM mirrors ssl.truststore.certificates: inline PEM certificates, an
	// alternative to CAFile. Default none.
	CAPEM string

	// CertPEM mirrors ssl.keystore.certificate.chain: an inline PEM client
	// certificate chain, an alternative to CertFile. Default none.
	CertPEM string

	// KeyPEM mirrors ssl.keystore.key: the inline unencrypted PEM private key
	// of CertPEM. Default none. Never printed.
	KeyPEM string

	// InsecureSkipVerify turns off all verification of the broker's
	// certificate (chain and host name). Kafka has no such setting; use it
	// only against throwaway test clusters. Default false.
	InsecureSkipVerify bool

	// SkipHostnameVerification mirrors ssl.endpoint.identification.algorithm
	// set to the empty string: the broker's certificate chain is still
	// verified against the trusted certificates, but not its host name.
	// Default false, i.e. Kafka's default "https" (host name verified).
	SkipHostnameVerification bool

	// ServerName, if set, is the host name the broker certificates are
	// verified against (and sent as TLS SNI) instead of each broker's
	// dialled host. Kafka has no such setting. Default: the dialled host.
	ServerName string
}

// protocol returns the upper-cased protocol with the PLAINTEXT default.
func (s Security) protocol() string {
	p := strings.ToUpper(strings.TrimSpace(s.Protocol))
	if p == "" {
		return ProtocolPlaintext
	}
	return p
}

func (s Security) mechanism() string {
	return strings.ToUpper(strings.TrimSpace(s.Mechanism))
}

// UsesTLS reports whether the protocol is SSL or SASL_SSL.
func (s Security) UsesTLS() bool {
	p := s.protocol()
	return p == ProtocolSSL || p == ProtocolSASLSSL
}

// UsesSASL reports whether the protocol is SASL_PLAINTEXT or SASL_SSL.
func (s Security) UsesSASL() bool {
	p := s.protocol()
	return p == ProtocolSASLPlaintext || p == ProtocolSASLSSL
}

// Validate checks the settings without reading any file.
func (s Security) Validate() error {
	p := s.protocol()
	if !contains(protocols, p) {
		return fmt.Errorf("security.protocol %q is not supported; allowed values: %s",
			s.Protocol, strings.Join(protocols, ", "))
	}
	m := s.mechanism()
	if m != "" && !contains(mechanisms, m) {
		return fmt.Errorf("sasl.mechanism %q is not supported; allowed values: %s",
			s.Mechanism, strings.Join(mechanisms, ", "))
	}
	if s.UsesSASL() {
		if m == "" {
			return fmt.Errorf("security.protocol %s needs sasl.mechanism (%s); Kafka's default GSSAPI is not supported",
				p, strings.Join(mechanisms, ", "))
		}
		if s.Username == "" {
			return fmt.Errorf("security.protocol %s needs a SASL username", p)
		}
		if s.Password == "" {
			return fmt.Errorf("security.protocol %s needs a SASL password (user %q has none)", p, s.Username)
		}
	} else {
		if m != "" {
			return fmt.Errorf("sasl.mechanism %s is set but security.protocol is %s; use SASL_PLAINTEXT or SASL_SSL", m, p)
		}
		if s.Username != "" || s.Password != "" {
			return fmt.Errorf("SASL credentials are set but security.protocol is %s; use SASL_PLAINTEXT or SASL_SSL", p)
		}
	}
	if !s.UsesTLS() {
		var set []string
		for _, f := range []struct {
			name string
			on   bool
		}{
			{"CA file", s.CAFile != ""}, {"inline CA", s.CAPEM != ""},
			{"client certificate file", s.CertFile != ""}, {"client key file", s.KeyFile != ""},
			{"inline client certificate", s.CertPEM != ""}, {"inline client key", s.KeyPEM != ""},
			{"insecure-skip-verify", s.InsecureSkipVerify},
			{"hostname verification off", s.SkipHostnameVerification},
			{"TLS server name", s.ServerName != ""},
		} {
			if f.on {
				set = append(set, f.name)
			}
		}
		if len(set) > 0 {
			return fmt.Errorf("TLS settings (%s) are set but security.protocol is %s; use SSL or SASL_SSL",
				strings.Join(set, ", "), p)
		}
		return nil
	}
	if s.CAFile != "" && s.CAPEM != "" {
		return errors.New("both a CA file (ssl.truststore.location) and inline CA certificates (ssl.truststore.certificates) are set; use one")
	}
	if s.CertFile != "" && s.CertPEM != "" {
		return errors.New("both a client certificate file (ssl.keystore.location) and an inline chain (ssl.keystore.certificate.chain) are set; use one")
	}
	if s.KeyFile != "" && s.KeyPEM != "" {
		return errors.New("both a client key file (ssl.keystore.location) and an inline key (ssl.keystore.key) are set; use one")
	}
	hasCert := s.CertFile != "" || s.CertPEM != ""
	hasKey := s.KeyFile != "" || s.KeyPEM != ""
	if hasCert != hasKey {
		return errors.New("a client certificate needs its private key and vice versa (set both, or neither)")
	}
	return nil
}

// TLSConfig returns the TLS configuration for SSL and SASL_SSL (nil, nil for
// the other protocols): TLS 1.2 or newer, trusting CAFile/CAPEM (else the
// system roots), presenting CertFile+KeyFile or CertPEM+KeyPEM if set.
// Errors name the file that could not be used, never its contents.
func (s Security) TLSConfig() (*tls.Config, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if !s.UsesTLS() {
		return nil, nil
	}
	cfg := &tls.Config{
		MinVersion:         tls.VersionTLS12,
		ServerName:         s.ServerName,
		InsecureSkipVerify: s.InsecureSkipVerify, //nolint:gosec // explicit opt-in
	}
	switch {
	case s.CAFile != "":
		data, err := os.ReadFile(s.CAFile)
		if err != nil {
			return nil, fmt.Errorf("CA file: %w", err)
		}
		if cfg.RootCAs, err = certPool(data); err != nil {
			return nil, fmt.Errorf("CA file %s: %w", s.CAFile, err)
		}
	case s.CAPEM != "":
		var err error
		if cfg.RootCAs, err = certPool([]byte(s.CAPEM)); err != nil {
			return nil, fmt.Errorf("inline CA certificates (ssl.truststore.certificates): %w", err)
		}
	}
	if s.CertFile != "" || s.CertPEM != "" {
		cert, err := s.clientCertificate()
		if err != nil {
			return nil, err
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	if s.SkipHostnameVerification && !s.InsecureSkipVerify {
		// Go verifies the host name as part of chain verification, so turn
		// its verification off and redo the chain part without the name.
		cfg.InsecureSkipVerify = true //nolint:gosec // chain verified below
		roots := cfg.RootCAs
		cfg.VerifyConnection = func(cs tls.ConnectionState) error {
			return verifyChainOnly(cs, roots)
		}
	}
	return cfg, nil
}

// clientCertificate loads the client certificate chain and its key from
// files or inline PEM (Validate has checked that exactly one of each is set).
func (s Security) clientCertificate() (tls.Certificate, error) {
	var certData, keyData []byte
	var certName, keyName string
	var err error
	if s.CertFile != "" {
		certName = "client certificate file " + s.CertFile
		if certData, err = os.ReadFile(s.CertFile); err != nil {
			return tls.Certificate{}, fmt.Errorf("client certificate file: %w", err)
		}
	} else {
		certName = "inline client certificate chain (ssl.keystore.certificate.chain)"
		certData = []byte(s.CertPEM)
	}
	switch {
	case s.KeyFile != "" && s.KeyFile == s.CertFile:
		keyName, keyData = "client key file "+s.KeyFile, certData
	case s.KeyFile != "":
		keyName = "client key file " + s.KeyFile
		if keyData, err = os.ReadFile(s.KeyFile); err != nil {
			return tls.Certificate{}, fmt.Errorf("client key file: %w", err)
		}
	default:
		keyName, keyData = "inline client key (ssl.keystore.key)", []byte(s.KeyPEM)
	}
	return keyPair(certData, keyData, certName, keyName)
}

// verifyChainOnly verifies the peer's certificate chain against roots (the
// system roots when nil) for server authentication, ignoring its host name.
func verifyChainOnly(cs tls.ConnectionState, roots *x509.CertPool) error {
	if len(cs.PeerCertificates) == 0 {
		return errors.New("tls: broker presented no certificate")
	}
	opts := x509.VerifyOptions{
		Roots:         roots,
		Intermediates: x509.NewCertPool(),
		KeyUsages:     []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, c := range cs.PeerCertificates[1:] {
		opts.Intermediates.AddCert(c)
	}
	_, err := cs.PeerCertificates[0].Verify(opts)
	return err
}

// certPool parses every CERTIFICATE block of PEM data; it fails when there
// is none or one does not parse.
func certPool(data []byte) (*x509.CertPool, error) {
	pool := x509.NewCertPool()
	n := 0
	for rest := data; ; {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			break
		}
		if b.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			return nil, fmt.Errorf("certificate %d is invalid: %w", n+1, err)
		}
		pool.AddCert(c)
		n++
	}
	if n == 0 {
		return nil, errors.New("no PEM certificate found")
	}
	return pool, nil
}

// keyPair builds the client certificate; certName and keyName describe
// where the data came from for error messages.
func keyPair(certData, keyData []byte, certName, keyName string) (tls.Certificate, error) {
	sawKey := false
	for rest := keyData; ; {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			break
		}
		if b.Type == "ENCRYPTED PRIVATE KEY" || strings.Contains(b.Headers["Proc-Type"], "ENCRYPTED") {
			return tls.Certificate{}, fmt.Errorf("%s: the private key is encrypted; encrypted keys (ssl.key.password) are not supported, decrypt it first (e.g. openssl pkey -in key.pem -out key-plain.pem)", keyName)
		}
		if strings.HasSuffix(b.Type, "PRIVATE KEY") {
			sawKey = true
		}
	}
	if !sawKey {
		return tls.Certificate{}, fmt.Errorf("%s: no PEM private key found", keyName)
	}
	if _, err := certPool(certData); err != nil {
		return tls.Certificate{}, fmt.Errorf("%s: %w", certName, err)
	}
	cert, err := tls.X509KeyPair(certData, keyData)
	if err != nil {
		// crypto/tls errors describe the problem, never the key material.
		return tls.Certificate{}, fmt.Errorf("%s with %s: %w", certName, keyName, err)
	}
	return cert, nil
}

// Opts validates s and returns the franz-go options that apply it:
// kgo.DialTLSConfig for SSL and SASL_SSL, kgo.SASL for SASL_PLAINTEXT and
// SASL_SSL. PLAINTEXT returns no options. The result goes in Config.Security.
func (s Security) Opts() ([]kgo.Opt, error) {
	cfg, err := s.TLSConfig()
	if err != nil {
		return nil, err
	}
	var opts []kgo.Opt
	if cfg != nil {
		opts = append(opts, kgo.DialTLSConfig(cfg))
	}
	if s.UsesSASL() {
		switch s.mechanism() {
		case MechanismPlain:
			opts = append(opts, kgo.SASL(plain.Auth{User: s.Username, Pass: s.Password}.AsMechanism()))
		case MechanismScramSHA256:
			opts = append(opts, kgo.SASL(scram.Auth{User: s.Username, Pass: s.Password}.AsSha256Mechanism()))
		case MechanismScramSHA512:
			opts = append(opts, kgo.SASL(scram.Auth{User: s.Username, Pass: s.Password}.AsSha512Mechanism()))
		}
	}
	return opts, nil
}

// Describe summarizes s for logs without secrets, e.g.
// "SASL_SSL with SCRAM-SHA-512 as user alice, CA /etc/kafka/ca.pem".
func (s Security) Describe() string {
	var b strings.Builder
	b.WriteString(s.protocol())
	if s.UsesSASL() {
		if m := s.mechanism(); m != "" {
			b.WriteString(" with " + m)
		}
		if s.Username != "" {
			b.WriteString(" as user " + s.Username)
		}
	}
	if s.UsesTLS() {
		switch {
		case s.CAFile != "":
			b.WriteString(", CA " + s.CAFile)
		case s.CAPEM != "":
			b.WriteString(", inline CA")
		default:
			b.WriteString(", system CAs")
		}
		switch {
		case s.CertFile != "":
			b.WriteString(", client certificate " + s.CertFile)
		case s.CertPEM != "":
			b.WriteString(", inline client certificate")
		}
		if s.ServerName != "" {
			b.WriteString(", server name " + s.ServerName)
		}
		switch {
		case s.InsecureSkipVerify:
			b.WriteString(", certificate verification DISABLED")
		case s.SkipHostnameVerification:
			b.WriteString(", host name verification off")
		}
	}
	return b.String()
}

// Redacted returns a copy of s with the password and inline private key
// replaced by "[redacted]" (when set).
func (s Security) Redacted() Security {
	if s.Password != "" {
		s.Password = redacted
	}
	if s.KeyPEM != "" {
		s.KeyPEM = redacted
	}
	return s
}

// securityView has Security's fields without its methods, so that printing
// it does not recurse; only ever filled from Redacted.
type securityView struct {
	Protocol                 string `json:"protocol,omitempty" yaml:"protocol,omitempty"`
	Mechanism                string `json:"mechanism,omitempty" yaml:"mechanism,omitempty"`
	Username                 string `json:"username,omitempty" yaml:"username,omitempty"`
	Password                 string `json:"password,omitempty" yaml:"password,omitempty"`
	CAFile                   string `json:"caFile,omitempty" yaml:"caFile,omitempty"`
	CertFile                 string `json:"certFile,omitempty" yaml:"certFile,omitempty"`
	KeyFile                  string `json:"keyFile,omitempty" yaml:"keyFile,omitempty"`
	CAPEM                    string `json:"caPEM,omitempty" yaml:"caPEM,omitempty"`
	CertPEM                  string `json:"certPEM,omitempty" yaml:"certPEM,omitempty"`
	KeyPEM                   string `json:"keyPEM,omitempty" yaml:"keyPEM,omitempty"`
	InsecureSkipVerify       bool   `json:"insecureSkipVerify,omitempty" yaml:"insecureSkipVerify,omitempty"`
	SkipHostnameVerification bool   `json:"skipHostnameVerification,omitempty" yaml:"skipHostnameVerification,omitempty"`
	ServerName               string `json:"serverName,omitempty" yaml:"serverName,omitempty"`
}

func (s Security) view() securityView { return securityView(s.Redacted()) }

// Format makes every fmt verb print the redacted fields: %v, %+v and %s
// print String, %#v prints GoString.
func (s Security) Format(f fmt.State, verb rune) {
	switch {
	case verb == 'v' && f.Flag('#'):
		_, _ = io.WriteString(f, s.GoString())
	case verb == 'v' || verb == 's':
		_, _ = io.WriteString(f, s.String())
	default:
		fmt.Fprintf(f, fmt.FormatString(f, verb), s.view())
	}
}

// String prints the fields with secrets redacted.
func (s Security) String() string { return fmt.Sprintf("%+v", s.view()) }

// GoString prints the fields with secrets redacted (fmt's %#v).
func (s Security) GoString() string {
	return "cluster.Security" + strings.TrimPrefix(fmt.Sprintf("%#v", s.view()), "cluster.securityView")
}

// MarshalJSON encodes the fields with secrets redacted.
func (s Security) MarshalJSON() ([]byte, error) { return json.Marshal(s.view()) }

// MarshalYAML encodes the fields with secrets redacted (gopkg.in/yaml.v3).
func (s Security) MarshalYAML() (any, error) { return s.view(), nil }

// LogValue logs the secret-free description (log/slog).
func (s Security) LogValue() slog.Value { return slog.StringValue(s.Describe()) }

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// ---------------------------------------------------------------- properties

// ClientProperties is what LoadClientProperties read from a Kafka client
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
	data, err := os.ReadFile(path)
	if err != nil {
		return cp, fmt.Errorf("client properties: %w", err)
	}
	props, err := parseProperties(data)
	if err != nil {
		return cp, fmt.Errorf("client properties %s: %w", path, err)
	}
	cp, err = clientPropertiesFrom(props)
	if err != nil {
		return ClientProperties{}, fmt.Errorf("client properties %s: %w", path, err)
	}
	return cp, nil
}

// property is one key=value pair and the line it starts on.
type property struct {
	key, value string
	line       int
}

// ssl.* and sasl.* keys that do not change security semantics for the
// mechanisms and store types restorebench supports (Kafka ignores them or
// they concern only GSSAPI/OAUTHBEARER, which are rejected anyway).
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

func clientPropertiesFrom(props []property) (ClientProperties, error) {
	var cp ClientProperties
	// Last occurrence wins, as in java.util.Properties.
	m := map[string]property{}
	for _, p := range props {
		m[p.key] = p
	}
	sec := &cp.Security

	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)

	var truststoreTypeSet, keystoreTypeSet bool
	for _, k := range keys {
		p := m[k]
		v := p.value
		at := fmt.Sprintf("line %d: %s", p.line, k)
		switch k {
		case "bootstrap.servers":
			bs, err := parseBootstrap(v)
			if err != nil {
				return cp, fmt.Errorf("%s: %w", at, err)
			}
			cp.Brokers = bs
		case "security.protocol":
			u := strings.ToUpper(v)
			if !contains(protocols, u) {
				return cp, fmt.Errorf("%s: %q is not supported; allowed values: %s", at, v, strings.Join(protocols, ", "))
			}
			sec.Protocol = u
		case "sasl.mechanism":
			if !contains(mechanisms, v) {
				return cp, fmt.Errorf("%s: %q is not supported; allowed values: %s", at, v, strings.Join(mechanisms, ", "))
			}
			sec.Mechanism = v
		case "sasl.jaas.config":
			// Handled below, once sasl.mechanism is known.
		case "ssl.truststore.type":
			if !strings.EqualFold(v, "PEM") {
				return cp, fmt.Errorf("%s: %q is not supported; only PEM trust stores are (convert a JKS/PKCS12 store with keytool and openssl)", at, v)
			}
			truststoreTypeSet = true
		case "ssl.keystore.type":
			if !strings.EqualFold(v, "PEM") {
				return cp, fmt.Errorf("%s: %q is not supported; only PEM key stores are (convert a JKS/PKCS12 store with keytool and openssl)", at, v)
			}
			keystoreTypeSet = true
		case "ssl.truststore.location":
			sec.CAFile = v
		case "ssl.truststore.certificates":
			sec.CAPEM = v
		case "ssl.keystore.location":
			// A PEM key store file holds the certificate chain and the key.
			sec.CertFile, sec.KeyFile = v, v
		case "ssl.keystore.certificate.chain":
			sec.CertPEM = v
		case "ssl.keystore.key":
			sec.KeyPEM = v
		case "ssl.key.password":
			if v != "" {
				return cp, fmt.Errorf("%s: encrypted private keys are not supported; decrypt the key (e.g. openssl pkey) and remove this setting", at)
			}
		case "ssl.keystore.password", "ssl.truststore.password":
			if v != "" {
				return cp, fmt.Errorf("%s: store passwords are not supported; only unencrypted PEM stores are (remove this setting)", at)
			}
		case "ssl.endpoint.identification.algorithm":
			switch strings.ToLower(v) {
			case "https":
				sec.SkipHostnameVerification = false
			case "":
				sec.SkipHostnameVerification = true
			default:
				return cp, fmt.Errorf("%s: %q is not supported; allowed values: https (default) or empty (no host name verification)", at, v)
			}
		case "ssl.protocol":
			switch v {
			case "TLSv1.2", "TLSv1.3", "TLS":
				// Go negotiates TLS 1.2 or 1.3, as Kafka does by default.
			default:
				return cp, fmt.Errorf("%s: %q is not supported; restorebench uses TLS 1.2 or 1.3 (allowed: TLSv1.2, TLSv1.3, TLS)", at, v)
			}
		case "ssl.enabled.protocols":
			got := map[string]bool{}
			for _, f := range strings.Split(v, ",") {
				if f = strings.TrimSpace(f); f != "" {
					got[f] = true
				}
			}
			if len(got) != 2 || !got["TLSv1.2"] || !got["TLSv1.3"] {
				return cp, fmt.Errorf("%s: %q is not supported; restorebench always enables TLSv1.2,TLSv1.3 (Kafka's default)", at, v)
			}
		case "ssl.cipher.suites", "ssl.provider", "ssl.engine.factory.class",
			"sasl.login.class", "sasl.login.callback.handler.class", "sasl.client.callback.handler.class":
			if v != "" {
				return cp, fmt.Errorf("%s: is not supported (remove it to use the defaults)", at)
			}
		case "ssl.keymanager.algorithm", "ssl.trustmanager.algorithm":
			if v != "" && v != "SunX509" && v != "PKIX" {
				return cp, fmt.Errorf("%s: %q is not supported; only the defaults (SunX509, PKIX) are", at, v)
			}
			cp.Ignored = append(cp.Ignored, k)
		default:
			if strings.HasPrefix(k, "ssl.") || strings.HasPrefix(k, "sasl.") {
				if ignoredSecurityKeys[k] || strings.HasPrefix(k, "sasl.oauthbearer.") {
					cp.Ignored = append(cp.Ignored, k)
					continue
				}
				return cp, fmt.Errorf("%s: is not supported by restorebench (supported: security.protocol, sasl.mechanism, sasl.jaas.config and PEM ssl.truststore.*/ssl.keystore.* settings)", at)
			}
			cp.Ignored = append(cp.Ignored, k)
		}
	}

	// Kafka's default store type is JKS: a store file without an explicit
	// type is accepted only if it actually holds PEM.
	if sec.CAFile != "" && !truststoreTypeSet {
		if err := requirePEMFile(sec.CAFile, "ssl.truststore.location", "ssl.truststore.type"); err != nil {
			return cp, err
		}
	}
	if sec.CertFile != "" && !keystoreTypeSet {
		if err := requirePEMFile(sec.CertFile, "ssl.keystore.location", "ssl.keystore.type"); err != nil {
			return cp, err
		}
	}
	if sec.CAFile != "" && sec.CAPEM != "" {
		return cp, errors.New("ssl.truststore.location and ssl.truststore.certificates are both set; use one")
	}
	if sec.CertFile != "" && (sec.CertPEM != "" || sec.KeyPEM != "") {
		return cp, errors.New("ssl.keystore.location and ssl.keystore.certificate.chain/ssl.keystore.key are both set; use one")
	}
	if (sec.CertPEM != "") != (sec.KeyPEM != "") {
		return cp, errors.New("ssl.keystore.certificate.chain and ssl.keystore.key must be set together")
	}

	// Kafka ignores ssl.* without TLS. Host name verification off is common
	// boilerplate in SASL_PLAINTEXT files, so it is ignored as well; other
	// TLS settings without TLS are left for Security.Validate to reject.
	if sec.SkipHostnameVerification && !sec.UsesTLS() {
		sec.SkipHostnameVerification = false
		cp.Ignored = append(cp.Ignored, "ssl.endpoint.identification.algorithm")
		sort.Strings(cp.Ignored)
	}

	if p, ok := m["sasl.jaas.config"]; ok {
		jc, err := parseJAAS(p.value)
		if err != nil {
			return cp, fmt.Errorf("line %d: sasl.jaas.config: %w", p.line, err)
		}
		switch jc.module {
		case plainLoginModule:
			if sec.Mechanism != "" && sec.Mechanism != MechanismPlain {
				return cp, fmt.Errorf("line %d: sasl.jaas.config uses PlainLoginModule but sasl.mechanism is %s (use ScramLoginModule)", p.line, sec.Mechanism)
			}
		case scramLoginModule:
			if sec.Mechanism != "" && sec.Mechanism != MechanismScramSHA256 && sec.Mechanism != MechanismScramSHA512 {
				return cp, fmt.Errorf("line %d: sasl.jaas.config uses ScramLoginModule but sasl.mechanism is %s (use PlainLoginModule)", p.line, sec.Mechanism)
			}
		}
		sec.Username, sec.Password = jc.username, jc.password
	}
	// Without sasl.jaas.config (Kafka would fall back to the JVM's
	// java.security.auth.login.config file) the credentials stay empty for
	// the caller to fill in; Security.Opts insists on them.
	return cp, nil
}

// requirePEMFile checks that a store file given without its type is PEM.
func requirePEMFile(path, locKey, typeKey string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("%s: %w", locKey, err)
	}
	if !bytes.Contains(data, []byte("-----BEGIN ")) {
		return fmt.Errorf("%s: %s is not a PEM file and %s is not set (Kafka's default is JKS); restorebench reads only PEM stores: convert it and set %s=PEM",
			locKey, path, typeKey, typeKey)
	}
	return nil
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

// parseProperties parses Java .properties syntax: "key=value", "key: value"
// or "key value"; lines whose first non-blank character is # or ! are
// comments; a line ending in an odd number of backslashes continues on the
// next (whose leading blanks are dropped); backslash escapes (\t \n \r \f
// \uXXXX, \x for any other x) are decoded. Keys and values are trimmed.
// The text is UTF-8, or ISO-8859-1 when it is not valid UTF-8.
// Errors never quote the text.
func parseProperties(data []byte) ([]property, error) {
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
	var out []property
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
		out = append(out, property{key: k, value: v, line: start})
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
			b.WriteRune(rune(r))
			i += 4
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String(), nil
}

// ---------------------------------------------------------------- JAAS

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
