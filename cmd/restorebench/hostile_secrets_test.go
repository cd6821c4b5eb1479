package main

// Hostile input, round two: secrets that must never be recorded, results
// files whose text carries markup or terminal escapes, and messages that
// must name what the user wrote. Each test is one class, table-driven.

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/restorebench/restorebench/capacity/capacitytest"
	"github.com/restorebench/restorebench/runs"
)

// writeRawRuns writes results as another build (or anyone) could have: plain
// JSON, without Save's redaction, one directory per run; it returns the
// results.json paths.
func writeRawRuns(t *testing.T, rs []*runs.Results) []string {
	t.Helper()
	dir := t.TempDir()
	var paths []string
	for i, r := range rs {
		d := filepath.Join(dir, fmt.Sprintf("run%d", i+1))
		os.MkdirAll(d, 0o755)
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(d, "results.json")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

// readOutputs is everything a command left: its stdout, stderr, error and
// the files it wrote under dir.
func readOutputs(t *testing.T, dir, stdout, stderr string, err error) map[string]string {
	t.Helper()
	out := map[string]string{"stdout": stdout, "stderr": stderr}
	if err != nil {
		out["error"] = err.Error()
		out["printed error"] = errorLine(err)
	}
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			b, _ := os.ReadFile(p)
			out[p] = string(b)
		}
		return nil
	})
	return out
}

const testKey = "-----BEGIN PRIVATE KEY-----\n        MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQDTOPSECRET\n        -----END PRIVATE KEY-----"

// TestHostileSecretsNeverRecorded: a secret (one of Kafka's PASSWORD
// configs, under any client prefix, or a credential-shaped value) in a
// profile is refused at profile read, naming the key and line but not the
// value; a broker address with credentials is refused unquoted; and a
// results.json that holds secrets anyway (an older build's, or edited)
// shows none of them in summary, compare, calibration, plan or report.
func TestHostileSecretsNeverRecorded(t *testing.T) {
	dir := t.TempDir()
	n := 0
	profile := func(streams string) string {
		n++
		p := filepath.Join(dir, fmt.Sprintf("p%d.yaml", n))
		os.WriteFile(p, []byte("fill: {records: 1000}\ncases:\n  - name: a\n    engine: kafka-streams\n    streams:\n      num.standby.replicas: \"0\"\n"+streams), 0o644)
		return p
	}
	for _, c := range []struct{ streams, want string }{
		{"      ssl.keystore.key: |\n        " + testKey + "\n", "line 7: cases[0].streams.ssl.keystore.key: a secret"},
		{"      ssl.keystore.certificate.chain: TOPSECRET\n", "line 7: cases[0].streams.ssl.keystore.certificate.chain"},
		{"      ssl.truststore.certificates: TOPSECRET\n", "line 7: cases[0].streams.ssl.truststore.certificates"},
		{"      basic.auth.user.info: alice:TOPSECRET\n", "line 7: cases[0].streams.basic.auth.user.info"},
		{"      main.consumer.ssl.key.password: TOPSECRET\n", "line 7: cases[0].streams.main.consumer.ssl.key.password"},
		{"      producer.sasl.oauthbearer.client.credentials.client.secret: TOPSECRET\n", "line 7: cases[0].streams.producer.sasl.oauthbearer.client.credentials.client.secret"},
		{"      schema.registry.url: http://alice:TOPSECRET@registry:8081\n", "line 7: cases[0].streams.schema.registry.url: the value looks like a credential"},
		{"      my.plugin.config: |\n        " + testKey + "\n", "line 7: cases[0].streams.my.plugin.config: the value looks like a credential (a PEM block"},
	} {
		out := filepath.Join(dir, fmt.Sprintf("out%d", n+1))
		stdout, stderr, err := cli(t, "-q", "--data-dir", dir, "run", profile(c.streams), "--out", out, "--no-plots")
		wantErr(t, c.streams, err, c.want)
		for name, text := range readOutputs(t, out, stdout, stderr, err) {
			if strings.Contains(text, "TOPSECRET") || strings.Contains(text, "BEGIN PRIVATE") {
				t.Errorf("%s: %s holds the secret:\n%s", c.streams, name, text)
			}
		}
		if exists(filepath.Join(out, "results.json")) {
			t.Errorf("%s: a refused profile wrote results", c.streams)
		}
	}
	for _, b := range []string{"alice:TOPSECRET@localhost:1", "localhost:1,bob:TOPSECRET@localhost:2"} {
		if _, _, err := cli(t, "-q", "--brokers", b, "restore"); err == nil || strings.Contains(err.Error(), "TOPSECRET") {
			t.Errorf("--brokers %s: %v", b, err)
		}
	}

	// A results file holding secrets in every map a setting reaches.
	rs := capacitytest.Runs()
	for _, r := range rs {
		r.Profile = &runs.ProfileInfo{Name: "p", Source: "p.yaml", YAML: "streams:\n  ssl.keystore.key: |\n    " + testKey + "\n"}
		for i := range r.Restores {
			x := &r.Restores[i]
			if x.Case == "kstreams-default" {
				continue // the rate comes from the defaults; the other cases' labels show their streams
			}
			x.Params.Streams = map[string]string{"ssl.keystore.key": testKey, "consumer.basic.auth.user.info": "alice:TOPSECRET",
				"schema.registry.url": "http://alice:TOPSECRET@registry:8081"}
			x.KafkaStreams = &runs.KafkaStreamsRun{Properties: map[string]string{"sasl.jaas.config": "x password=TOPSECRET;", "ssl.truststore.certificates": testKey}}
			x.Model = nil // a record with a Kafka Streams run has no model figures
		}
	}
	paths := writeRawRuns(t, rs)
	rep := filepath.Join(dir, "report")
	for _, args := range [][]string{
		{"summary", paths[0]},
		{"compare", paths[0], paths[1]},
		{"compare", "--format", "markdown", paths[0], paths[1]},
		{"compare", "--format", "benchfmt", paths[0]},
		{"calibration", paths[0]},
		{"plan", "--state", "10GB", paths[0], paths[1], paths[2], paths[3]},
		{"report", "--out", rep, "--state", "10GB", paths[0], paths[1], paths[2], paths[3]},
	} {
		stdout, stderr, err := cli(t, args...)
		for name, text := range readOutputs(t, rep, stdout, stderr, err) {
			if strings.Contains(text, "TOPSECRET") || strings.Contains(text, "BEGIN PRIVATE") {
				i := strings.Index(text, "TOPSECRET")
				if i < 0 {
					i = strings.Index(text, "BEGIN PRIVATE")
				}
				t.Errorf("%s: %s holds a secret: …%s…", strings.Join(args, " "), name, text[max(0, i-100):min(len(text), i+60)])
			}
		}
	}
	// The setting is named, its value hidden (report.md escapes the brackets).
	if b, err := os.ReadFile(filepath.Join(rep, "report.md")); err != nil || !strings.Contains(string(b), `streams.ssl.keystore.key=\[hidden\]`) {
		t.Errorf("report.md does not say the setting was hidden (%v)", err)
	}
}

