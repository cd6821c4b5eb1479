package integration

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/restorebench/restorebench/bench"
	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/internal/testkafka"
	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/profiles"
	"github.com/restorebench/restorebench/runs"
)

// securedProfile restores one small fill on each engine.
const securedProfile = `name: secured
description: one small restore per engine over a secured listener
fill: {size: 3MB, keys: 4000, value_size: 100-400, partitions: 2, compression: lz4, seed: 5}
cases:
  - name: model
  - name: ks
    engine: kafka-streams
repeats: 1
`

// connectSecured connects to l with its security, the log kept in log.
func connectSecured(t *testing.T, l testkafka.Listener, log *syncBuffer) (*bench.Env, error) {
	t.Helper()
	sec := l.Security
	env, err := bench.Connect(context.Background(), bench.Options{Brokers: l.Brokers, Security: &sec,
		DataDir: t.TempDir(), Log: log, Quiet: true, ConnectTimeout: 10 * time.Second})
	if err == nil {
		t.Cleanup(env.Close)
	}
	return env, err
}

// TestSecuredClustersRestoreOnBothEngines fills and restores a changelog
// on the model and on Kafka Streams over the local broker's SASL_PLAINTEXT,
// SSL (mutual TLS where its PEM client key exists) and SASL_SSL listeners:
// both verify, the record names the protocol, and the secrets (the SASL
// password, the client's private key) are in no JVM's argv, no file the
// run leaves (results.json, CONFIG.properties, the instance logs) and not
// in the run's log.
func TestSecuredClustersRestoreOnBothEngines(t *testing.T) {
	t.Parallel()
	needDriver(t)
	for _, tc := range []struct{ name, protocol, mechanism, stores string }{
		{"SASL_PLAINTEXT-SCRAM-SHA-512", cluster.ProtocolSASLPlaintext, cluster.MechanismScramSHA512, ""},
		{"SSL", cluster.ProtocolSSL, "", ""},
		{"SSL-PKCS12-stores", cluster.ProtocolSSL, "", cluster.StorePKCS12},
		{"SASL_SSL-PLAIN-JKS-truststore", cluster.ProtocolSASLSSL, cluster.MechanismPlain, cluster.StoreJKS},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := testkafka.SecuredListener(t, tc.protocol)
			l.Security.Mechanism = tc.mechanism
			secrets := []string{testkafka.SASLPassword}
			switch {
			case tc.stores != "":
				secrets = append(secrets, withJavaStores(&l.Security, tc.stores))
			case tc.protocol == cluster.ProtocolSSL:
				secrets = withClientKey(t, &l.Security)
			}
			log := &syncBuffer{}
			env, err := connectSecured(t, l, log)
			if err != nil {
				t.Fatal(err)
			}
			res, out, argvs := runSecuredProfile(t, env)
			for _, r := range res.Restores {
				if !r.Verified {
					t.Fatalf("%s did not verify: %s", r.Case, r.Error)
				}
				if r.KafkaStreams != nil && r.KafkaStreams.Properties["security.protocol"] != tc.protocol {
					t.Errorf("the kafka-streams record's security.protocol is %q", r.KafkaStreams.Properties["security.protocol"])
				}
			}
			if len(res.Restores) != 2 || len(argvs) == 0 {
				t.Fatalf("%d records, %d JVM command lines seen", len(res.Restores), len(argvs))
			}
			for _, s := range secrets {
				for i, argv := range argvs {
					if strings.Contains(argv, s) {
						t.Errorf("JVM %d's argv holds a secret: %s", i, argv)
					}
				}
				if strings.Contains(log.String(), s) {
					t.Errorf("the run's log holds a secret")
				}
				noSecretInFiles(t, s, out, env.Opts.StateDir)
			}
			noJVMUnder(t, env.Opts.StateDir)
		})
	}
}

// runSecuredProfile runs securedProfile on env, keeping the state dirs
// (and so the instances' configs and logs), and returns the results, the
// results directory and the command line of every driver JVM seen
// running under the state dir.
func runSecuredProfile(t *testing.T, env *bench.Env) (*runs.Results, string, []string) {
	t.Helper()
	plan, err := profiles.Parse([]byte(securedProfile), "secured.yaml")
	if err != nil {
		t.Fatal(err)
	}
	plan.AppID, plan.StoreName = ksApp(t, env), ksStore
	plan.Topic = config.ChangelogTopic(plan.AppID, plan.StoreName)
	stop := make(chan struct{})
	var argvs []string
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		argvs = watchDriverArgv(env.Opts.StateDir, stop)
	}()
	out := t.TempDir()
	res, err := env.Run(context.Background(), plan, bench.RunOptions{OutDir: out, KeepState: true})
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	return res, out, argvs
}

