package cluster

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/restorebench/restorebench/internal/boundedread"
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

	// CAFile mirrors ssl.truststore.location: a file of PEM certificates
	// (or a JKS or PKCS12 trust store, per TruststoreType) the broker's
	// certificate must chain to. Empty (Kafka's default) trusts the
	// system's root certificates.
	CAFile string

	// TruststoreType mirrors ssl.truststore.type for CAFile: PEM (the
	// default here), JKS or PKCS12.
	TruststoreType string

	// TruststorePassword mirrors ssl.truststore.password: the password of
	// a JKS or PKCS12 CAFile. Default none. Never printed.
	TruststorePassword string

	// CertFile mirrors ssl.keystore.location with ssl.keystore.type=PEM: the
	// client's PEM certificate chain for mutual TLS. It may be the same file
	// as KeyFile, as Kafka's PEM keystore file holds both. Default none.
	CertFile string

	// KeyFile is the PEM private key of CertFile (unencrypted; Kafka's
	// ssl.key.password for encrypted PEM keys is not supported). Default
	// none. With a JKS or PKCS12 KeystoreType it is CertFile.
	KeyFile string

	// KeystoreType mirrors ssl.keystore.type for CertFile: PEM (the
	// default here), JKS or PKCS12 (a store of one private key entry).
	KeystoreType string

	// KeystorePassword mirrors ssl.keystore.password: the password of a
	// JKS or PKCS12 CertFile. Default none. Never printed.
	KeystorePassword string

	// KeyPassword mirrors ssl.key.password: the password of the private
	// key in a JKS or PKCS12 CertFile; default KeystorePassword, as in
	// Kafka. Never printed.
	KeyPassword string

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
		if set := s.tlsSettings(); len(set) > 0 {
			return fmt.Errorf("TLS settings (%s) are set but security.protocol is %s; use SSL or SASL_SSL",
				strings.Join(set, ", "), p)
		}
		return nil
	}
	if s.CAFile != "" && s.CAPEM != "" {
		return errors.New("both a CA file (ssl.truststore.location) and inline CA certificates (ssl.truststore.certificates) are set; use one")
	}
	if err := s.validateStores(); err != nil {
		return err
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

// tlsSettings names the TLS settings s has, for an error when its
// protocol has no TLS.
func (s Security) tlsSettings() []string {
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
		{"store passwords", s.TruststorePassword != "" || s.KeystorePassword != "" || s.KeyPassword != ""},
		{"TLS server name", s.ServerName != ""},
	} {
		if f.on {
			set = append(set, f.name)
		}
	}
	return set
}

// validateStores checks the store types and passwords: a JKS or PKCS12
// store is a file (never inline), passwords belong to such stores only.
func (s Security) validateStores() error {
	for _, st := range []struct{ key, typ string }{{"ssl.truststore.type", s.TruststoreType}, {"ssl.keystore.type", s.KeystoreType}} {
		if !contains(storeTypes, storeType(st.typ)) {
			return fmt.Errorf("%s %q is not supported; allowed values: %s", st.key, st.typ, strings.Join(storeTypes, ", "))
		}
	}
	switch {
	case isJavaStore(s.TruststoreType) && s.CAFile == "":
		return fmt.Errorf("ssl.truststore.type %s needs the store's file (ssl.truststore.location)", storeType(s.TruststoreType))
	case !isJavaStore(s.TruststoreType) && s.TruststorePassword != "":
		return errors.New("ssl.truststore.password is for JKS and PKCS12 trust stores; a PEM one has none")
	case isJavaStore(s.KeystoreType) && (s.CertFile == "" || s.KeyFile != s.CertFile || s.CertPEM != "" || s.KeyPEM != ""):
		return fmt.Errorf("ssl.keystore.type %s needs the store's file (ssl.keystore.location) and nothing else for the "+
			"client certificate", storeType(s.KeystoreType))
	case !isJavaStore(s.KeystoreType) && (s.KeystorePassword != "" || s.KeyPassword != ""):
		return errors.New("ssl.keystore.password and ssl.key.password are for JKS and PKCS12 key stores; encrypted PEM " +
			"keys are not supported (decrypt the key, e.g. openssl pkey)")
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
	case s.CAFile != "" && isJavaStore(s.TruststoreType):
		var err error
		if cfg.RootCAs, err = readTrustStore(s.CAFile, s.TruststoreType, s.TruststorePassword); err != nil {
			return nil, err
		}
	case s.CAFile != "":
		data, err := boundedread.ReadFile(s.CAFile, boundedread.Security)
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
	if isJavaStore(s.KeystoreType) {
		return readKeyStore(s.CertFile, s.KeystoreType, s.KeystorePassword, s.KeyPassword)
	}
	var certData, keyData []byte
	var certName, keyName string
	var err error
	if s.CertFile != "" {
		certName = "client certificate file " + s.CertFile
		if certData, err = boundedread.ReadFile(s.CertFile, boundedread.Security); err != nil {
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
		if keyData, err = boundedread.ReadFile(s.KeyFile, boundedread.Security); err != nil {
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
			return tls.Certificate{}, fmt.Errorf("%s: the private key is encrypted; encrypted keys (ssl.key.password) are not "+
				"supported, decrypt it first (e.g. openssl pkey -in key.pem -out key-plain.pem)", keyName)
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

// Login names who authenticates and how, for errors: "user alice
// (SASL/SCRAM-SHA-512)"; empty without SASL.
func (s Security) Login() string {
	if !s.UsesSASL() {
		return ""
	}
	return fmt.Sprintf("user %s (SASL/%s)", s.Username, s.mechanism())
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

// trustDescription says which CAs s trusts: "trusting CA file
// /etc/kafka/ca.pem", inline ones or the system's.
func (s Security) trustDescription() string {
	switch {
	case s.CAFile != "":
		return "trusting CA file " + s.CAFile
	case s.CAPEM != "":
		return "trusting the inline CA certificates"
	}
	return "trusting the system's CA certificates"
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
		case s.CAFile != "" && isJavaStore(s.TruststoreType):
			b.WriteString(", CA " + s.CAFile + " (" + storeType(s.TruststoreType) + ")")
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

// Redacted returns a copy of s with the passwords and inline private key
// replaced by "[redacted]" (when set).
func (s Security) Redacted() Security {
	for _, p := range []*string{&s.Password, &s.KeyPEM, &s.TruststorePassword, &s.KeystorePassword, &s.KeyPassword} {
		if *p != "" {
			*p = redacted
		}
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
	TruststoreType           string `json:"truststoreType,omitempty" yaml:"truststoreType,omitempty"`
	TruststorePassword       string `json:"truststorePassword,omitempty" yaml:"truststorePassword,omitempty"`
	CertFile                 string `json:"certFile,omitempty" yaml:"certFile,omitempty"`
	KeyFile                  string `json:"keyFile,omitempty" yaml:"keyFile,omitempty"`
	KeystoreType             string `json:"keystoreType,omitempty" yaml:"keystoreType,omitempty"`
	KeystorePassword         string `json:"keystorePassword,omitempty" yaml:"keystorePassword,omitempty"`
	KeyPassword              string `json:"keyPassword,omitempty" yaml:"keyPassword,omitempty"`
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
