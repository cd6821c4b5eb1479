package cluster

import (
	"bytes"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"strings"
	"testing"
	"time"

	keystore "github.com/pavlo-v-chernykh/keystore-go/v4"
	pkcs12 "software.sslmate.com/src/go-pkcs12"
)

const storePass = "st0re-Pass-9"

// javaStores writes the test PKI's CA as PKCS12 and JKS trust stores and
// the client's key pair as PKCS12 and JKS key stores, as keytool makes
// them (PKCS12 with modern, AES-based encryption).
func javaStores(t *testing.T, p *testPKI) (trustP12, trustJKS, keyP12, keyJKS string) {
	t.Helper()
	ts, err := pkcs12.Modern.EncodeTrustStore([]*x509.Certificate{p.caCert}, storePass)
	if err != nil {
		t.Fatal(err)
	}
	trustP12 = writeFile(t, p.dir, "trust.p12", ts)
	clientPair := mustPair(t, p.clientCertPEM, p.clientKeyPEM)
	leafCert, _ := x509.ParseCertificate(clientPair.Certificate[0])
	ks, err := pkcs12.Modern.Encode(clientPair.PrivateKey, leafCert, []*x509.Certificate{p.caCert}, storePass)
	if err != nil {
		t.Fatal(err)
	}
	keyP12 = writeFile(t, p.dir, "client.p12", ks)
	now := time.Now()
	tj := keystore.New()
	if err := tj.SetTrustedCertificateEntry("ca", keystore.TrustedCertificateEntry{CreationTime: now,
		Certificate: keystore.Certificate{Type: "X509", Content: p.caCert.Raw}}); err != nil {
		t.Fatal(err)
	}
	trustJKS = writeFile(t, p.dir, "trust.jks", storeBytes(t, tj))
	kj := keystore.New()
	der, _ := pem.Decode(p.clientKeyPEM)
	if err := kj.SetPrivateKeyEntry("client", keystore.PrivateKeyEntry{CreationTime: now, PrivateKey: der.Bytes,
		CertificateChain: []keystore.Certificate{{Type: "X509", Content: leafCert.Raw}, {Type: "X509", Content: p.caCert.Raw}}}, []byte(storePass)); err != nil {
		t.Fatal(err)
	}
	keyJKS = writeFile(t, p.dir, "client.jks", storeBytes(t, kj))
	return trustP12, trustJKS, keyP12, keyJKS
}

func storeBytes(t *testing.T, ks keystore.KeyStore) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := ks.Store(&b, []byte(storePass)); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestJavaStoresFromClientProperties: a client properties file with JKS
// or PKCS12 trust and key stores (typed, or an untyped JKS file, Kafka's
// default) gives a TLS configuration that trusts the CA and presents the
// client's certificate, and the Java properties name the stores, their
// passwords only in the secret half.
func TestJavaStoresFromClientProperties(t *testing.T) {
	p := newTestPKI(t)
	trustP12, trustJKS, keyP12, keyJKS := javaStores(t, p)
	pool := x509.NewCertPool()
	pool.AddCert(p.caCert)
	for name, body := range map[string]string{
		"PKCS12":      "ssl.truststore.type=PKCS12\nssl.truststore.location=" + trustP12 + "\nssl.keystore.type=pkcs12\nssl.keystore.location=" + keyP12 + "\n",
		"JKS":         "ssl.truststore.type=JKS\nssl.truststore.location=" + trustJKS + "\nssl.keystore.type=JKS\nssl.keystore.location=" + keyJKS + "\nssl.key.password=" + storePass + "\n",
		"untyped JKS": "ssl.truststore.location=" + trustJKS + "\nssl.keystore.location=" + keyJKS + "\n",
	} {
		t.Run(name, func(t *testing.T) {
			props := "security.protocol=SSL\nssl.truststore.password=" + storePass + "\nssl.keystore.password=" + storePass + "\n" + body
			_, sec, err := LoadClientProperties(writeProps(t, props))
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := sec.TLSConfig()
			if err != nil {
				t.Fatal(err)
			}
			if err, peers := handshake(t, cfg, p.serverCert, pool); err != nil || len(peers) == 0 {
				t.Fatalf("mutual TLS handshake: %v (%d client certificates seen)", err, len(peers))
			}
			if err, _ := handshake(t, cfg, p.untrusted, nil); err == nil {
				t.Error("a certificate of another CA was trusted")
			}
			jc, err := sec.JavaProperties()
			if err != nil {
				t.Fatal(err)
			}
			if jc.Plain["ssl.truststore.type"] != sec.TruststoreType || jc.Plain["ssl.keystore.location"] != sec.CertFile ||
				jc.Secret["ssl.truststore.password"] != storePass || jc.Secret["ssl.keystore.password"] != storePass {
				t.Fatalf("Java properties %+v", jc)
			}
			for _, s := range []string{sec.String(), sec.Describe(), mustJSON(t, sec), strings.Join(mapValues(jc.Plain), " ")} {
				if strings.Contains(s, storePass) {
					t.Errorf("a store password shows: %s", s)
				}
			}
		})
	}
}

// TestJavaStoreErrorsNameTheStore: a wrong store password, a PEM key with
// a password, an unknown store type are errors that name the setting or
// the file, never the password.
func TestJavaStoreErrorsNameTheStore(t *testing.T) {
	p := newTestPKI(t)
	trustP12, trustJKS, _, _ := javaStores(t, p)
	for name, tc := range map[string]struct {
		sec  Security
		want string
	}{
		"PKCS12 wrong password": {Security{Protocol: "SSL", CAFile: trustP12, TruststoreType: "PKCS12", TruststorePassword: "wrong-" + storePass}, trustP12},
		"JKS wrong password":    {Security{Protocol: "SSL", CAFile: trustJKS, TruststoreType: "JKS", TruststorePassword: "wrong-" + storePass}, "wrong password"},
		"PEM key password":      {Security{Protocol: "SSL", CertFile: p.clientCertFile, KeyFile: p.clientKeyFile, KeyPassword: storePass}, "encrypted PEM keys"},
		"unknown type":          {Security{Protocol: "SSL", CAFile: trustJKS, TruststoreType: "BCFKS"}, "ssl.truststore.type"},
		"inline with JKS":       {Security{Protocol: "SSL", CAPEM: string(p.caPEM), TruststoreType: "JKS"}, "ssl.truststore.location"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := tc.sec.TLSConfig()
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), storePass) {
				t.Fatalf("err = %v, want one naming %q and no password", err, tc.want)
			}
		})
	}
}

func mapValues(m map[string]string) []string {
	var out []string
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