// hostileText is what any text field of a results.json may hold.
const hostileText = "x\x1b[31m\x1b]0;pwned\x07\u009b2J|cell\n# injected <script>alert(1)</script>\u202e"

// TestHostileMarkupAndEscapesInResults: a results file whose case names,
// run id, host fields, profile name and streams values carry terminal
// escapes, table pipes, newlines and HTML reaches no terminal, report.md,
// report.html or compare markdown raw.
func TestHostileMarkupAndEscapesInResults(t *testing.T) {
	rs := capacitytest.Runs()
	for _, r := range rs {
		r.RunID += hostileText
		r.Host.Hostname, r.Host.CPUModel = "host"+hostileText, "cpu"+hostileText
		r.Profile = &runs.ProfileInfo{Name: "profile" + hostileText, Source: "p.yaml"}
		r.Error, r.Complete = "stopped"+hostileText, false
		for i := range r.Restores {
			x := &r.Restores[i]
			s := *x.Step
			s.Case += hostileText
			x.SetStep(s)
			x.Params.Streams = map[string]string{"x.custom": "v" + hostileText}
			if i == 0 {
				x.Verified, x.Error = false, "failed"+hostileText
			}
		}
	}
	paths := writeRawRuns(t, rs)
	dir := t.TempDir()
	rep, md := filepath.Join(dir, "report"), filepath.Join(dir, "compare.md")
	base := runs.CaseNames(rs[0].Restores)[0]
	for _, args := range [][]string{
		{"summary", paths[0]},
		{"compare", paths[0], paths[1]},
		{"compare", "--baseline", base, paths[0]},
		{"compare", "--baseline", "no-such" + hostileText, paths[0]},
		{"compare", "--format", "markdown", "--out", md, paths[0], paths[1]},
		{"compare", "--format", "benchfmt", paths[0]},
		{"calibration", paths[0]},
		{"calibration", "--format", "markdown", paths[0]},
		{"plan", "--state", "10GB", paths[0], paths[1], paths[2], paths[3]},
		{"predict", "scaleout", "--from", paths[0]},
		{"report", "--out", rep, "--state", "10GB", paths[0], paths[1], paths[2], paths[3]},
	} {
		stdout, stderr, err := cli(t, args...)
		outs := readOutputs(t, dir, stdout, stderr, err)
		delete(outs, "error") // what main prints is "printed error"
		for name, text := range outs {
			for _, raw := range []string{"\x1b", "\x07", "\u009b", "\u202e"} {
				if strings.Contains(text, raw) {
					t.Errorf("%s: %s holds %q raw", strings.Join(args, " "), name, raw)
				}
			}
			if strings.Contains(text, "\n# injected") {
				t.Errorf("%s: %s holds a line of the results' own", strings.Join(args, " "), name)
			}
			if strings.HasSuffix(name, ".md") || strings.HasSuffix(name, ".html") || strings.HasSuffix(name, ".svg") {
				if strings.Contains(text, "<script>") {
					t.Errorf("%s: %s holds raw HTML", strings.Join(args, " "), name)
				}
			}
			if strings.HasSuffix(name, ".md") {
				for _, line := range strings.Split(text, "\n") {
					if strings.Contains(line, "|cell") && !strings.Contains(line, `\|cell`) {
						t.Errorf("%s: %s splits a table row: %q", strings.Join(args, " "), name, line)
					}
				}
			}
		}
	}
	if b, _ := os.ReadFile(filepath.Join(rep, "report.md")); !strings.Contains(string(b), `\\x1b`) {
		t.Error("report.md does not show the escape escaped: the test may test nothing")
	}
}

