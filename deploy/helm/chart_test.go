// Package helm tests the restorebench chart (restorebench/): it loads it
// with Helm's loader, lints it, renders it for each variant, decodes every
// object strictly into its Kubernetes type and checks what the agents and
// the coordinator run with. It is a module of its own so that Helm's
// dependencies stay out of restorebench's.
//
// The renders are kept in testdata/*.yaml (go test -update rewrites them):
// cmd/restorebench/deploy_test.go parses their command lines with the
// agent's and run's own flags.
package helm

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/lint"
	"helm.sh/helm/v3/pkg/lint/support"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

var update = flag.Bool("update", false, "rewrite testdata/*.yaml from the chart")

const chartDir = "restorebench"

// testKey stands for a key made by restorebench agent keygen: test data,
// never a key anything runs with.
const testKey = "TEST-ONLY-not-a-key-restorebench-chart-test="

const testProps = "bootstrap.servers=kafka-0.kafka:9092,kafka-1.kafka:9092\nsecurity.protocol=SSL\nssl.truststore.type=PEM\nssl.truststore.location=/etc/restorebench/ca.pem\n"

// variants are the value sets rendered, by their testdata file's name.
var variants = map[string]map[string]any{
	// The defaults: persistent agents reading the Secret restorebench-kafka.
	"persistent": {},
	// Ephemeral agents, the Secret made by the chart.
	"ephemeral": {
		"agents": map[string]any{"ephemeral": true, "labels": map[string]any{"zone": "a"}},
		"secret": map[string]any{"existingSecret": "", "clientProperties": testProps, "controlKey": testKey + "\n",
			"files": map[string]any{"ca.pem": "-----BEGIN CERTIFICATE-----\n(test)\n-----END CERTIFICATE-----\n"}},
	},
	// Persistent agents and a coordinator Job running failover on them.
	"coordinator": {
		"coordinator": map[string]any{"enabled": true, "profile": "failover", "brokers": "kafka-0.kafka:9092",
			"extraArgs": []any{"--repeats=2"}},
		"agents": map[string]any{"replicas": 2, "metricsPort": 9464},
	},
}

func loadChart(t *testing.T) *chart.Chart {
	t.Helper()
	c, err := loader.Load(chartDir)
	if err != nil {
		t.Fatalf("loading the chart: %v", err)
	}
	return c
}

// render renders the chart as release "restorebench" (revision 1) with vals
// over its values: the manifests by template, without empty ones and NOTES.
func render(t *testing.T, c *chart.Chart, vals map[string]any) (map[string]string, error) {
	t.Helper()
	rv, err := chartutil.ToRenderValues(c, vals, chartutil.ReleaseOptions{
		Name: "restorebench", Namespace: "bench", Revision: 1, IsInstall: true,
	}, chartutil.DefaultCapabilities)
	if err != nil {
		return nil, err
	}
	out, err := engine.Render(c, rv)
	if err != nil {
		return nil, err
	}
	for name, s := range out {
		if strings.HasSuffix(name, "NOTES.txt") || strings.TrimSpace(stripComments(s)) == "" {
			delete(out, name)
		}
	}
	return out, nil
}

func stripComments(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "#") {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// joined is a render as one multi-document file, ordered by template.
func joined(m map[string]string) string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "---\n# Source: %s\n%s\n", n, strings.TrimSpace(m[n]))
	}
	return b.String()
}

// objects are a render's objects, each decoded strictly into its type.
type objects struct {
	statefulSets []appsv1.StatefulSet
	jobs         []batchv1.Job
	secrets      []corev1.Secret
	claims       []corev1.PersistentVolumeClaim
}

