package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// k8sDoc is the part of a Kubernetes manifest the checks read.
type k8sDoc struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	StringData map[string]string `yaml:"stringData"`
	Spec       struct {
		Selector struct {
			MatchLabels map[string]string `yaml:"matchLabels"`
		} `yaml:"selector"`
		Template struct {
			Metadata struct {
				Labels map[string]string `yaml:"labels"`
			} `yaml:"metadata"`
			Spec struct {
				Containers []struct {
					Args         []string `yaml:"args"`
					VolumeMounts []struct {
						Name      string `yaml:"name"`
						MountPath string `yaml:"mountPath"`
					} `yaml:"volumeMounts"`
				} `yaml:"containers"`
				Volumes []struct {
					Name     string         `yaml:"name"`
					EmptyDir map[string]any `yaml:"emptyDir"`
					Secret   *struct {
						SecretName string `yaml:"secretName"`
					} `yaml:"secret"`
				} `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
		VolumeClaimTemplates []struct {
			Metadata struct {
				Name string `yaml:"name"`
			} `yaml:"metadata"`
		} `yaml:"volumeClaimTemplates"`
	} `yaml:"spec"`
}

// readManifests decodes every document of the deploy/kubernetes files.
func readManifests(t *testing.T) map[string][]k8sDoc {
	t.Helper()
	files, err := filepath.Glob("../../deploy/kubernetes/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests: %v", err)
	}
	out := map[string][]k8sDoc{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dec := yaml.NewDecoder(bytes.NewReader(b))
		dec.KnownFields(false)
		for {
			var d k8sDoc
			if err := dec.Decode(&d); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if d.APIVersion == "" || d.Kind == "" || d.Metadata.Name == "" {
				t.Fatalf("%s: a document without apiVersion, kind or name", f)
			}
			out[filepath.Base(f)] = append(out[filepath.Base(f)], d)
		}
	}
	return out
}

// checkAgentArgs parses an agent's arguments with the agent command's own
// flags ($(VAR) and %H stand for a name) and returns its --state-dir.
func checkAgentArgs(t *testing.T, where string, args []string) string {
	t.Helper()
	if len(args) == 0 || args[0] != "agent" {
		t.Fatalf("%s: arguments %v do not run the agent", where, args)
	}
	subst := regexp.MustCompile(`\$\([A-Z_]+\)|%H`)
	var fixed []string
	for _, a := range args[1:] {
		fixed = append(fixed, subst.ReplaceAllString(a, "x"))
	}
	root := newRootCmd()
	cmd, _, err := root.Find([]string{"agent"})
	if err != nil || cmd.Name() != "agent" {
		t.Fatalf("no agent command: %v", err)
	}
	if err := cmd.ParseFlags(fixed); err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	for _, f := range []string{"name", "state-dir", "control-key-file"} {
		if !cmd.Flags().Changed(f) {
			t.Fatalf("%s: no --%s", where, f)
		}
	}
	if v, _ := cmd.Flags().GetString("labels"); v != "" {
		if _, err := parseLabels(v); err != nil {
			t.Fatalf("%s: %v", where, err)
		}
	}
	dir, _ := cmd.Flags().GetString("state-dir")
	return dir
}

// TestDeployManifests: the StatefulSets run the agent with flags it takes,
// its state dir on the state volume (a claim, or an emptyDir in the
// ephemeral variant), the selector matching the pods, the client Secret
// mounted and defined.
func TestDeployManifests(t *testing.T) {
	docs := readManifests(t)
	secrets := map[string]k8sDoc{}
	for _, ds := range docs {
		for _, d := range ds {
			if d.Kind == "Secret" {
				secrets[d.Metadata.Name] = d
			}
		}
	}
	for file, want := range map[string]string{"agents-statefulset.yaml": "claim", "agents-ephemeral.yaml": "emptyDir"} {
		ds := docs[file]
		if len(ds) != 1 || ds[0].Kind != "StatefulSet" || ds[0].APIVersion != "apps/v1" {
			t.Fatalf("%s: want one apps/v1 StatefulSet, got %+v", file, ds)
		}
		s := ds[0].Spec
		for k, v := range s.Selector.MatchLabels {
			if s.Template.Metadata.Labels[k] != v {
				t.Errorf("%s: the selector's %s=%s does not match the pods", file, k, v)
			}
		}
		c := s.Template.Spec.Containers[0]
		dir := checkAgentArgs(t, file, c.Args)
		mounts := map[string]string{}
		for _, m := range c.VolumeMounts {
			mounts[m.MountPath] = m.Name
		}
		state := mounts[dir]
		if state == "" {
			t.Fatalf("%s: --state-dir %s is not a mounted volume", file, dir)
		}
		claimed := false
		for _, vc := range s.VolumeClaimTemplates {
			claimed = claimed || vc.Metadata.Name == state
		}
		empty := false
		for _, v := range s.Template.Spec.Volumes {
			empty = empty || v.Name == state && v.EmptyDir != nil
			if v.Secret != nil {
				sec, ok := secrets[v.Secret.SecretName]
				if !ok || !strings.Contains(sec.StringData["client.properties"], "bootstrap.servers=") {
					t.Errorf("%s: the Secret %s is not defined with a client.properties", file, v.Secret.SecretName)
				}
				keyFile, _ := agentFlag(t, c.Args, "control-key-file")
				if _, has := sec.StringData[filepath.Base(keyFile)]; !has || mounts[filepath.Dir(keyFile)] != v.Name {
					t.Errorf("%s: --control-key-file %s is not a key of the Secret %s mounted at %s", file, keyFile, v.Secret.SecretName, filepath.Dir(keyFile))
				}
			}
		}
		if got := map[bool]string{true: "claim", false: "emptyDir"}[claimed]; got != want || claimed == empty {
			t.Errorf("%s: state volume %s: claimed %v, emptyDir %v; want a %s", file, state, claimed, empty, want)
		}
	}
	if kubectl, err := exec.LookPath("kubectl"); err == nil {
		out, err := exec.Command(kubectl, "apply", "--dry-run=client", "--validate=false", "-f", "../../deploy/kubernetes/").CombinedOutput()
		switch {
		case err != nil && bytes.Contains(out, []byte("unable to recognize")) && bytes.Contains(out, []byte("dial tcp")):
			// kubectl maps kinds through a cluster's API, even for a
			// client-side dry run: without one it cannot check anything.
			t.Log("kubectl apply --dry-run=client needs a reachable cluster to map kinds: not checked")
		case err != nil:
			t.Fatalf("kubectl apply --dry-run=client: %v\n%s", err, out)
		}
	}
}

// agentFlag is the value of an agent argument's --name flag.
func agentFlag(t *testing.T, args []string, name string) (string, bool) {
	t.Helper()
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			return v, true
		}
	}
	return "", false
}

// TestDeploySystemdUnit: the unit's ExecStart runs the agent with flags it
// takes, on the unit's StateDirectory.
func TestDeploySystemdUnit(t *testing.T) {
	b, err := os.ReadFile("../../deploy/systemd/restorebench-agent.service")
	if err != nil {
		t.Fatal(err)
	}
	var exec, stateDir string
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "ExecStart="); ok {
			exec = v
		}
		if v, ok := strings.CutPrefix(line, "StateDirectory="); ok {
			stateDir = "/var/lib/" + v
		}
	}
	f := strings.Fields(exec)
	if len(f) < 2 || !strings.HasSuffix(f[0], "/restorebench") {
		t.Fatalf("ExecStart %q does not run restorebench", exec)
	}
	if dir := checkAgentArgs(t, "the systemd unit", f[1:]); dir != stateDir {
		t.Fatalf("--state-dir %s, but the unit's StateDirectory is %s", dir, stateDir)
	}
}
