package cluster

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"log/slog"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/restorebench/restorebench/internal/javaprops"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"gopkg.in/yaml.v3"
)

const testSecret = "hunter2-Sup3rSecret"

// ---------------------------------------------------------------- PKI helpers

type testPKI struct {
	dir string

	caCert *x509.Certificate
	caPEM  []byte
	caFile string

	serverCert tls.Certificate // for 127.0.0.1 and localhost, signed by the CA
	wrongName  tls.Certificate // for wrong.example, signed by the CA
	untrusted  tls.Certificate // for 127.0.0.1, signed by another CA

	clientCertPEM, clientKeyPEM   []byte
	clientCertFile, clientKeyFile string
	clientBundleFile              string // chain and key in one file
}

func newKey(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

var serial int64

func certTemplate(cn string) *x509.Certificate {
	serial++
	return &x509.Certificate{
		SerialNumber: big.NewInt(serial),
		Subject:      pkix.Name{CommonName: cn},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
	}
}

func newCA(t *testing.T, cn string) (*x509.Certificate, *ecdsa.PrivateKey, []byte) {
	t.Helper()
	key := newKey(t)
	tmpl := certTemplate(cn)
	tmpl.IsCA = true
	tmpl.BasicConstraintsValid = true
	tmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert, key, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// leaf returns PEM certificate and PKCS#8 key signed by ca.
func leaf(t *testing.T, ca *x509.Certificate, caKey *ecdsa.PrivateKey, cn string, usage x509.ExtKeyUsage, dns []string, ips []net.IP) (certPEM, keyPEM []byte) {
	t.Helper()
	key := newKey(t)
	tmpl := certTemplate(cn)
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	tmpl.ExtKeyUsage = []x509.ExtKeyUsage{usage}
	tmpl.DNSNames, tmpl.IPAddresses = dns, ips
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	pk, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pk})
}

func mustPair(t *testing.T, c, k []byte) tls.Certificate {
	t.Helper()
	p, err := tls.X509KeyPair(c, k)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func writeFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func newTestPKI(t *testing.T) *testPKI {
	t.Helper()
	p := &testPKI{dir: t.TempDir()}
	var caKey *ecdsa.PrivateKey
	p.caCert, caKey, p.caPEM = newCA(t, "restorebench test CA")
	p.caFile = writeFile(t, p.dir, "ca.pem", p.caPEM)
	local := []net.IP{net.ParseIP("127.0.0.1")}
	c, k := leaf(t, p.caCert, caKey, "broker", x509.ExtKeyUsageServerAuth, []string{"localhost"}, local)
	p.serverCert = mustPair(t, c, k)
	c, k = leaf(t, p.caCert, caKey, "wrong", x509.ExtKeyUsageServerAuth, []string{"wrong.example"}, nil)
	p.wrongName = mustPair(t, c, k)
	otherCA, otherKey, _ := newCA(t, "other CA")
	c, k = leaf(t, otherCA, otherKey, "broker", x509.ExtKeyUsageServerAuth, []string{"localhost"}, local)
	p.untrusted = mustPair(t, c, k)
	p.clientCertPEM, p.clientKeyPEM = leaf(t, p.caCert, caKey, "client", x509.ExtKeyUsageClientAuth, nil, nil)
	p.clientCertFile = writeFile(t, p.dir, "client.crt", p.clientCertPEM)
	p.clientKeyFile = writeFile(t, p.dir, "client.key", p.clientKeyPEM)
	p.clientBundleFile = writeFile(t, p.dir, "client-keystore.pem", append(append([]byte{}, p.clientKeyPEM...), p.clientCertPEM...))
	return p
}

// handshake runs one TLS handshake of client against a local server using
// serverCert and requiring a client certificate signed by the test CA when
// clientCAs is set. It returns the client's error and the certificate the
// server saw.
func handshake(t *testing.T, client *tls.Config, serverCert tls.Certificate, clientCAs *x509.CertPool) (error, []*x509.Certificate) {
	t.Helper()
	srvCfg := &tls.Config{Certificates: []tls.Certificate{serverCert}, MinVersion: tls.VersionTLS12}
	if clientCAs != nil {
		srvCfg.ClientCAs = clientCAs
		srvCfg.ClientAuth = tls.RequireAndVerifyClientCert
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", srvCfg)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	type result struct {
		peers []*x509.Certificate
	}
	done := make(chan result, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			done <- result{}
			return
		}
		defer c.Close()
		tc := c.(*tls.Conn)
		_ = tc.SetDeadline(time.Now().Add(5 * time.Second))
		if tc.Handshake() != nil {
			done <- result{}
			return
		}
		done <- result{tc.ConnectionState().PeerCertificates}
	}()
	cfg := client.Clone()
	if cfg.ServerName == "" {
		cfg.ServerName = "127.0.0.1" // as kgo.DialTLSConfig does
	}
	conn, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", ln.Addr().String(), cfg)
	if err == nil {
		// With TLS 1.3 the client learns of a rejected client certificate
		// only on its first read.
		_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
		_, err = conn.Read(make([]byte, 1))
		if err != nil && (strings.Contains(err.Error(), "EOF") || strings.Contains(err.Error(), "timeout")) {
			err = nil
		}
		conn.Close()
	}
	r := <-done
	return err, r.peers
}