// decode splits a render into documents and decodes each strictly (an
// unknown or misplaced field is an error) into the Kubernetes type its kind
// names; a kind the chart should not make is an error.
func decode(t *testing.T, m map[string]string) objects {
	t.Helper()
	var o objects
	for name, s := range m {
		for i, doc := range regexp.MustCompile(`(?m)^---\s*$`).Split(s, -1) {
			if strings.TrimSpace(stripComments(doc)) == "" {
				continue
			}
			var head struct {
				APIVersion string `json:"apiVersion"`
				Kind       string `json:"kind"`
			}
			if err := yaml.Unmarshal([]byte(doc), &head); err != nil {
				t.Fatalf("%s document %d: %v", name, i, err)
			}
			var into any
			var add func()
			switch head.APIVersion + " " + head.Kind {
			case "apps/v1 StatefulSet":
				var v appsv1.StatefulSet
				into, add = &v, func() { o.statefulSets = append(o.statefulSets, v) }
			case "batch/v1 Job":
				var v batchv1.Job
				into, add = &v, func() { o.jobs = append(o.jobs, v) }
			case "v1 Secret":
				var v corev1.Secret
				into, add = &v, func() { o.secrets = append(o.secrets, v) }
			case "v1 PersistentVolumeClaim":
				var v corev1.PersistentVolumeClaim
				into, add = &v, func() { o.claims = append(o.claims, v) }
			default:
				t.Fatalf("%s document %d: unexpected %s %s", name, i, head.APIVersion, head.Kind)
			}
			if err := yaml.UnmarshalStrict([]byte(doc), into); err != nil {
				t.Fatalf("%s document %d (%s): not a valid %s: %v\n%s", name, i, head.Kind, head.Kind, err, doc)
			}
			add()
		}
	}
	return o
}

// TestChartLint: helm lint passes, without warnings, on every variant.
func TestChartLint(t *testing.T) {
	for name, vals := range variants {
		l := lint.All(chartDir, vals, "bench", false)
		for _, m := range l.Messages {
			if m.Severity >= support.WarningSev {
				t.Errorf("%s: lint: %v", name, m)
			} else {
				t.Logf("%s: lint: %v", name, m)
			}
		}
	}
}