// watchDriverArgv collects, until stop, the /proc/PID/cmdline of every
// driver JVM whose config lies under dir.
func watchDriverArgv(dir string, stop <-chan struct{}) []string {
	seen := map[string]string{}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		outp, _ := exec.Command("pgrep", "-f", ksdriver.MainClass+" "+dir).Output()
		for _, pid := range strings.Fields(string(outp)) {
			if b, err := os.ReadFile("/proc/" + pid + "/cmdline"); err == nil && len(b) > 0 {
				seen[pid] = string(bytes.ReplaceAll(b, []byte{0}, []byte{' '}))
			}
		}
		select {
		case <-stop:
			var all []string
			for _, a := range seen {
				all = append(all, a)
			}
			return all
		case <-tick.C:
		}
	}
}

// noSecretInFiles fails if any file under the dirs holds secret, or if a
// driver's secrets file was left behind.
func noSecretInFiles(t *testing.T, secret string, dirs ...string) {
	t.Helper()
	for _, dir := range dirs {
		filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			if d.Name() == ksdriver.SecretsFile {
				t.Errorf("a secrets file was left behind: %s", path)
			}
			if fi, err := d.Info(); err != nil || fi.Size() > 64<<20 {
				return nil
			}
			if b, err := os.ReadFile(path); err == nil && bytes.Contains(b, []byte(secret)) {
				t.Errorf("%s holds a secret", path)
			}
			return nil
		})
	}
}

// withClientKey makes sec present the local broker's client certificate
// (mutual TLS) when scripts/kafka.sh could write it as PEM, and returns a
// line of its private key: the secret to look for.
func withClientKey(t *testing.T, sec *cluster.Security) []string {
	t.Helper()
	pemFile := filepath.Join(filepath.Dir(sec.CAFile), "client.pem")
	b, err := os.ReadFile(pemFile)
	if err != nil {
		t.Logf("no client key (%v): plain TLS", err)
		return nil
	}
	sec.CertFile, sec.KeyFile = pemFile, pemFile
	blk, _ := pem.Decode(b[bytes.Index(b, []byte("-----BEGIN PRIVATE KEY")):])
	if blk == nil {
		t.Fatalf("%s holds no PKCS#8 key", pemFile)
	}
	body := strings.Split(string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: blk.Bytes})), "\n")
	return []string{body[2]}
}

// withJavaStores makes sec trust the local broker's CA through its trust
// store of typ (PKCS12 or JKS) and, for PKCS12, present the client key
// pair of client.p12; it returns the stores' password, a secret.
func withJavaStores(sec *cluster.Security, typ string) string {
	const password = "restorebench-store" // scripts/kafka.sh's
	dir := filepath.Dir(sec.CAFile)
	sec.CAFile, sec.TruststoreType, sec.TruststorePassword = filepath.Join(dir, "truststore."+strings.ToLower(map[string]string{cluster.StorePKCS12: "p12", cluster.StoreJKS: "jks"}[typ])), typ, password
	if typ == cluster.StorePKCS12 {
		sec.CertFile, sec.KeyFile = filepath.Join(dir, "client.p12"), filepath.Join(dir, "client.p12")
		sec.KeystoreType, sec.KeystorePassword = cluster.StorePKCS12, password
	}
	return password
}