func writeProps(t *testing.T, body string) string {
	t.Helper()
	return writeFile(t, t.TempDir(), "client.properties", []byte(body))
}

func TestLoadClientPropertiesMechanisms(t *testing.T) {
	for _, tc := range []struct {
		mech, module string
	}{
		{"PLAIN", "org.apache.kafka.common.security.plain.PlainLoginModule"},
		{"SCRAM-SHA-256", "org.apache.kafka.common.security.scram.ScramLoginModule"},
		{"SCRAM-SHA-512", "org.apache.kafka.common.security.scram.ScramLoginModule"},
	} {
		t.Run(tc.mech, func(t *testing.T) {
			path := writeProps(t, `# as for kafka-topics.sh --command-config
bootstrap.servers=SASL_PLAINTEXT://b1:9094, b2:9094
security.protocol=sasl_plaintext
sasl.mechanism: `+tc.mech+`
sasl.jaas.config=`+tc.module+` required \
    username="alice" \
    password="p@ss \\"quoted\\" w=rd;";
client.id=bench
request.timeout.ms 30000
sasl.kerberos.service.name=kafka
`)
			cp, err := ReadClientProperties(path)
			if err != nil {
				t.Fatal(err)
			}
			if want := []string{"b1:9094", "b2:9094"}; !reflect.DeepEqual(cp.Brokers, want) {
				t.Errorf("brokers %q, want %q", cp.Brokers, want)
			}
			s := cp.Security
			if s.Protocol != "SASL_PLAINTEXT" || s.Mechanism != tc.mech || s.Username != "alice" || s.Password != `p@ss "quoted" w=rd;` {
				t.Errorf("security %+v (password ok: %v)", s, s.Password == `p@ss "quoted" w=rd;`)
			}
			if want := []string{"client.id", "request.timeout.ms", "sasl.kerberos.service.name"}; !reflect.DeepEqual(cp.Ignored, want) {
				t.Errorf("ignored %q, want %q", cp.Ignored, want)
			}
			opts, err := s.Opts()
			if err != nil || len(opts) != 1 {
				t.Fatalf("Opts: %d options, %v", len(opts), err)
			}
			cl, err := kgo.NewClient(append(opts, kgo.SeedBrokers("127.0.0.1:1"))...)
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			if ms, ok := cl.OptValue(kgo.SASL).([]sasl.Mechanism); !ok || len(ms) != 1 || ms[0].Name() != tc.mech {
				t.Errorf("kgo.SASL option: %T %v", cl.OptValue(kgo.SASL), cl.OptValue(kgo.SASL))
			}
			if d := s.Describe(); d != "SASL_PLAINTEXT with "+tc.mech+" as user alice" {
				t.Errorf("Describe %q", d)
			}

			brokers, sec, err := LoadClientProperties(path)
			if err != nil || len(brokers) != 2 || sec != s {
				t.Errorf("LoadClientProperties = %q, %v, %v", brokers, sec, err)
			}
		})
	}
}

func TestLoadClientPropertiesEndpointAlgorithmWithoutTLS(t *testing.T) {
	path := writeProps(t, "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\nssl.endpoint.identification.algorithm=\nclient.id=x\n"+
		"sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" password=\"p\";\n")
	cp, err := ReadClientProperties(path)
	if err != nil {
		t.Fatal(err)
	}
	if cp.Security.SkipHostnameVerification || !reflect.DeepEqual(cp.Ignored, []string{"client.id", "ssl.endpoint.identification.algorithm"}) {
		t.Errorf("security %+v, ignored %q", cp.Security, cp.Ignored)
	}
	if _, err := cp.Security.Opts(); err != nil {
		t.Error(err)
	}
}

func TestLoadClientPropertiesUnquotedJAAS(t *testing.T) {
	path := writeProps(t, "security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\n"+
		"sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule Required username=bob password=s3cret tokenauth=false;\n")
	_, s, err := LoadClientProperties(path)
	if err != nil {
		t.Fatal(err)
	}
	if s.Username != "bob" || s.Password != "s3cret" {
		t.Errorf("got user %q (password ok %v)", s.Username, s.Password == "s3cret")
	}
}