// TestHostileMisleadingMessages: an error names the setting the user
// wrote, at its own line, and stops at the profile instead of a stall:
// prefixed client overrides of bootstrap.servers, a mapped streams key's
// bad value, --store-type, and a warm.changed out of proportion to the
// fill.
func TestHostileMisleadingMessages(t *testing.T) {
	dir := t.TempDir()
	n := 0
	profile := func(body string) string {
		n++
		p := filepath.Join(dir, fmt.Sprintf("m%d.yaml", n))
		os.WriteFile(p, []byte(body), 0o644)
		return p
	}
	ks := func(streams string) string {
		return profile("fill: {records: 1000}\ncases:\n  - name: a\n    engine: kafka-streams\n    streams:\n      acceptable.recovery.lag: \"100\"\n" + streams)
	}
	type tc struct {
		args []string
		want []string
	}
	var cases []tc
	for _, p := range []string{"consumer.", "main.consumer.", "restore.consumer.", "global.consumer.", "producer.", "admin."} {
		cases = append(cases, tc{[]string{"run", ks("      " + p + "bootstrap.servers: elsewhere:9092\n")},
			[]string{"line 7: cases[0].streams." + p + "bootstrap.servers: must not be set here"}})
	}
	cases = append(cases,
		tc{[]string{"run", profile("fill: {records: 1000}\ncases:\n  - name: a\n    engine: model\n    streams:\n      restore.consumer.bootstrap.servers: x:1\n")},
			[]string{"line 6: cases[0].streams.restore.consumer.bootstrap.servers"}},
		tc{[]string{"run", ks("      num.stream.threads: \"0\"\n")}, []string{"line 7: cases[0].streams.num.stream.threads: 0 must be positive"}},
		tc{[]string{"run", ks("      restore.consumer.max.poll.records: \"0\"\n")}, []string{"line 7: cases[0].streams.restore.consumer.max.poll.records: 0 must be positive"}},
		tc{[]string{"run", profile("fill: {records: 1000}\nrestore:\n  streams:\n    num.stream.threads: \"-1\"\n")}, []string{"line 4: restore.streams.num.stream.threads"}},
		tc{[]string{"restore", "--store-type", "disk"}, []string{"--store-type: \"disk\" is not one of rocksdb, memory"}},
		tc{[]string{"restore", "--strategy", "fast"}, []string{"--strategy:"}},
		tc{[]string{"run", profile("fill: {records: 1000}\ncases:\n  - name: w\n    scenario: warm\n    warm:\n      changed: [0, 4000000000]\n")},
			[]string{"line 6: cases[0].warm.changed[1]: 4000000000 records is over 10 times the fill's 1000 records (at most 10000"}},
		tc{[]string{"run", profile("fill: {size: 1MB}\ncases:\n  - name: w\n    scenario: warm\n    warm: {changed: [4000000000]}\n")},
			[]string{"cases[0].warm.changed[0]: 4000000000 records is over 10 times the fill's about", "records (at most"}},
		tc{[]string{"run", profile("fill: {records: 1000}\ncases:\n  - name: w\n    scenario: warm\n    warm: {changed: [2000%]}\n")}, []string{"line 5: cases[0].warm.changed"}},
	)
	for _, c := range cases {
		out := filepath.Join(dir, fmt.Sprintf("out%d", n))
		args := append([]string{"-q", "--data-dir", dir}, c.args...)
		if c.args[0] == "run" {
			args = append(args, "--out", out, "--no-plots")
		}
		_, _, err := cli(t, args...)
		wantErr(t, strings.Join(c.args, " "), err, c.want...)
		if exists(filepath.Join(out, "results.json")) {
			t.Errorf("%s: a refused profile wrote results", strings.Join(c.args, " "))
		}
	}
}

