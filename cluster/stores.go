package cluster

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"strings"

	keystore "github.com/pavlo-v-chernykh/keystore-go/v4"
	pkcs12 "software.sslmate.com/src/go-pkcs12"

	"github.com/restorebench/restorebench/internal/boundedread"
)

// Store types: Kafka's ssl.truststore.type and ssl.keystore.type values
// restorebench reads (Kafka's default, for a store file, is JKS).
const (
	StorePEM    = "PEM"
	StoreJKS    = "JKS"
	StorePKCS12 = "PKCS12"
)

var storeTypes = []string{StorePEM, StoreJKS, StorePKCS12}

// storeType is t upper-cased, PEM when empty.
func storeType(t string) string {
	u := strings.ToUpper(strings.TrimSpace(t))
	if u == "" {
		return StorePEM
	}
	return u
}

// isJavaStore reports whether t names a JKS or PKCS12 store.
func isJavaStore(t string) bool {
	u := storeType(t)
	return u == StoreJKS || u == StorePKCS12
}

// readTrustStore returns the trusted certificates of a JKS or PKCS12 trust
// store, as Java's trust manager takes them: its trusted certificate
// entries. Errors name the file, never the password.
func readTrustStore(path, typ, password string) (*x509.CertPool, error) {
	data, err := boundedread.ReadFile(path, boundedread.Security)
	if err != nil {
		return nil, fmt.Errorf("trust store: %w", err)
	}
	var certs []*x509.Certificate
	switch storeType(typ) {
	case StorePKCS12:
		if certs, err = pkcs12.DecodeTrustStore(data, password); err != nil {
			return nil, fmt.Errorf("PKCS12 trust store %s: %v", path, err)
		}
	case StoreJKS:
		if certs, err = jksTrusted(data, password); err != nil {
			return nil, fmt.Errorf("JKS trust store %s: %v", path, err)
		}
	}
	if len(certs) == 0 {
		return nil, fmt.Errorf("%s trust store %s holds no trusted certificate", storeType(typ), path)
	}
	pool := x509.NewCertPool()
	for _, c := range certs {
		pool.AddCert(c)
	}
	return pool, nil
}

// jksTrusted parses the trusted certificate entries of a JKS store.
func jksTrusted(data []byte, password string) ([]*x509.Certificate, error) {
	ks := keystore.New()
	if err := ks.Load(bytes.NewReader(data), []byte(password)); err != nil {
		return nil, jksError(err)
	}
	var certs []*x509.Certificate
	for _, alias := range ks.Aliases() {
		if !ks.IsTrustedCertificateEntry(alias) {
			continue
		}
		e, err := ks.GetTrustedCertificateEntry(alias)
		if err != nil {
			return nil, jksError(err)
		}
		c, err := x509.ParseCertificate(e.Certificate.Content)
		if err != nil {
			return nil, fmt.Errorf("entry %s: %v", alias, err)
		}
		certs = append(certs, c)
	}
	return certs, nil
}

// readKeyStore returns the client certificate of a JKS or PKCS12 key
// store: its one private key entry with its chain. keyPassword
// (ssl.key.password) defaults to the store's password, as in Kafka.
func readKeyStore(path, typ, storePassword, keyPassword string) (tls.Certificate, error) {
	data, err := boundedread.ReadFile(path, boundedread.Security)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("key store: %w", err)
	}
	if keyPassword == "" {
		keyPassword = storePassword
	}
	var cert tls.Certificate
	switch storeType(typ) {
	case StorePKCS12:
		if keyPassword != storePassword {
			return cert, fmt.Errorf("PKCS12 key store %s: a key password (ssl.key.password) other than the store's is not supported", path)
		}
		key, leaf, chain, err := pkcs12.DecodeChain(data, storePassword)
		if err != nil {
			return cert, fmt.Errorf("PKCS12 key store %s: %v", path, err)
		}
		cert = tls.Certificate{PrivateKey: key, Leaf: leaf, Certificate: [][]byte{leaf.Raw}}
		for _, c := range chain {
			cert.Certificate = append(cert.Certificate, c.Raw)
		}
	case StoreJKS:
		if cert, err = jksKeyPair(data, storePassword, keyPassword); err != nil {
			return cert, fmt.Errorf("JKS key store %s: %v", path, err)
		}
	}
	return cert, nil
}

// jksKeyPair reads the one private key entry of a JKS store.
func jksKeyPair(data []byte, storePassword, keyPassword string) (tls.Certificate, error) {
	ks := keystore.New()
	if err := ks.Load(bytes.NewReader(data), []byte(storePassword)); err != nil {
		return tls.Certificate{}, jksError(err)
	}
	var keys []string
	for _, alias := range ks.Aliases() {
		if ks.IsPrivateKeyEntry(alias) {
			keys = append(keys, alias)
		}
	}
	if len(keys) != 1 {
		return tls.Certificate{}, fmt.Errorf("it holds %d private keys; a client key store holds exactly one", len(keys))
	}
	e, err := ks.GetPrivateKeyEntry(keys[0], []byte(keyPassword))
	if err != nil {
		return tls.Certificate{}, jksError(err)
	}
	key, err := x509.ParsePKCS8PrivateKey(e.PrivateKey)
	if err != nil {
		return tls.Certificate{}, errors.New("its private key does not parse as PKCS#8")
	}
	cert := tls.Certificate{PrivateKey: key}
	for _, c := range e.CertificateChain {
		cert.Certificate = append(cert.Certificate, c.Content)
	}
	if len(cert.Certificate) == 0 {
		return cert, errors.New("its private key has no certificate")
	}
	return cert, nil
}

// jksError says what a JKS decoding error means without its internals.
func jksError(err error) error {
	if strings.Contains(strings.ToLower(err.Error()), "digest") || strings.Contains(strings.ToLower(err.Error()), "password") {
		return errors.New("wrong password (or a corrupt store)")
	}
	return err
}