func TestLoadClientPropertiesTLS(t *testing.T) {
	p := newTestPKI(t)
	t.Run("files", func(t *testing.T) {
		path := writeProps(t, "bootstrap.servers=127.0.0.1:9093\nsecurity.protocol=SSL\n"+
			"ssl.truststore.type=PEM\nssl.truststore.location="+p.caFile+"\n"+
			"ssl.keystore.type=pem\nssl.keystore.location="+p.clientBundleFile+"\n"+
			"ssl.endpoint.identification.algorithm=\nssl.protocol=TLSv1.3\nssl.enabled.protocols=TLSv1.2, TLSv1.3\n")
		_, s, err := LoadClientProperties(path)
		if err != nil {
			t.Fatal(err)
		}
		if s.CAFile != p.caFile || s.CertFile != p.clientBundleFile || s.KeyFile != p.clientBundleFile || !s.SkipHostnameVerification || s.InsecureSkipVerify {
			t.Fatalf("security %+v", s)
		}
		cfg, err := s.TLSConfig()
		if err != nil {
			t.Fatal(err)
		}
		if len(cfg.Certificates) != 1 {
			t.Fatalf("%d client certificates", len(cfg.Certificates))
		}
		// Host name not verified, chain verified, client certificate sent.
		pool := x509.NewCertPool()
		pool.AddCert(p.caCert)
		err, peers := handshake(t, cfg, p.wrongName, pool)
		if err != nil || len(peers) != 1 || peers[0].Subject.CommonName != "client" {
			t.Errorf("wrong-name broker with hostname verification off: err %v, peers %d", err, len(peers))
		}
		if err, _ := handshake(t, cfg, p.untrusted, nil); err == nil {
			t.Error("broker certificate from an untrusted CA accepted with hostname verification off")
		}
	})
	t.Run("inline", func(t *testing.T) {
		oneLine := func(b []byte) string { return strings.ReplaceAll(strings.TrimSpace(string(b)), "\n", "\\n\\\n  ") }
		path := writeProps(t, "security.protocol=SSL\n"+
			"ssl.truststore.certificates="+oneLine(p.caPEM)+"\n"+
			"ssl.keystore.certificate.chain="+oneLine(p.clientCertPEM)+"\n"+
			"ssl.keystore.key="+oneLine(p.clientKeyPEM)+"\n"+
			"ssl.endpoint.identification.algorithm=https\n")
		_, s, err := LoadClientProperties(path)
		if err != nil {
			t.Fatal(err)
		}
		if s.CAPEM == "" || s.CertPEM == "" || s.KeyPEM == "" || s.SkipHostnameVerification {
			t.Fatalf("security %+v", s)
		}
		cfg, err := s.TLSConfig()
		if err != nil {
			t.Fatal(err)
		}
		pool := x509.NewCertPool()
		pool.AddCert(p.caCert)
		if err, peers := handshake(t, cfg, p.serverCert, pool); err != nil || len(peers) != 1 {
			t.Errorf("mTLS handshake: %v, %d peer certs", err, len(peers))
		}
		if err, _ := handshake(t, cfg, p.wrongName, nil); err == nil {
			t.Error("wrong host name accepted with ssl.endpoint.identification.algorithm=https")
		}
		if strings.Contains(fmt.Sprintf("%v %+v %#v", s, s, s), "PRIVATE KEY") {
			t.Error("inline private key printed")
		}
	})
	t.Run("untyped PEM store accepted", func(t *testing.T) {
		path := writeProps(t, "security.protocol=SSL\nssl.truststore.location="+p.caFile+"\n")
		if _, _, err := LoadClientProperties(path); err != nil {
			t.Fatal(err)
		}
	})
}