// TestHostileSecretsRoundThree: secrets in a case's jvm_flags, in streams
// keys and values of the shapes the first checks missed, and in a
// percent-encoded broker address are refused at profile (or flag) read,
// naming where they are but never quoting them.
func TestHostileSecretsRoundThree(t *testing.T) {
	dir := t.TempDir()
	n := 0
	profile := func(body string) string {
		n++
		p := filepath.Join(dir, fmt.Sprintf("r%d.yaml", n))
		os.WriteFile(p, []byte("fill: {records: 1000}\ncases:\n  - name: a\n    engine: kafka-streams\n"+body), 0o644)
		return p
	}
	type tc struct{ body, want string }
	cases := []tc{
		{"    jvm_flags: [\"-Djavax.net.ssl.keyStorePassword=hunter6\"]\n", "line 5: cases[0].jvm_flags[0]: the system property -Djavax.net.ssl.keyStorePassword names a secret"},
		{"    jvm_flags:\n      - -Xss2m\n      - -Dpassword=hunter6\n", "cases[0].jvm_flags[1]: the system property -Dpassword names a secret"},
		{"    jvm_flags: [\"-Dregistry=http://u:hunter6@h\"]\n", "cases[0].jvm_flags[0]: the value of -Dregistry looks like a credential"},
	}
	for _, k := range []string{"x.token", "x.credentials", "x.apikey", "x.api.key", "x.pwd", "x.pass"} {
		cases = append(cases, tc{"    streams:\n      " + k + ": hunter6\n", "line 6: cases[0].streams." + k + ": a secret"})
	}
	for _, v := range []string{"Basic dXNlcjpodW50ZXI2", "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJodW50ZXI2In0.aHVudGVyNg",
		"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJodW50ZXI2In0.aHVudGVyNg", "u:hunter6@host:9092", "http%3A%2F%2Fu%3Ahunter6%40host",
		"pass=hunter6", "pwd=hunter6", "token=hunter6", "secret=hunter6", "apikey=hunter6", "api_key=hunter6",
		"---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ---- hunter6", "'PuTTY-User-Key-File-2: ssh-rsa hunter6'", "AKIAHUNTER6HUNTER6XX"} {
		cases = append(cases, tc{"    streams:\n      x.custom: " + strconvQuote(v) + "\n", "line 6: cases[0].streams.x.custom: the value looks like a credential"})
	}
	for _, c := range cases {
		out := filepath.Join(dir, fmt.Sprintf("out%d", n+1))
		stdout, stderr, err := cli(t, "-q", "--data-dir", dir, "run", profile(c.body), "--out", out, "--no-plots")
		wantErr(t, c.body, err, c.want)
		for name, text := range readOutputs(t, out, stdout, stderr, err) {
			for _, leak := range []string{"hunter6", "HUNTER6", "dXNlcjpodW50ZXI2", "aHVudGVyNg"} {
				if strings.Contains(text, leak) {
					t.Errorf("%s: %s holds the secret:\n%s", c.body, name, text)
				}
			}
		}
		if exists(filepath.Join(out, "results.json")) {
			t.Errorf("%s: a refused profile wrote results", c.body)
		}
	}
	for _, b := range []string{"bob%3Ahunter6%40127.0.0.1:1", "localhost:1,bob%253Ahunter6%2540127.0.0.1:2"} {
		if _, _, err := cli(t, "-q", "--brokers", b, "restore"); err == nil || strings.Contains(err.Error(), "hunter6") || !strings.Contains(err.Error(), "holds a user name or password") {
			t.Errorf("--brokers %s: %v", b, err)
		}
	}
}