// TestSecuredClusterRefusalsAreOneClearError: a wrong password and an
// untrusted certificate are each one error that names the listener and
// the mechanism (or the trusted CAs), within seconds, without a secret in
// it and without a JVM left behind, both where restorebench's own client
// meets them first and where only the Kafka Streams JVM is given them.
func TestSecuredClusterRefusalsAreOneClearError(t *testing.T) {
	t.Parallel()
	needDriver(t)
	sasl := testkafka.SecuredListener(t, cluster.ProtocolSASLSSL)
	ssl := testkafka.SecuredListener(t, cluster.ProtocolSSL)
	const wrong = "not-the-password-7x"
	other := otherCA(t)
	for _, tc := range []struct {
		name  string
		l     testkafka.Listener
		spoil func(*cluster.Security)
		want  []string
	}{
		{"wrong password", sasl, func(s *cluster.Security) { s.Password = wrong },
			[]string{"SASL_SSL listener " + sasl.Brokers[0], "SCRAM-SHA-512", "user " + testkafka.SASLUser}},
		{"untrusted certificate", ssl, func(s *cluster.Security) { s.CAFile = other },
			[]string{"TLS handshake with the SSL listener " + ssl.Brokers[0], other}},
	} {
		t.Run(tc.name+"/restorebench", func(t *testing.T) {
			l := tc.l
			tc.spoil(&l.Security)
			t0 := time.Now()
			_, err := connectSecured(t, l, &syncBuffer{})
			assertRefusal(t, err, time.Since(t0), wrong, tc.want)
		})
		t.Run(tc.name+"/kafka-streams", func(t *testing.T) {
			env, err := connectSecured(t, tc.l, &syncBuffer{})
			if err != nil {
				t.Fatal(err)
			}
			app := ksApp(t, env)
			spec := loadgen.DefaultSpec()
			spec.Records, spec.Keys, spec.Partitions = 2000, 500, 1
			fill := ksFill(t, env, app, spec, "lz4")
			spoiled := *env.Cluster.Settings
			tc.spoil(&spoiled)
			env.Cluster.Settings = &spoiled // only the JVM gets it
			stateDir := t.TempDir()
			t0 := time.Now()
			_, err = env.RunCase(context.Background(), fill, app, ksStore, ksCase("ks", 1), stateDir)
			assertRefusal(t, err, time.Since(t0), wrong, append([]string{"reported connect"}, tc.want...))
			noJVMUnder(t, stateDir)
		})
	}
}

func assertRefusal(t *testing.T, err error, took time.Duration, secret string, want []string) {
	t.Helper()
	if err == nil {
		t.Fatal("no error")
	}
	t.Logf("after %s: %v", took.Round(time.Millisecond), err)
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("the error does not say %q", w)
		}
	}
	if strings.Contains(err.Error(), secret) {
		t.Error("the error holds the password")
	}
	if took > 20*time.Second {
		t.Errorf("the refusal took %s", took)
	}
}

// otherCA writes a CA certificate the broker's is not signed by.
func otherCA(t *testing.T) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "not the broker's CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "other-ca.pem")
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// syncBuffer is a log a run writes while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestSecuredClusterWarmRestartAndStandbyOnKafkaStreams runs the
// scenarios whose JVMs start elsewhere than a cold restore's (a warm
// restart's process per step; a fleet's instances, here the standby
// scenario's) over SASL_SSL with SCRAM-SHA-256: every step verifies, no
// secrets file and no JVM is left.
func TestSecuredClusterWarmRestartAndStandbyOnKafkaStreams(t *testing.T) {
	t.Parallel()
	needDriver(t)
	l := testkafka.SecuredListener(t, cluster.ProtocolSASLSSL)
	l.Security.Mechanism = cluster.MechanismScramSHA256
	env, err := connectSecured(t, l, &syncBuffer{})
	if err != nil {
		t.Fatal(err)
	}
	warm := ksCase("warm", 1)
	warm.Scenario = config.ScenarioWarm
	warm.Warm = &config.WarmSettings{Changed: []config.Count{{N: 500}}}
	standby := ksCase("standby", 1)
	standby.Scenario = config.ScenarioStandby
	standby.Standby = config.DefaultStandby()
	standby.Standby.Rates, standby.Standby.Duration, standby.Standby.FindMax = []float64{300}, config.Duration(2*time.Second), false
	standby.Standby.Pauses, standby.JVMHeap = nil, 256<<20
	for _, c := range []config.Case{warm, standby} {
		t.Run(c.Name, func(t *testing.T) {
			if err := c.Finalize(); err != nil {
				t.Fatal(err)
			}
			app := ksApp(t, env)
			spec := loadgen.DefaultSpec()
			spec.Records, spec.Keys, spec.ValueMin, spec.ValueMax, spec.Partitions = 10_000, 2_000, 20, 200, 2
			fill := ksFill(t, env, app, spec, "lz4")
			dir := t.TempDir()
			recs, err := env.RunCaseAll(context.Background(), fill, app, ksStore, c, dir)
			noJVMUnder(t, dir)
			if err != nil {
				t.Fatal(err)
			}
			checkRecords(t, recs...)
			for _, r := range recs {
				if !r.Verified || r.KafkaStreams == nil || r.KafkaStreams.Properties["security.protocol"] != cluster.ProtocolSASLSSL {
					t.Fatalf("%s: verified=%v (%s %s)", r.Case, r.Verified, r.Error, r.Verification.Problem)
				}
			}
			if len(recs) < 2 {
				t.Fatalf("%d records", len(recs))
			}
			noSecretInFiles(t, testkafka.SASLPassword, dir)
		})
	}
}
