package main

import (
	"bytes"
	"encoding/base64"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"
)

// k8sDoc is the part of a Kubernetes manifest the checks read.
type k8sDoc struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Data map[string]string `yaml:"data"`
	Spec struct {
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

// renders are the chart's renders (deploy/helm/restorebench rendered by
// deploy/helm/chart_test.go, which fails while they are stale).
const renders = "../../deploy/helm/testdata/"

// readManifests decodes every document of the chart's renders.
func readManifests(t *testing.T) map[string][]k8sDoc {
	t.Helper()
	files, err := filepath.Glob(renders + "*.yaml")
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
			if d.APIVersion == "" && d.Kind == "" && d.Metadata.Name == "" {
				continue // the file's heading comment
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
	cmd := parseArgs(t, where, "agent", args[1:])
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

// parseArgs parses args with command's own flags ($(VAR) and %H stand for
// a name) and returns the command.
func parseArgs(t *testing.T, where, command string, args []string) *cobra.Command {
	t.Helper()
	subst := regexp.MustCompile(`\$\([A-Z_]+\)|%H`)
	var fixed []string
	for _, a := range args {
		fixed = append(fixed, subst.ReplaceAllString(a, "x"))
	}
	cmd, _, err := newRootCmd().Find([]string{command})
	if err != nil || cmd.Name() != command {
		t.Fatalf("no %s command: %v", command, err)
	}
	if err := cmd.ParseFlags(fixed); err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	return cmd
}

// TestDeployManifests: the chart's StatefulSets run the agent with flags it takes,
// its state dir on the state volume (a claim, or an emptyDir in the
// ephemeral variant), the selector matching the pods, the client Secret
// mounted (and holding the files the flags name where the chart makes it);
// its coordinator Job runs `run` with flags run takes.
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
	for file, want := range map[string]string{"persistent.yaml": "claim", "ephemeral.yaml": "emptyDir", "coordinator.yaml": "claim"} {
		var sets []k8sDoc
		for _, d := range docs[file] {
			switch {
			case d.Kind == "StatefulSet" && d.APIVersion == "apps/v1":
				sets = append(sets, d)
			case d.Kind == "Job":
				args := d.Spec.Template.Spec.Containers[0].Args
				if len(args) < 2 || args[0] != "run" {
					t.Fatalf("%s: the Job runs %v, not run PROFILE", file, args)
				}
				cmd := parseArgs(t, file+" Job", "run", args[2:])
				for _, f := range []string{"agents", "control-key-file", "command-config"} {
					if !cmd.Flags().Changed(f) {
						t.Errorf("%s: the Job runs without --%s", file, f)
					}
				}
			}
		}
		if len(sets) != 1 {
			t.Fatalf("%s: want one apps/v1 StatefulSet, got %d", file, len(sets))
		}
		s := sets[0].Spec
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
				keyFile, _ := agentFlag(t, c.Args, "control-key-file")
				if mounts[filepath.Dir(keyFile)] != v.Name {
					t.Errorf("%s: --control-key-file %s is not in the Secret %s's mount", file, keyFile, v.Secret.SecretName)
				}
				// A Secret the chart makes holds the files; an existing
				// one (the default) is the user's.
				sec, ok := secrets[v.Secret.SecretName]
				if !ok {
					continue
				}
				props, _ := base64.StdEncoding.DecodeString(sec.Data["client.properties"])
				if !strings.Contains(string(props), "bootstrap.servers=") {
					t.Errorf("%s: the Secret %s holds no client.properties with bootstrap.servers", file, v.Secret.SecretName)
				}
				if _, has := sec.Data[filepath.Base(keyFile)]; !has {
					t.Errorf("%s: --control-key-file %s is not a key of the Secret %s", file, keyFile, v.Secret.SecretName)
				}
			}
		}
		if got := map[bool]string{true: "claim", false: "emptyDir"}[claimed]; got != want || claimed == empty {
			t.Errorf("%s: state volume %s: claimed %v, emptyDir %v; want a %s", file, state, claimed, empty, want)
		}
	}
	if kubectl, err := exec.LookPath("kubectl"); err == nil {
		out, err := exec.Command(kubectl, "apply", "--dry-run=client", "--validate=false", "-f", renders).CombinedOutput()
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
// takes, on the unit's StateDirectory, which is all it may write under a
// hardened sandbox (no privileges, a read-only system, no devices, no
// kernel tunables, only IP and Unix sockets).
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
	for _, want := range []string{"NoNewPrivileges=yes", "CapabilityBoundingSet=", "ProtectSystem=strict", "ReadWritePaths=" + stateDir,
		"ProtectHome=yes", "PrivateTmp=yes", "PrivateDevices=yes", "ProtectKernelTunables=yes", "ProtectKernelModules=yes",
		"RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX", "LockPersonality=yes", "RestrictSUIDSGID=yes", "UMask=0077"} {
		if !slices.Contains(strings.Split(string(b), "\n"), want) {
			t.Errorf("the systemd unit has no %s", want)
		}
	}
}