// TestHostileSecretGivenAsPath: a secret pasted where its file's path
// belongs (--control-key-file, $RESTOREBENCH_CONTROL_KEY_FILE,
// --sasl-password-file) names no file: the error names the flag or
// variable and says the file could not be read, but never prints the
// value; a path that exists is still named. A device as the key file is
// one error at once.
func TestHostileSecretGivenAsPath(t *testing.T) {
	dir := t.TempDir()
	const secret = "c2VjcmV0LWh1bnRlcjItY29udHJvbC1rZXktdmFsdWU="
	agentArgs := []string{"-q", "--brokers", "127.0.0.1:1", "agent", "--name", "a", "--state-dir", dir}
	sasl := []string{"-q", "--data-dir", dir, "--brokers", "127.0.0.1:1", "--connect-timeout", "1s", "--security-protocol", "SASL_PLAINTEXT",
		"--sasl-mechanism", "PLAIN", "--sasl-username", "u"}
	for _, c := range []struct {
		name string
		env  string
		args []string
		want []string
	}{
		{"control-key-file", "", append(append([]string{}, agentArgs...), "--control-key-file", secret),
			[]string{"--control-key-file: the file could not be read: no such file or directory", "44 characters, is not shown"}},
		{"control-key-env", secret, agentArgs, []string{"$RESTOREBENCH_CONTROL_KEY_FILE: the file could not be read", "is not shown"}},
		{"sasl-password-file", "", append(append([]string{}, sasl...), "--sasl-password-file", secret, "restore"),
			[]string{"--sasl-password-file: the file could not be read: no such file or directory", "is not shown"}},
		{"devzero-control-key", "", append(append([]string{}, agentArgs...), "--control-key-file", "/dev/zero"),
			[]string{"--control-key-file", "/dev/zero", "character device, not a regular file"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("RESTOREBENCH_CONTROL_KEY_FILE", c.env)
			stdout, stderr, err := cliWithin(t, 20*time.Second, c.args...)
			wantErr(t, c.name, err, c.want...)
			for name, text := range readOutputs(t, dir, stdout, stderr, err) {
				if strings.Contains(text, secret) || strings.Contains(text, secret[:20]) {
					t.Errorf("%s: %s holds the secret:\n%s", c.name, name, text)
				}
			}
		})
	}
}

// TestHostileAgentNameAndLabels: a newline or other control character in
// an agent's --name or --labels (which would forge log lines) and a label
// a=b=c (the chart's rule: no ',' or '=' in a label) are refused at parse
// time naming the flag, the value escaped; and the agent's log writes
// each message as one line, anything untrusted in it escaped.
func TestHostileAgentNameAndLabels(t *testing.T) {
	dir := t.TempDir()
	args := []string{"-q", "--brokers", "127.0.0.1:1", "agent", "--state-dir", dir, "--insecure"}
	for _, c := range []struct {
		name, labels string
		want         []string
	}{
		{"a\nagent b: stopped", "", []string{"--name: agent name", `"a\nagent b: stopped"`, "control character"}},
		{"a\x1b[31m", "", []string{"--name: agent name", "control character"}},
		{"a", "zone=a\nagent b: stopped", []string{"--labels: label", `\n`, "control character"}},
		{"a", "zone=\u202eevil", []string{"--labels: label", "control character"}},
		{"a", "zone=a=b", []string{"--labels: label", "',' or '='"}},
	} {
		_, _, err := cliWithin(t, 20*time.Second, append(append([]string{}, args...), "--name", c.name, "--labels", c.labels)...)
		wantErr(t, c.name+" "+c.labels, err, c.want...)
		if strings.ContainsAny(err.Error(), "\n\x1b\u202e") {
			t.Errorf("%q %q: the error carries the control character itself: %q", c.name, c.labels, err)
		}
	}
	var b strings.Builder
	logLine(&b)("agent %s: refused %v", "a\nagent b: stopped", errors.New("bad\x1b[2J"))
	if got := b.String(); got != `agent a\nagent b: stopped: refused bad\x1b[2J`+"\n" {
		t.Errorf("a log line with a newline and an escape in it: %q", got)
	}
}