func TestLoadClientPropertiesErrors(t *testing.T) {
	dir := t.TempDir()
	jks := writeFile(t, dir, "truststore.jks", []byte{0xfe, 0xed, 0xfe, 0xed, 0, 0, 0, 2})
	const plainJAAS = "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" password=\"" + testSecret + "\";\n"
	const scramJAAS = "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username=\"u\" password=\"" + testSecret + "\";\n"
	for _, tc := range []struct {
		name, body string
		want       []string
	}{
		{"protocol", "security.protocol=SASL_TLS\n", []string{"security.protocol", "SASL_PLAINTEXT, SASL_SSL"}},
		{"GSSAPI", "security.protocol=SASL_SSL\nsasl.mechanism=GSSAPI\n", []string{"sasl.mechanism", "GSSAPI", "SCRAM-SHA-512"}},
		{"OAUTHBEARER", "security.protocol=SASL_SSL\nsasl.mechanism=OAUTHBEARER\n", []string{"sasl.mechanism", "OAUTHBEARER"}},
		{"BCFKS truststore", "security.protocol=SSL\nssl.truststore.type=BCFKS\nssl.truststore.location=/x.bcfks\n", []string{"ssl.truststore.type", "BCFKS", "PKCS12"}},
		{"missing untyped store", "security.protocol=SSL\nssl.truststore.location=" + jks + ".gone\n", []string{"ssl.truststore.location", jks}},
		{"unknown ssl key", "ssl.something.new=1\n", []string{"ssl.something.new", "not supported"}},
		{"callback handler", "sasl.client.callback.handler.class=com.example.H\n", []string{"sasl.client.callback.handler.class"}},
		{"endpoint algorithm", "ssl.endpoint.identification.algorithm=ldaps\n", []string{"ssl.endpoint.identification.algorithm", "https"}},
		{"old TLS", "ssl.protocol=TLSv1.1\n", []string{"ssl.protocol", "TLSv1.1"}},
		{"cipher suites", "ssl.cipher.suites=TLS_AES_128_GCM_SHA256\n", []string{"ssl.cipher.suites"}},
		{"bad bootstrap", "bootstrap.servers=nohost\n", []string{"bootstrap.servers", "host:port"}},
		{"plain module with scram", "security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-256\n" + plainJAAS, []string{"sasl.jaas.config", "PlainLoginModule", "SCRAM-SHA-256"}},
		{"scram module with plain", "security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\n" + scramJAAS, []string{"sasl.jaas.config", "ScramLoginModule", "PLAIN"}},
		{"kerberos module", "sasl.jaas.config=com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true;\n", []string{"sasl.jaas.config", "Krb5LoginModule", "not supported"}},
		{"both truststores", "security.protocol=SSL\nssl.truststore.type=PEM\nssl.truststore.location=/a\nssl.truststore.certificates=x\n", []string{"ssl.truststore.location", "ssl.truststore.certificates"}},
		{"chain without key", "security.protocol=SSL\nssl.keystore.certificate.chain=x\n", []string{"ssl.keystore.certificate.chain", "ssl.keystore.key"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := LoadClientProperties(writeProps(t, tc.body))
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			if strings.Contains(err.Error(), testSecret) {
				t.Errorf("error %q contains the password", err)
			}
		})
	}
	if _, _, err := LoadClientProperties(filepath.Join(dir, "missing.properties")); err == nil || !strings.Contains(err.Error(), "missing.properties") {
		t.Errorf("missing file: %v", err)
	}
}

func TestJAASErrorsNeverContainSecrets(t *testing.T) {
	const mod = "org.apache.kafka.common.security.plain.PlainLoginModule"
	for _, jaas := range []string{
		mod + ` required username="u" password="` + testSecret + `;`,    // unterminated quote
		mod + ` required username="u" password="` + testSecret + `"`,    // no ';'
		mod + ` required username="u" password=` + testSecret + ` xyz;`, // stray token
		mod + ` required username="u" password=hunter2 Sup3rSecret=x;`,  // unquoted space
		mod + ` required username="u" password "` + testSecret + `";`,   // no '='
		mod + ` required username="u" password="` + testSecret + `"; ` + mod + ` required;`,
		mod + ` username="u" password="` + testSecret + `";`, // no flag
		`password="` + testSecret + `";`,
		testSecret + ` required;`,
		mod + ` required password="` + testSecret + `";`, // no username
		mod + ` required username="u" password="` + testSecret + `" tokenauth=true;`,
	} {
		for _, body := range []string{
			"security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\nsasl.jaas.config=" + jaas + "\n",
			"sasl.jaas.config=" + jaas + "\n",
		} {
			_, s, err := LoadClientProperties(writeProps(t, body))
			if err == nil {
				t.Errorf("no error for %s", jaas)
				continue
			}
			if !strings.Contains(err.Error(), "sasl.jaas.config") {
				t.Errorf("error %q does not name sasl.jaas.config", err)
			}
			for _, leak := range []string{testSecret, "hunter2", "Sup3rSecret", "xyz"} {
				if strings.Contains(err.Error(), leak) {
					t.Errorf("error %q contains %q", err, leak)
				}
			}
			if s.Password != "" {
				t.Errorf("password returned with an error")
			}
		}
	}
}

// ---------------------------------------------------------------- validation

