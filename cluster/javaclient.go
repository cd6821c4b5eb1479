package cluster

import (
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/restorebench/restorebench/internal/boundedread"
)

// JavaClient is a Security as the properties of a Kafka Java client
// (the Kafka Streams JVMs restorebench starts), split by what may be seen:
// Plain may be written to a config file, recorded in results.json and
// logged; Secret holds what must never be (the SASL password inside
// sasl.jaas.config, a private key, store passwords), for a file only the
// JVM reads and deletes.
type JavaClient struct {
	// Plain: security.protocol, sasl.mechanism, ssl.truststore.type and
	// ssl.truststore.location, ssl.keystore.type and ssl.keystore.location,
	// ssl.endpoint.identification.algorithm, as set.
	Plain map[string]string
	// Secret: sasl.jaas.config, ssl.truststore.certificates,
	// ssl.keystore.certificate.chain and ssl.keystore.key, the store and
	// key passwords, as set; empty for PLAINTEXT and plain TLS with files.
	Secret map[string]string
}

// JavaProperties returns the Kafka client properties that make a Java
// client connect as s does: the same security.protocol and sasl.mechanism,
// a sasl.jaas.config with the same login module and credentials, the same
// trusted CAs (ssl.truststore.*: a PEM file by its absolute path, inline
// PEM as ssl.truststore.certificates; none means the JVM's own CAs, as Go
// trusts the system's) and client certificate (PEM files are read and
// handed over inline, the key as PKCS#8, the only PEM key form Kafka
// reads). Settings Kafka has no property for are errors naming the flag:
// InsecureSkipVerify and ServerName.
func (s Security) JavaProperties() (JavaClient, error) {
	jc := JavaClient{Plain: map[string]string{}, Secret: map[string]string{}}
	if err := s.Validate(); err != nil {
		return jc, err
	}
	jc.Plain["security.protocol"] = s.protocol()
	if s.UsesSASL() {
		jc.Plain["sasl.mechanism"] = s.mechanism()
		jc.Secret["sasl.jaas.config"] = s.jaasConfig()
	}
	if !s.UsesTLS() {
		return jc, nil
	}
	if s.InsecureSkipVerify {
		return jc, errors.New("--tls-insecure-skip-verify has no Kafka client setting, so the Kafka Streams JVMs cannot be " +
			"given it: trust the brokers' CA instead (--tls-ca, or ssl.truststore.* in --command-config)")
	}
	if s.ServerName != "" {
		return jc, errors.New("--tls-server-name has no Kafka client setting, so the Kafka Streams JVMs cannot be given " +
			"it: connect by a name the certificates hold, or turn host name verification off " +
			"(ssl.endpoint.identification.algorithm= in --command-config)")
	}
	if err := s.javaTrust(jc); err != nil {
		return jc, err
	}
	if err := s.javaKeystore(jc); err != nil {
		return jc, err
	}
	if s.SkipHostnameVerification {
		jc.Plain["ssl.endpoint.identification.algorithm"] = ""
	}
	return jc, nil
}

// jaasConfig is the sasl.jaas.config of s's mechanism and credentials,
// the values quoted as Kafka's JaasConfig parser reads them.
func (s Security) jaasConfig() string {
	module := scramLoginModule
	if s.mechanism() == MechanismPlain {
		module = plainLoginModule
	}
	return fmt.Sprintf("%s required username=%s password=%s;", module, jaasQuote(s.Username), jaasQuote(s.Password))
}

// jaasQuote double-quotes v with backslash escapes (java.io.StreamTokenizer,
// which Kafka's JaasConfig uses, undoes them).
func jaasQuote(v string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", `\r`, "\t", `\t`)
	return `"` + r.Replace(v) + `"`
}

// javaTrust sets the ssl.truststore.* properties of s's trusted CAs.
func (s Security) javaTrust(jc JavaClient) error {
	switch {
	case s.CAFile != "":
		abs, err := filepath.Abs(s.CAFile)
		if err != nil {
			return fmt.Errorf("CA file: %w", err)
		}
		jc.Plain["ssl.truststore.type"] = storeType(s.TruststoreType)
		jc.Plain["ssl.truststore.location"] = abs
		if s.TruststorePassword != "" {
			jc.Secret["ssl.truststore.password"] = s.TruststorePassword
		}
	case s.CAPEM != "":
		jc.Plain["ssl.truststore.type"] = "PEM"
		jc.Secret["ssl.truststore.certificates"] = s.CAPEM
	}
	return nil
}