// strconvQuote quotes v for YAML unless it is quoted already.
func strconvQuote(v string) string {
	if strings.HasPrefix(v, "'") {
		return v
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// TestHostileSecretsInProfileText: a profile's description and comments
// are free text results.json records; a run on the embedded broker keeps
// no credential of theirs in results.json or the report, and keeps the
// rest of the profile (a PEM BEGIN without an END no longer swallows it).
func TestHostileSecretsInProfileText(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "secrun.yaml")
	os.WriteFile(p, []byte("name: secrun\n"+
		`description: "cluster creds password=hunter2 pass=hunter2 https://bob:hunter3@h/ -----BEGIN PRIVATE KEY----- x"`+"\n"+
		"# sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" password=\"hunter4\";\n"+
		"# ssl.key.password=hunter7\n"+
		"repeats: 1\n"+
		"fill: {records: 2000, keys: 300, partitions: 1}  # token: hunter8\n"+
		"cases:\n"+
		"  - name: a  # Basic aHVudGVyOTpodW50ZXI5\n"), 0o644)
	out := filepath.Join(dir, "run")
	if _, _, err := cli(t, "-q", "--data-dir", dir, "run", p, "--out", out, "--no-plots"); err != nil {
		t.Fatal(err)
	}
	rep := filepath.Join(dir, "report")
	if _, _, err := cli(t, "report", "--out", rep, out); err != nil {
		t.Fatal(err)
	}
	var outputs []string
	for _, f := range []string{filepath.Join(out, "results.json"), filepath.Join(rep, "report.md"), filepath.Join(rep, "report.html")} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		outputs = append(outputs, string(b))
		for _, leak := range []string{"hunter", "aHVudGVy", "BEGIN PRIVATE"} {
			if i := strings.Index(string(b), leak); i >= 0 {
				t.Errorf("%s holds %q: …%s…", f, leak, b[max(0, i-80):min(len(b), i+40)])
			}
		}
	}
	r, err := runs.Load(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, kept := range []string{"name: secrun", "https://[hidden]@h/", "password=[hidden]", "ssl.key.password=[hidden]",
		"repeats: 1", "fill: {records: 2000, keys: 300, partitions: 1}", "cases:\n  - name: a"} {
		if r.Profile == nil || !strings.Contains(r.Profile.YAML, kept) {
			t.Errorf("results.json's profile.yaml lost %q:\n%v", kept, r.Profile)
		}
	}
}

// TestHostileAdvisedFlagsExist: a flag an error advises is a flag of the
// command it names, read from the message itself so the advice cannot
// drift from the flags again (`run --agents` without a key advised
// `--insecure`, a flag only `agent` has). A flag after "agent " is looked
// up on the agent command, every other on the command that failed.
func TestHostileAdvisedFlagsExist(t *testing.T) {
	cases := [][]string{{"run", "quick", "--agents", "a"}}
	flagRe := regexp.MustCompile("(`agent )?(--[a-z][a-z0-9-]*)")
	for _, args := range cases {
		_, _, err := cli(t, append([]string{"-q", "--data-dir", t.TempDir()}, args...)...)
		if err == nil {
			t.Fatalf("%s: no error", strings.Join(args, " "))
		}
		matches := flagRe.FindAllStringSubmatch(err.Error(), -1)
		if len(matches) < 2 {
			t.Fatalf("%s: %q advises no flag", strings.Join(args, " "), err)
		}
		for _, m := range matches {
			on := args[0]
			if m[1] != "" {
				on = "agent"
			}
			cmd, _, ferr := newRootCmd().Find([]string{on})
			if ferr != nil || cmd.Flags().Lookup(m[2][2:]) == nil && cmd.InheritedFlags().Lookup(m[2][2:]) == nil {
				t.Errorf("%s: error advises %s, which `restorebench %s` has not: %q", strings.Join(args, " "), m[2], on, err)
			}
		}
	}
}