func TestSecurityValidation(t *testing.T) {
	p := newTestPKI(t)
	for _, tc := range []struct {
		name string
		sec  Security
		want []string // substrings of the error; nil = no error
	}{
		{"zero value", Security{}, nil},
		{"plaintext", Security{Protocol: "plaintext"}, nil},
		{"unknown protocol", Security{Protocol: "TLS"}, []string{"security.protocol", `"TLS"`, "PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL"}},
		{"unknown mechanism", Security{Protocol: "SASL_SSL", Mechanism: "GSSAPI", Username: "u", Password: testSecret}, []string{"sasl.mechanism", "GSSAPI", "PLAIN, SCRAM-SHA-256, SCRAM-SHA-512"}},
		{"mechanism without SASL", Security{Mechanism: "PLAIN"}, []string{"sasl.mechanism", "PLAINTEXT", "SASL_PLAINTEXT"}},
		{"mechanism with SSL", Security{Protocol: "SSL", Mechanism: "SCRAM-SHA-256"}, []string{"sasl.mechanism", "SSL"}},
		{"credentials without SASL", Security{Protocol: "SSL", Username: "u", Password: testSecret}, []string{"SASL credentials", "SSL"}},
		{"SASL without mechanism", Security{Protocol: "SASL_PLAINTEXT", Username: "u", Password: testSecret}, []string{"sasl.mechanism", "GSSAPI"}},
		{"SASL without username", Security{Protocol: "SASL_PLAINTEXT", Mechanism: "PLAIN", Password: testSecret}, []string{"username"}},
		{"SASL without password", Security{Protocol: "SASL_SSL", Mechanism: "PLAIN", Username: "u"}, []string{"password"}},
		{"TLS settings on plaintext", Security{Protocol: "SASL_PLAINTEXT", Mechanism: "PLAIN", Username: "u", Password: testSecret, CAFile: p.caFile}, []string{"CA file", "SASL_PLAINTEXT", "SASL_SSL"}},
		{"cert without key", Security{Protocol: "SSL", CertFile: p.clientCertFile}, []string{"private key"}},
		{"missing CA file", Security{Protocol: "SSL", CAFile: filepath.Join(p.dir, "nope.pem")}, []string{"nope.pem"}},
		{"non-PEM CA file", Security{Protocol: "SSL", CAFile: writeFile(t, p.dir, "garbage.pem", []byte("not a certificate "+testSecret))}, []string{"garbage.pem", "no PEM certificate"}},
		{"key file holding no key", Security{Protocol: "SSL", CertFile: p.clientCertFile, KeyFile: p.clientCertFile}, []string{p.clientCertFile, "no PEM private key"}},
		{"mismatched key", Security{Protocol: "SSL", CertFile: p.clientCertFile, KeyFile: writeFile(t, p.dir, "other.key", func() []byte {
			ca, caKey, _ := newCA(t, "x")
			_, k := leaf(t, ca, caKey, "x", x509.ExtKeyUsageClientAuth, nil, nil)
			return k
		}())}, []string{"other.key", "client.crt"}},
		{"encrypted key", Security{Protocol: "SSL", CertFile: p.clientCertFile, KeyFile: writeFile(t, p.dir, "enc.key",
			pem.EncodeToMemory(&pem.Block{Type: "ENCRYPTED PRIVATE KEY", Bytes: []byte(testSecret)}))}, []string{"enc.key", "encrypted"}},
		{"invalid certificate in CA file", Security{Protocol: "SSL", CAFile: writeFile(t, p.dir, "bad-ca.pem",
			pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte(testSecret)}))}, []string{"bad-ca.pem", "certificate 1 is invalid"}},
		{"SASL_SSL full", Security{Protocol: "SASL_SSL", Mechanism: "SCRAM-SHA-512", Username: "u", Password: testSecret,
			CAFile: p.caFile, CertFile: p.clientCertFile, KeyFile: p.clientKeyFile, ServerName: "localhost"}, nil},
		{"cert file with inline key", Security{Protocol: "SSL", CertFile: p.clientCertFile, KeyPEM: string(p.clientKeyPEM)}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts, err := tc.sec.Opts()
			if tc.want == nil {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				want := 0
				if tc.sec.UsesTLS() {
					want++
				}
				if tc.sec.UsesSASL() {
					want++
				}
				if len(opts) != want {
					t.Errorf("%d options, want %d", len(opts), want)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			if strings.Contains(err.Error(), testSecret) || strings.Contains(err.Error(), "BEGIN") {
				t.Errorf("error %q leaks secret or file contents", err)
			}
		})
	}
}

