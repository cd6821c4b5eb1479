package main

import "testing"

// restore --engine picks the engine of its one case; its errors, and the
// kafka-streams engine's refusals of model-only settings, name the flag.
func TestRestoreEngineFlagErrorsNameTheFlag(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"restore", "--engine", "bogus"}, `--engine: "bogus" is not one of model, kafka-streams`},
		{[]string{"restore", "--engine", "kafka-streams", "--strategy", "ingest"}, "--strategy: ingest is model-only"},
		{[]string{"restore", "--engine", "kafka-streams", "--strategy", "bulk", "--topic", "copy-of-prod"}, "--strategy: bulk is model-only"},
	} {
		_, _, err := cli(t, append([]string{"-q", "--data-dir", dir}, c.args...)...)
		wantErr(t, c.args[len(c.args)-1], err, c.want)
	}
}
