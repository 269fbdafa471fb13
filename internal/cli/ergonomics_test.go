package cli

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionComesFromTheBuild(t *testing.T) {
	for _, c := range []struct {
		info debug.BuildInfo
		want string
	}{
		{debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "v1.2.3"},
		{debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "true"}}}, "(devel) 0123456789ab (modified)"},
		{debug.BuildInfo{Main: debug.Module{Version: "v0.4.0"}, Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}}}, "v0.4.0 abc"},
	} {
		if got := describeBuild(&c.info); got != c.want {
			t.Errorf("describeBuild = %q, want %q", got, c.want)
		}
	}
	for _, args := range [][]string{{"version"}, {"--version"}} {
		if code, stdout, _ := run(t, args...); code != ExitOK || stdout != "gpuobs v0.0.0-test\n" {
			t.Errorf("gpuobs %s: exit %d, %q", args[0], code, stdout)
		}
	}
}

// TestUsageErrorsHelp: a mistyped command is answered with the command meant, and a usage
// error points at the help of the command it happened in.
func TestUsageErrorsHelp(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"generat"}, []string{`unknown command "generat"`, "did you mean generate?", "Run 'gpuobs --help' for usage."}},
		{[]string{"genrate"}, []string{`unknown command "genrate"`, "did you mean generate?"}},
		{[]string{"lnt"}, []string{`unknown command "lnt"`, "lint?"}},
		{[]string{"generate", "--ouput", "x"}, []string{"unknown flag: --ouput; did you mean --output?", "Run 'gpuobs generate --help' for usage."}},
		{[]string{"lint", "--bogus"}, []string{"unknown flag: --bogus", "Run 'gpuobs lint --help' for usage."}},
		{[]string{"generate", "--rules-format", "helm"}, []string{`unknown rules format "helm"`, "Run 'gpuobs generate --help' for usage."}},
	} {
		code, _, stderr := run(t, c.args...)
		for _, want := range c.want {
			if code != ExitUsage || !strings.Contains(stderr, want) {
				t.Errorf("gpuobs %v: exit %d, stderr %q lacks %q", c.args, code, stderr, want)
			}
		}
	}
}

func TestEveryCommandHasExamples(t *testing.T) {
	root := NewRootCommand(Options{Stdout: os.Stdout, Stderr: os.Stderr})
	if root.Example == "" {
		t.Error("gpuobs has no examples")
	}
	for _, cmd := range root.Commands() {
		if cmd.Example == "" && !cmd.Hidden && cmd.Name() != "help" && cmd.Name() != "completion" {
			t.Errorf("gpuobs %s has no examples", cmd.Name())
		}
	}
}

// TestCompletion: enumerated flags complete their values, -c completes catalog files only.
func TestCompletion(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"lint", "-f", ""}, []string{"text", "json", "github", "sarif", "checkstyle"}},
		{[]string{"lint", "--fail-on", ""}, []string{"info", "warning", "error"}},
		{[]string{"generate", "--rules-format", "plain,"}, []string{"plain,operator", "plain,mimir"}},
		{[]string{"generate", "-c", ""}, []string{"jsonnet", "libsonnet"}},
	} {
		code, stdout, _ := run(t, append([]string{"__complete"}, c.args...)...)
		for _, want := range c.want {
			if code != ExitOK || !strings.Contains(stdout, want+"\n") {
				t.Errorf("completing %v: exit %d, %q lacks %q", c.args, code, stdout, want)
			}
		}
	}
}

// TestMessagesSayWhatHappened: a missing catalog file, a target directory that is not
// there, a clean lint, and a catalog that still links gpuobs' own runbooks.
func TestMessagesSayWhatHappened(t *testing.T) {
	code, _, stderr := run(t, "generate", "-c", "nope.jsonnet", "-o", t.TempDir())
	if code != ExitError || !strings.Contains(stderr, "catalog file nope.jsonnet: no such file or directory") || strings.Contains(stderr, "invalid") {
		t.Errorf("missing catalog: exit %d, %q", code, stderr)
	}
	target := filepath.Join(t.TempDir(), "no", "dir", "gpuobs.jsonnet")
	code, _, stderr = run(t, "init", "-f", target)
	if code != ExitError || !strings.Contains(stderr, "writing "+target+": no such file or directory") || strings.Contains(stderr, ".gpuobs-") {
		t.Errorf("init into a missing directory: exit %d, %q", code, stderr)
	}
	code, stdout, _ := run(t, "lint", "../../rules")
	if code != ExitOK || !strings.Contains(stdout, "checked 2 files: ") || !strings.HasSuffix(stdout, "; no problems\n") {
		t.Errorf("clean lint: exit %d, %q", code, stdout)
	}
	dir := t.TempDir()
	upstream := filepath.Join(dir, "upstream.jsonnet")
	own := filepath.Join(dir, "own.jsonnet")
	for path, body := range map[string]string{
		upstream: "(import 'gpuobs.libsonnet')",
		own:      "(import 'gpuobs.libsonnet') { runbooks+: { baseURL: 'https://git.example.com/monitoring/runbooks/' } }",
	} {
		if err := os.WriteFile(path, []byte(body+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, stderr := run(t, "generate", "-c", upstream, "-o", t.TempDir()); !strings.Contains(stderr, "warning: runbooks.baseURL is still") {
		t.Errorf("a catalog with gpuobs' runbook URL: no warning in %q", stderr)
	}
	if _, _, stderr := run(t, "generate", "-c", own, "-o", t.TempDir()); strings.Contains(stderr, "runbooks.baseURL") {
		t.Errorf("a catalog with its own runbook URL is warned: %q", stderr)
	}
}