// flagsOf are the flags a command's reference page (docs/cli, generated
// from the commands and checked fresh by restorebench's tests) lists.
func flagsOf(t *testing.T, page string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "cli", page))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^\s+(?:-\w, )?--([a-z][a-z0-9-]*)`).FindAllStringSubmatch(string(b), -1) {
		out[m[1]] = true
	}
	if !out["brokers"] || !out["command-config"] || !out["control-key-file"] {
		t.Fatalf("%s: no flags read (%v)", page, out)
	}
	return out
}

// argFlags checks that every argument after the first n is a --flag=value
// or --flag the page lists, and returns the values by flag.
func argFlags(t *testing.T, where string, args []string, n int, known map[string]bool) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, a := range args[n:] {
		name, val, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		if !strings.HasPrefix(a, "--") || !known[name] {
			t.Errorf("%s: argument %q is not a flag the command takes", where, a)
		}
		if _, dup := out[name]; dup {
			t.Errorf("%s: --%s given twice", where, name)
		}
		out[name] = val
	}
	return out
}

// secretMount checks that the files the flags name are keys of the Secret
// the container mounts read-only at their directory, and returns the Secret's name.
func secretMount(t *testing.T, where string, pod corev1.PodSpec, c corev1.Container, files []string, secrets []corev1.Secret) string {
	t.Helper()
	var secret string
	for _, f := range files {
		dir := filepath.Dir(f)
		var vol string
		for _, m := range c.VolumeMounts {
			if m.MountPath == dir {
				vol = m.Name
				if !m.ReadOnly {
					t.Errorf("%s: the Secret's mount %s is not read-only", where, dir)
				}
			}
		}
		var src *corev1.SecretVolumeSource
		for _, v := range pod.Volumes {
			if v.Name == vol {
				src = v.Secret
			}
		}
		if src == nil {
			t.Fatalf("%s: %s is not in a mounted Secret", where, f)
		}
		secret = src.SecretName
		if src.DefaultMode == nil || *src.DefaultMode&0o007 != 0 || *src.DefaultMode&0o040 == 0 {
			t.Errorf("%s: the Secret's files have mode %v: want readable by the fsGroup, by no other", where, src.DefaultMode)
		}
		for _, s := range secrets {
			if s.Name != src.SecretName {
				continue
			}
			if _, ok := s.Data[filepath.Base(f)]; !ok {
				t.Errorf("%s: %s: the Secret %s holds no %s", where, f, s.Name, filepath.Base(f))
			}
		}
	}
	return secret
}

func checkSecurity(t *testing.T, where string, pod corev1.PodSpec, c corev1.Container) {
	t.Helper()
	if sc := pod.SecurityContext; sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.RunAsUser == nil || *sc.RunAsUser == 0 || sc.FSGroup == nil {
		t.Errorf("%s: the pod does not run as a non-root user with an fsGroup: %+v", where, pod.SecurityContext)
	}
	if sc := c.SecurityContext; sc == nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
		t.Errorf("%s: privilege escalation allowed", where)
	}
	if sc := c.SecurityContext; sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem ||
		sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(sc.Capabilities.Add) != 0 ||
		sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot {
		t.Errorf("%s: the container is not hardened (read-only root, every capability dropped, non-root): %+v", where, c.SecurityContext)
	}
	if pod.AutomountServiceAccountToken == nil || *pod.AutomountServiceAccountToken {
		t.Errorf("%s: the pod mounts a service account token", where)
	}
	// A read-only root leaves the JVMs /tmp, an emptyDir.
	tmp := map[string]bool{}
	for _, v := range pod.Volumes {
		tmp[v.Name] = v.EmptyDir != nil
	}
	var tmpMounted bool
	for _, m := range c.VolumeMounts {
		tmpMounted = tmpMounted || m.MountPath == "/tmp" && tmp[m.Name] && !m.ReadOnly
	}
	if !tmpMounted {
		t.Errorf("%s: no writable emptyDir at /tmp under a read-only root", where)
	}
	if c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero() {
		t.Errorf("%s: no CPU and memory requests: %v", where, c.Resources)
	}
}

// TestChartRender renders each variant, decodes it strictly and checks the
// agents and the coordinator; the renders must match testdata/.
func TestChartRender(t *testing.T) {
	c := loadChart(t)
	agentFlags, runFlags := flagsOf(t, "restorebench_agent.md"), flagsOf(t, "restorebench_run.md")
	for name, vals := range variants {
		t.Run(name, func(t *testing.T) {
			m, err := render(t, c, vals)
			if err != nil {
				t.Fatalf("render: %v", err)
			}
			checkGolden(t, name, joined(m))
			o := decode(t, m)
			ephemeral := name == "ephemeral"
			if len(o.statefulSets) != 1 {
				t.Fatalf("want one StatefulSet, got %d", len(o.statefulSets))
			}
			ss := o.statefulSets[0]
			wantName := map[bool]string{false: "restorebench-agent", true: "restorebench-agent-ephemeral"}[ephemeral]
			if ss.Name != wantName {
				t.Errorf("StatefulSet %s, want %s", ss.Name, wantName)
			}
			pod := ss.Spec.Template.Spec
			for k, v := range ss.Spec.Selector.MatchLabels {
				if ss.Spec.Template.Labels[k] != v {
					t.Errorf("the selector's %s=%s does not match the pods", k, v)
				}
			}
			// One agent per node.
			aa := pod.Affinity
			if aa == nil || aa.PodAntiAffinity == nil || len(aa.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) != 1 {
				t.Fatalf("no required pod anti-affinity: %+v", aa)
			}
			term := aa.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0]
			if term.TopologyKey != "kubernetes.io/hostname" {
				t.Errorf("anti-affinity over %s, want kubernetes.io/hostname", term.TopologyKey)
			}
			for k, v := range term.LabelSelector.MatchLabels {
				if ss.Spec.Template.Labels[k] != v {
					t.Errorf("the anti-affinity's %s=%s does not select the agents", k, v)
				}
			}
			if len(pod.Containers) != 1 {
				t.Fatalf("want one container, got %d", len(pod.Containers))
			}
			ct := pod.Containers[0]
			if len(ct.Command) != 0 || len(ct.Args) == 0 || ct.Args[0] != "agent" {
				t.Fatalf("the container does not run the image's restorebench agent: command %v args %v", ct.Command, ct.Args)
			}
			if ct.Image != "restorebench:latest" {
				t.Errorf("image %s", ct.Image)
			}
			f := argFlags(t, "agent", ct.Args, 1, agentFlags)
			for _, want := range []string{"name", "state-dir", "control-key-file", "command-config", "labels"} {
				if f[want] == "" {
					t.Errorf("agent: no --%s", want)
				}
			}
			if f["name"] != "$(POD_NAME)" {
				t.Errorf("--name=%s, want the pod's name", f["name"])
			}
			if _, ok := f["insecure"]; ok {
				t.Error("the agents run --insecure")
			}
			wantLabels := map[bool]string{false: "node=$(NODE_NAME),state=persistent", true: "node=$(NODE_NAME),state=ephemeral,zone=a"}[ephemeral]
			if f["labels"] != wantLabels {
				t.Errorf("--labels=%s, want %s", f["labels"], wantLabels)
			}
			secret := secretMount(t, "agent", pod, ct, []string{f["control-key-file"], f["command-config"]}, o.secrets)
			checkSecurity(t, "agent", pod, ct)
			// The state dir: a claim, or an emptyDir in the ephemeral variant.
			var stateVol string
			for _, vm := range ct.VolumeMounts {
				if vm.MountPath == f["state-dir"] {
					stateVol = vm.Name
				}
			}
			if stateVol == "" {
				t.Fatalf("--state-dir %s is not a mounted volume", f["state-dir"])
			}
			var emptyDir bool
			for _, v := range pod.Volumes {
				emptyDir = emptyDir || v.Name == stateVol && v.EmptyDir != nil
			}
			if ephemeral {
				if !emptyDir || len(ss.Spec.VolumeClaimTemplates) != 0 || len(o.claims) != 0 {
					t.Errorf("ephemeral: state volume %s emptyDir %v, %d claim templates, %d claims; want an emptyDir and no claim",
						stateVol, emptyDir, len(ss.Spec.VolumeClaimTemplates), len(o.claims))
				}
			} else if emptyDir || len(ss.Spec.VolumeClaimTemplates) != 1 || ss.Spec.VolumeClaimTemplates[0].Name != stateVol ||
				ss.Spec.VolumeClaimTemplates[0].Spec.Resources.Requests.Storage().IsZero() {
				t.Errorf("persistent: state volume %s is not the one claim template with a size: %+v", stateVol, ss.Spec.VolumeClaimTemplates)
			}
			// The Secret: the one named, or the chart's with the given contents.
			if vals["secret"] == nil {
				if secret != "restorebench-kafka" || len(o.secrets) != 0 {
					t.Errorf("default: the agents read %s and the chart makes %d Secrets; want the existing restorebench-kafka and none", secret, len(o.secrets))
				}
			} else {
				if len(o.secrets) != 1 || o.secrets[0].Name != secret {
					t.Fatalf("want the chart's Secret %s, got %d", secret, len(o.secrets))
				}
				d := o.secrets[0].Data
				if string(d["control.key"]) != testKey+"\n" || string(d["client.properties"]) != testProps || len(d["ca.pem"]) == 0 {
					t.Errorf("the Secret does not hold the given contents: %q", d)
				}
				checkSecretAnnotation(t, ss.Spec.Template.Annotations["checksum/secret"], m, d)
			}
			// The coordinator.
			if name != "coordinator" {
				if len(o.jobs) != 0 {
					t.Errorf("a Job without coordinator.enabled")
				}
				return
			}
			if len(o.jobs) != 1 || len(o.claims) != 1 {
				t.Fatalf("want one Job and its results claim, got %d and %d", len(o.jobs), len(o.claims))
			}
			job := o.jobs[0]
			jpod := job.Spec.Template.Spec
			jc := jpod.Containers[0]
			if len(jc.Args) < 2 || jc.Args[0] != "run" || jc.Args[1] != "failover" {
				t.Fatalf("the Job runs %v, want run failover", jc.Args)
			}
			jf := argFlags(t, "coordinator", jc.Args, 2, runFlags)
			if jf["agents"] != "restorebench-agent-0,restorebench-agent-1" {
				t.Errorf("--agents=%s, want the StatefulSet's 2 pods", jf["agents"])
			}
			if jf["brokers"] != "kafka-0.kafka:9092" || jf["repeats"] != "2" {
				t.Errorf("--brokers=%s --repeats=%s", jf["brokers"], jf["repeats"])
			}
			if s := secretMount(t, "coordinator", jpod, jc, []string{jf["control-key-file"], jf["command-config"]}, o.secrets); s != secret {
				t.Errorf("the coordinator reads the Secret %s, the agents %s", s, secret)
			}
			checkSecurity(t, "coordinator", jpod, jc)
			if jpod.RestartPolicy != corev1.RestartPolicyNever {
				t.Errorf("restartPolicy %s", jpod.RestartPolicy)
			}
			var work bool
			for _, v := range jpod.Volumes {
				work = work || v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName == o.claims[0].Name
			}
			if !work || jc.WorkingDir == "" {
				t.Errorf("the run's working directory is not on its results claim")
			}
			if !slices.Contains(ct.Args, "--metrics-addr=:9464") || len(ct.Ports) != 1 {
				t.Errorf("agents.metricsPort: args %v ports %v", ct.Args, ct.Ports)
			}
		})
	}
}

// checkSecretAnnotation: the pods' checksum/secret (which restarts them
// when the chart's Secret changes) is there, and is no plain SHA-256 of
// the Secret or of any of its values, so reading pods tests no guess of a
// password against it.
func checkSecretAnnotation(t *testing.T, sum string, m map[string]string, data map[string][]byte) {
	t.Helper()
	if len(sum) != 64 {
		t.Fatalf("checksum/secret %q: want a SHA-256", sum)
	}
	plain := map[string]string{"the rendered Secret": m[chartDir+"/templates/secret.yaml"]}
	for k, v := range data {
		plain[k] = string(v)
		plain[k+" trimmed"] = strings.TrimSpace(string(v))
		plain[k+" base64"] = base64.StdEncoding.EncodeToString(v)
	}
	for what, v := range plain {
		if h := sha256.Sum256([]byte(v)); hex.EncodeToString(h[:]) == sum {
			t.Errorf("checksum/secret is the plain SHA-256 of %s", what)
		}
	}
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".yaml")
	head := "# The chart (deploy/helm/restorebench) rendered with the values of variant\n# " + name +
		" in deploy/helm/chart_test.go; cd deploy/helm && go test -update rewrites it.\n"
	got = head + got
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(want, []byte(got)) {
		t.Errorf("%s is not the chart's render (%v): run cd deploy/helm && go test -update", path, err)
	}
}

// TestChartRefuses: values that would give agents no key, a placeholder
// key, two sources of the Secret or a label the agent cannot parse fail
// the render with a message naming the value.
func TestChartRefuses(t *testing.T) {
	c := loadChart(t)
	inline := func(key string) map[string]any {
		return map[string]any{"existingSecret": "", "clientProperties": testProps, "controlKey": key}
	}
	for _, tc := range []struct {
		name string
		vals map[string]any
		want string
	}{
		{"no key", map[string]any{"secret": inline("")}, "secret.controlKey"},
		{"short key", map[string]any{"secret": inline("REPLACE: agent keygen FILE")}, "at least 32 bytes"},
		{"no properties", map[string]any{"secret": map[string]any{"existingSecret": "", "controlKey": testKey}}, "secret.clientProperties"},
		{"no brokers", map[string]any{"secret": map[string]any{"existingSecret": "", "controlKey": testKey, "clientProperties": "security.protocol=SSL\n"}}, "no bootstrap.servers"},
		{"both", map[string]any{"secret": map[string]any{"controlKey": testKey}}, "not both"},
		{"label", map[string]any{"agents": map[string]any{"labels": map[string]any{"zone": "a,b"}}}, "agents.labels"},
		{"anti-affinity", map[string]any{"agents": map[string]any{"antiAffinity": "sometimes"}}, "agents.antiAffinity"},
	} {
		_, err := render(t, c, tc.vals)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error with %q", tc.name, err, tc.want)
		}
	}
}

// TestValuesHoldNoKey: values.yaml gives no key, nor anything that looks
// like one (a long base64 or hex run), and the chart's files name none.
func TestValuesHoldNoKey(t *testing.T) {
	c := loadChart(t)
	sec, _ := c.Values["secret"].(map[string]any)
	if sec["controlKey"] != "" || sec["clientProperties"] != "" || len(sec["files"].(map[string]any)) != 0 {
		t.Errorf("values.yaml holds Secret contents: %v", sec)
	}
	// A run of 32 or more base64 or hex characters with a digit in it (a
	// key: 32 random bytes are 44 base64 characters; not a long word).
	long := regexp.MustCompile(`[A-Za-z0-9+/]{32,}={0,2}`)
	digit := regexp.MustCompile(`[0-9]`)
	files := append([]*chart.File{}, c.Raw...)
	for _, tpl := range c.Templates {
		files = append(files, tpl)
	}
	for _, f := range files {
		for _, m := range long.FindAll(f.Data, -1) {
			if digit.Match(m) {
				t.Errorf("%s holds %q: key material?", f.Name, m)
			}
		}
	}
}