func TestTLSConfigFromPEMFiles(t *testing.T) {
	p := newTestPKI(t)
	s := Security{Protocol: "SSL", CAFile: p.caFile, CertFile: p.clientCertFile, KeyFile: p.clientKeyFile}
	cfg, err := s.TLSConfig()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.MinVersion != tls.VersionTLS12 || cfg.InsecureSkipVerify || cfg.VerifyConnection != nil {
		t.Errorf("MinVersion %x InsecureSkipVerify %v VerifyConnection set %v", cfg.MinVersion, cfg.InsecureSkipVerify, cfg.VerifyConnection != nil)
	}
	// The CA is in RootCAs: a certificate it signed verifies, another does not.
	srv, _ := x509.ParseCertificate(p.serverCert.Certificate[0])
	if _, err := srv.Verify(x509.VerifyOptions{Roots: cfg.RootCAs, DNSName: "localhost"}); err != nil {
		t.Errorf("server certificate does not verify against RootCAs: %v", err)
	}
	other, _ := x509.ParseCertificate(p.untrusted.Certificate[0])
	if _, err := other.Verify(x509.VerifyOptions{Roots: cfg.RootCAs}); err == nil {
		t.Error("certificate of another CA verifies against RootCAs")
	}
	if len(cfg.Certificates) != 1 {
		t.Fatalf("%d client certificates, want 1", len(cfg.Certificates))
	}
	leafCert, _ := x509.ParseCertificate(cfg.Certificates[0].Certificate[0])
	if leafCert.Subject.CommonName != "client" {
		t.Errorf("client certificate CN %q", leafCert.Subject.CommonName)
	}
	pool := x509.NewCertPool()
	pool.AddCert(p.caCert)
	if err, peers := handshake(t, cfg, p.serverCert, pool); err != nil || len(peers) != 1 {
		t.Errorf("mTLS handshake: %v (%d peer certificates)", err, len(peers))
	}
	if err, _ := handshake(t, cfg, p.wrongName, nil); err == nil {
		t.Error("certificate for another host accepted")
	}
	if err, _ := handshake(t, cfg, p.untrusted, nil); err == nil {
		t.Error("certificate of an untrusted CA accepted")
	}

	s.InsecureSkipVerify = true
	cfg, err = s.TLSConfig()
	if err != nil {
		t.Fatal(err)
	}
	if err, _ := handshake(t, cfg, p.untrusted, nil); err != nil {
		t.Errorf("InsecureSkipVerify: %v", err)
	}
	if d := s.Describe(); !strings.Contains(d, "DISABLED") {
		t.Errorf("Describe %q does not warn", d)
	}

	opts, err := (Security{Protocol: "SASL_SSL", Mechanism: "PLAIN", Username: "u", Password: "p", CAFile: p.caFile}).Opts()
	if err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(append(opts, kgo.SeedBrokers("127.0.0.1:1"))...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if c, ok := cl.OptValue(kgo.DialTLSConfig).(*tls.Config); !ok || c.RootCAs == nil || c.MinVersion != tls.VersionTLS12 {
		t.Errorf("DialTLSConfig option: %#v", cl.OptValue(kgo.DialTLSConfig))
	}
	if len(cl.OptValues(kgo.SASL)) == 0 {
		t.Error("no SASL option")
	}
}

// ---------------------------------------------------------------- redaction

func TestPasswordNeverPrinted(t *testing.T) {
	s := Security{Protocol: "SASL_SSL", Mechanism: "SCRAM-SHA-512", Username: "alice", Password: testSecret,
		KeyPEM: "-----BEGIN PRIVATE KEY-----\n" + testSecret + "\n-----END PRIVATE KEY-----\n", CertPEM: "c"}
	js, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	jsPtr, _ := json.Marshal(struct{ S *Security }{&s})
	ym, err := yaml.Marshal(struct{ Sec Security }{s})
	if err != nil {
		t.Fatal(err)
	}
	var logBuf bytes.Buffer
	slog.New(slog.NewTextHandler(&logBuf, nil)).Info("connect", "security", s)
	outs := map[string]string{
		"%v": fmt.Sprintf("%v", s), "%+v": fmt.Sprintf("%+v", s), "%#v": fmt.Sprintf("%#v", s),
		"%s": fmt.Sprintf("%s", s), "%q": fmt.Sprintf("%q", s), "%x": fmt.Sprintf("%x", s), "%d": fmt.Sprintf("%d", s),
		"ptr %+v": fmt.Sprintf("%+v", &s), "nested %+v": fmt.Sprintf("%+v", struct{ Sec Security }{s}),
		"nested %#v": fmt.Sprintf("%#v", struct{ Sec Security }{s}),
		"Sprint":     fmt.Sprint(s), "Println": fmt.Sprintln(s), "json": string(js), "json ptr": string(jsPtr),
		"yaml": string(ym), "slog": logBuf.String(), "Describe": s.Describe(), "String": s.String(), "GoString": s.GoString(),
	}
	for name, out := range outs {
		if strings.Contains(out, testSecret) {
			t.Errorf("%s prints the password: %s", name, out)
		}
		if x := fmt.Sprintf("%x", testSecret); strings.Contains(out, x) {
			t.Errorf("%s prints the password in hex", name)
		}
	}
	for _, name := range []string{"%v", "%+v", "%#v", "json", "yaml"} {
		if !strings.Contains(outs[name], "alice") || !strings.Contains(outs[name], redacted) {
			t.Errorf("%s should show the user and [redacted]: %s", name, outs[name])
		}
	}
	if !strings.HasPrefix(outs["%#v"], "cluster.Security{") {
		t.Errorf("%%#v = %s", outs["%#v"])
	}
	if want := "SASL_SSL with SCRAM-SHA-512 as user alice, system CAs, inline client certificate"; outs["Describe"] != want {
		t.Errorf("Describe = %q, want %q", outs["Describe"], want)
	}
	if r := s.Redacted(); r.Password != redacted || r.KeyPEM != redacted || r.Username != "alice" || s.Password != testSecret {
		t.Errorf("Redacted = %+v / original changed", r)
	}
	if r := (Security{}).Redacted(); r != (Security{}) {
		t.Errorf("Redacted of zero value = %+v", r)
	}
}

// ---------------------------------------------------------------- brokers

func pingWith(t *testing.T, brokers []string, sec Security) error {
	t.Helper()
	opts, err := sec.Opts()
	if err != nil {
		t.Fatalf("Opts(%s): %v", sec.Describe(), err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err = Ping(ctx, Config{Brokers: brokers, ConnectTimeout: 10 * time.Second, Security: opts, Login: sec.Login()})
	return err
}

// TestSecurityAgainstKfake checks SASL (all three mechanisms) and SASL_SSL
// with mutual TLS against the in-process broker.
func TestSecurityAgainstKfake(t *testing.T) {
	p := newTestPKI(t)
	const user = "bench"
	pass := "kfake-" + testSecret
	clientCAs := x509.NewCertPool()
	clientCAs.AddCert(p.caCert)
	for _, useTLS := range []bool{false, true} {
		kopts := []kfake.Opt{kfake.NumBrokers(1), kfake.EnableSASL(),
			kfake.Superuser("PLAIN", user, pass),
			kfake.Superuser("SCRAM-SHA-256", user, pass),
			kfake.Superuser("SCRAM-SHA-512", user, pass)}
		protocol := "SASL_PLAINTEXT"
		if useTLS {
			protocol = "SASL_SSL"
			kopts = append(kopts, kfake.TLS(&tls.Config{
				Certificates: []tls.Certificate{p.serverCert},
				ClientCAs:    clientCAs, ClientAuth: tls.RequireAndVerifyClientCert,
				MinVersion: tls.VersionTLS12,
			}))
		}
		c, err := kfake.NewCluster(kopts...)
		if err != nil {
			t.Fatal(err)
		}
		brokers := c.ListenAddrs()
		for _, mech := range mechanisms {
			t.Run(protocol+"/"+mech, func(t *testing.T) {
				sec := Security{Protocol: protocol, Mechanism: mech, Username: user, Password: pass}
				if useTLS {
					sec.CAFile, sec.CertFile, sec.KeyFile = p.caFile, p.clientCertFile, p.clientKeyFile
				}
				if err := pingWith(t, brokers, sec); err != nil {
					t.Fatalf("%s: %v", sec.Describe(), err)
				}
				sec.Password = "wrong-" + testSecret
				err := pingWith(t, brokers, sec)
				if err == nil {
					t.Fatal("wrong password accepted")
				}
				if strings.Contains(err.Error(), testSecret) {
					t.Errorf("error contains a password: %v", err)
				}
				t.Logf("wrong password: %v", err)
				if want := "authentication failed for user " + user + " (SASL/" + mech + ")"; !strings.Contains(err.Error(), want) {
					t.Errorf("wrong password: %q does not say %q", err, want)
				}
			})
		}
		if useTLS {
			t.Run("SASL_SSL without client certificate", func(t *testing.T) {
				sec := Security{Protocol: protocol, Mechanism: "PLAIN", Username: user, Password: pass, CAFile: p.caFile}
				err := pingWith(t, brokers, sec)
				if err == nil {
					t.Fatal("broker requiring a client certificate accepted none")
				}
				t.Logf("without client certificate: %v", err)
			})
		}
		c.Close()
	}
}

// TestSecurityAgainstBroker runs against a real Kafka SASL_PLAINTEXT
// listener, e.g. the one scripts/kafka.sh starts:
//
//	RESTOREBENCH_SASL_BROKERS=127.0.0.1:19094 go test ./cluster -run TestSecurityAgainstBroker
//
// RESTOREBENCH_SASL_USER and RESTOREBENCH_SASL_PASSWORD default to
// restorebench / restorebench-secret. Without the variable it is skipped,
// except in CI (CI=true), where it must run.
func TestSecurityAgainstBroker(t *testing.T) {
	addrs := os.Getenv("RESTOREBENCH_SASL_BROKERS")
	if addrs == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("RESTOREBENCH_SASL_BROKERS is not set; CI must run the SASL test against a real broker (scripts/kafka.sh up, then RESTOREBENCH_SASL_BROKERS=127.0.0.1:19094)")
		}
		t.Skip("RESTOREBENCH_SASL_BROKERS not set (e.g. 127.0.0.1:19094 after scripts/kafka.sh up)")
	}
	brokers, err := ParseBrokers(addrs)
	if err != nil {
		t.Fatal(err)
	}
	user := os.Getenv("RESTOREBENCH_SASL_USER")
	if user == "" {
		user = "restorebench"
	}
	pass := os.Getenv("RESTOREBENCH_SASL_PASSWORD")
	if pass == "" {
		pass = "restorebench-secret"
	}
	wrong := "wrong-" + pass + "-x9"
	for _, mech := range mechanisms {
		t.Run(mech, func(t *testing.T) {
			sec := Security{Protocol: ProtocolSASLPlaintext, Mechanism: mech, Username: user, Password: pass}
			if err := pingWith(t, brokers, sec); err != nil {
				t.Fatalf("%s: %v", sec.Describe(), err)
			}
			sec.Password = wrong
			err := pingWith(t, brokers, sec)
			if err == nil {
				t.Fatalf("%s: wrong password accepted", sec.Describe())
			}
			t.Logf("wrong password: %v", err)
			if want := "authentication failed for user " + user + " (SASL/" + mech + ")"; !strings.Contains(err.Error(), want) {
				t.Errorf("wrong password: %q does not say %q", err, want)
			}
			if strings.Contains(err.Error(), pass) || strings.Contains(err.Error(), wrong) {
				t.Errorf("error contains a password: %v", err)
			}
		})
	}
}

// FuzzClientProperties: reading a client properties file never panics, and
// an error never quotes the value of a setting that holds a secret.
func FuzzClientProperties(f *testing.F) {
	const secret = "s3cret-Pa55"
	f.Add("bootstrap.servers=a:9092\nsecurity.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\n" +
		`sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="u" password="` + secret + `";` + "\n")
	f.Add(`sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=u password=` + secret + "\n")
	f.Add("ssl.truststore.type=JKS\nssl.keystore.password=" + secret + "\n")
	f.Add("sasl.jaas.config=Bogus required password=\"" + secret + "\n")
	secretKeys := map[string]bool{"sasl.jaas.config": true, "ssl.key.password": true, "ssl.keystore.password": true,
		"ssl.truststore.password": true, "ssl.keystore.key": true}
	f.Fuzz(func(t *testing.T, body string) {
		props, err := javaprops.Parse([]byte(body))
		if err != nil {
			return
		}
		_, err = clientPropertiesFrom(props)
		if err == nil {
			return
		}
		for i, p := range props {
			if !secretKeys[p.Key] || len(p.Value) < 6 || !strings.Contains(err.Error(), p.Value) || strings.Contains(body, p.Value+"=") {
				continue
			}
			// The value may be part of the message's own text (a value
			// "rname=" is in `username="..."`): with the value replaced,
			// a message that still holds it did not quote it.
			other := slices.Clone(props)
			other[i].Value = strings.Repeat("q", len(p.Value))
			if _, err2 := clientPropertiesFrom(other); err2 != nil && strings.Contains(err2.Error(), p.Value) {
				continue
			}
			t.Fatalf("error quotes the value of %s: %v", p.Key, err)
		}
	})
}

// FuzzJAAS: the JAAS parser never panics and its errors never quote the
// password, wherever it sits in a well- or ill-formed configuration.
func FuzzJAAS(f *testing.F) {
	f.Add(`org.apache.kafka.common.security.scram.ScramLoginModule required username="u" password="`, `p4ss"w`, `";`)
	f.Add(`org.apache.kafka.common.security.plain.PlainLoginModule required username=u password=`, "pw0rd", `;`)
	f.Add(`x.y.SomeLoginModule optional a="`, "b1b1b1", `" ;`)
	f.Add(`"unterminated `, "s3cret", "")
	f.Fuzz(func(t *testing.T, head, pw, tail string) {
		// Only passwords no error template could contain by chance: the
		// templates hold no digits.
		// Nor one the rest of the text holds too (an error may quote the
		// login module's class).
		if len(pw) < 6 || !strings.ContainsAny(pw, "0123456789") || strings.Contains(head, pw) || strings.Contains(tail, pw) {
			return
		}
		_, err := parseJAAS(head + pw + tail)
		if err != nil && strings.Contains(err.Error(), pw) {
			t.Fatalf("error quotes the password %q: %v", pw, err)
		}
	})
}

// A broker address with userinfo is refused without quoting it, from
// --brokers and from a command-config's bootstrap.servers alike.
func TestBrokerAddressWithCredentialsIsRefused(t *testing.T) {
	for _, s := range []string{"alice:s3cr3t@broker:9092", "ok:9092,bob@broker:9092",
		"bob%3As3cr3t%40127.0.0.1:1", "bob%3as3cr3t%40[fe80::1%eth0]:1", "bob%253As3cr3t%2540broker:9092"} {
		if _, err := ParseBrokers(s); err == nil || strings.Contains(err.Error(), "s3cr3t") || strings.Contains(err.Error(), "bob") {
			t.Errorf("ParseBrokers(%q): %v", s, err)
		}
	}
	for _, s := range []string{"SASL_SSL://alice:s3cr3t@broker:9092", "SASL_SSL://alice%3As3cr3t%40broker:9092"} {
		if _, err := parseBootstrap(s); err == nil || strings.Contains(err.Error(), "s3cr3t") {
			t.Errorf("parseBootstrap(%q): %v", s, err)
		}
	}
	if b, err := ParseBrokers("[fe80::1%eth0]:9092,broker:9092"); err != nil || len(b) != 2 {
		t.Errorf("an IPv6 zone is refused: %v %v", b, err)
	}
}