// javaKeystore sets the ssl.keystore.* properties of s's client
// certificate, if any: a JKS or PKCS12 store by its path, with its
// passwords; a PEM chain and its key as PKCS#8, inline.
func (s Security) javaKeystore(jc JavaClient) error {
	if s.CertFile == "" && s.CertPEM == "" {
		return nil
	}
	if isJavaStore(s.KeystoreType) {
		abs, err := filepath.Abs(s.CertFile)
		if err != nil {
			return fmt.Errorf("key store: %w", err)
		}
		jc.Plain["ssl.keystore.type"] = storeType(s.KeystoreType)
		jc.Plain["ssl.keystore.location"] = abs
		for k, v := range map[string]string{"ssl.keystore.password": s.KeystorePassword, "ssl.key.password": s.KeyPassword} {
			if v != "" {
				jc.Secret[k] = v
			}
		}
		return nil
	}
	certData, keyData, err := s.clientPEM()
	if err != nil {
		return err
	}
	key, err := pkcs8PEM(keyData)
	if err != nil {
		return fmt.Errorf("client key: %w", err)
	}
	jc.Plain["ssl.keystore.type"] = "PEM"
	jc.Secret["ssl.keystore.certificate.chain"] = certificatesPEM(certData)
	jc.Secret["ssl.keystore.key"] = key
	return nil
}

// clientPEM reads the client certificate chain and key of s, from files or
// inline, after checking they make a key pair.
func (s Security) clientPEM() (certData, keyData []byte, err error) {
	if _, err := s.clientCertificate(); err != nil {
		return nil, nil, err
	}
	certData, keyData = []byte(s.CertPEM), []byte(s.KeyPEM)
	if s.CertFile != "" {
		if certData, err = boundedread.ReadFile(s.CertFile, boundedread.Security); err != nil {
			return nil, nil, fmt.Errorf("client certificate file: %w", err)
		}
	}
	if s.KeyFile != "" {
		if keyData, err = boundedread.ReadFile(s.KeyFile, boundedread.Security); err != nil {
			return nil, nil, fmt.Errorf("client key file: %w", err)
		}
	}
	return certData, keyData, nil
}

// certificatesPEM keeps only the CERTIFICATE blocks of data (a PEM key
// store file holds the key too), re-encoded, each once: Java refuses a
// key's chain that holds a certificate twice ("Certificate chain is not
// valid"), as a bundle exported with its trusted CA often does.
func certificatesPEM(data []byte) string {
	var b strings.Builder
	seen := map[string]bool{}
	for rest := data; ; {
		var blk *pem.Block
		if blk, rest = pem.Decode(rest); blk == nil {
			break
		}
		if blk.Type == "CERTIFICATE" && !seen[string(blk.Bytes)] {
			seen[string(blk.Bytes)] = true
			b.Write(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: blk.Bytes}))
		}
	}
	return b.String()
}

// pkcs8PEM finds the private key among data's PEM blocks (PKCS#1, SEC 1
// or PKCS#8) and returns it as a PKCS#8 "PRIVATE KEY" block. Errors never
// hold key material.
func pkcs8PEM(data []byte) (string, error) {
	for rest := data; ; {
		var blk *pem.Block
		if blk, rest = pem.Decode(rest); blk == nil {
			return "", errors.New("no PEM private key found")
		}
		var key any
		var err error
		switch blk.Type {
		case "PRIVATE KEY":
			key, err = x509.ParsePKCS8PrivateKey(blk.Bytes)
		case "RSA PRIVATE KEY":
			key, err = x509.ParsePKCS1PrivateKey(blk.Bytes)
		case "EC PRIVATE KEY":
			key, err = x509.ParseECPrivateKey(blk.Bytes)
		default:
			continue
		}
		if err != nil {
			return "", fmt.Errorf("the %s block does not parse", blk.Type)
		}
		der, err := x509.MarshalPKCS8PrivateKey(key)
		if err != nil {
			return "", errors.New("the private key cannot be written as PKCS#8")
		}
		return string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})), nil
	}
}
