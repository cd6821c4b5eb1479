package cluster

import (
	"crypto/ecdsa"
	"crypto/x509"
	"encoding/pem"
	"path/filepath"
	"strings"
	"testing"
)

// TestJavaPropertiesSASL: the JAAS line carries the login module of the
// mechanism and the credentials, quoted so Kafka's parser reads them back,
// and only the secret half holds it.
func TestJavaPropertiesSASL(t *testing.T) {
	for mech, module := range map[string]string{MechanismPlain: plainLoginModule, MechanismScramSHA256: scramLoginModule, MechanismScramSHA512: scramLoginModule} {
		s := Security{Protocol: "sasl_plaintext", Mechanism: mech, Username: "al\"ice", Password: `p"a\ss`}
		jc, err := s.JavaProperties()
		if err != nil {
			t.Fatal(err)
		}
		if jc.Plain["security.protocol"] != ProtocolSASLPlaintext || jc.Plain["sasl.mechanism"] != mech {
			t.Errorf("%s: plain %v", mech, jc.Plain)
		}
		want := module + ` required username="al\"ice" password="p\"a\\ss";`
		if got := jc.Secret["sasl.jaas.config"]; got != want {
			t.Errorf("%s: jaas %q, want %q", mech, got, want)
		}
		// The JAAS line reads back as the same credentials.
		back, err := parseJAAS(jc.Secret["sasl.jaas.config"])
		if err != nil || back.username != s.Username || back.password != s.Password || back.module != module {
			t.Errorf("%s: read back %+v, %v", mech, back, err)
		}
		for k, v := range jc.Plain {
			if strings.Contains(v, "ss") && strings.Contains(v, "p\"a") {
				t.Errorf("%s: plain %s holds the password", mech, k)
			}
		}
	}
}

// TestJavaPropertiesTLS: a CA file by its absolute path; inline CAs and a
// client key pair (SEC 1 here) in the secret half, the key as PKCS#8, the
// only PEM key Kafka reads; hostname verification off as Kafka spells it.
func TestJavaPropertiesTLS(t *testing.T) {
	pki := newTestPKI(t)
	dir := t.TempDir()
	t.Chdir(dir)
	writeFile(t, dir, "ca.pem", pki.caPEM)
	jc, err := Security{Protocol: "SSL", CAFile: "ca.pem", SkipHostnameVerification: true}.JavaProperties()
	if err != nil {
		t.Fatal(err)
	}
	if jc.Plain["ssl.truststore.type"] != "PEM" || jc.Plain["ssl.truststore.location"] != filepath.Join(dir, "ca.pem") ||
		jc.Plain["ssl.endpoint.identification.algorithm"] != "" || len(jc.Secret) != 0 {
		t.Fatalf("CA file: %+v", jc)
	}
	if _, ok := jc.Plain["ssl.endpoint.identification.algorithm"]; !ok {
		t.Fatal("hostname verification off is not set")
	}
	key, err := x509.ParsePKCS8PrivateKey(pemBlock(t, pki.clientKeyPEM).Bytes)
	if err != nil {
		t.Fatal(err)
	}
	ecKey, err := x509.MarshalECPrivateKey(key.(*ecdsa.PrivateKey))
	if err != nil {
		t.Fatal(err)
	}
	sec1 := pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: ecKey})
	chain := string(pki.clientCertPEM) + string(pki.caPEM) + string(pki.caPEM) // the CA twice, as exports have it
	s := Security{Protocol: "SASL_SSL", Mechanism: "PLAIN", Username: "u", Password: "p",
		CAPEM: string(pki.caPEM), CertPEM: chain, KeyPEM: string(sec1)}
	if jc, err = s.JavaProperties(); err != nil {
		t.Fatal(err)
	}
	if jc.Plain["ssl.keystore.type"] != "PEM" || jc.Secret["ssl.truststore.certificates"] != string(pki.caPEM) ||
		jc.Secret["ssl.keystore.certificate.chain"] != string(pki.clientCertPEM)+string(pki.caPEM) {
		t.Fatalf("inline: %+v", jc)
	}
	got := pemBlock(t, []byte(jc.Secret["ssl.keystore.key"]))
	if got.Type != "PRIVATE KEY" {
		t.Fatalf("key block %s, want PRIVATE KEY (PKCS#8)", got.Type)
	}
	if k, err := x509.ParsePKCS8PrivateKey(got.Bytes); err != nil || !k.(*ecdsa.PrivateKey).Equal(key) {
		t.Fatalf("the PKCS#8 key is not the client's: %v", err)
	}
	for k, v := range jc.Plain {
		if strings.Contains(v, "PRIVATE KEY") {
			t.Errorf("plain %s holds the key", k)
		}
	}
}

// TestJavaPropertiesRefusesWhatKafkaCannotSay: no Kafka property skips
// certificate verification or sets the TLS server name.
func TestJavaPropertiesRefusesWhatKafkaCannotSay(t *testing.T) {
	for flag, s := range map[string]Security{
		"--tls-insecure-skip-verify": {Protocol: "SSL", InsecureSkipVerify: true},
		"--tls-server-name":          {Protocol: "SSL", ServerName: "kafka.example.com"},
	} {
		if _, err := s.JavaProperties(); err == nil || !strings.Contains(err.Error(), flag) {
			t.Errorf("%s: err = %v", flag, err)
		}
	}
	jc, err := Security{}.JavaProperties()
	if err != nil || jc.Plain["security.protocol"] != ProtocolPlaintext || len(jc.Secret) != 0 {
		t.Fatalf("plaintext: %+v, %v", jc, err)
	}
}

func pemBlock(t *testing.T, data []byte) *pem.Block {
	t.Helper()
	b, _ := pem.Decode(data)
	if b == nil {
		t.Fatalf("no PEM block in %d bytes", len(data))
	}
	return b
}
