package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDiffAgainstAGitRef: in a monitoring repository with generated output committed, a
// catalog edit regenerated into the working tree is reported against HEAD, in each format;
// --fail-on-routing-change turns a routing change into exit 3, and a failing git into exit 1.
func TestDiffAgainstAGitRef(t *testing.T) {
	repo := t.TempDir()
	t.Chdir(repo)
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if code, _, stderr := run(t, "generate", "-o", "monitoring"); code != ExitOK {
		t.Fatalf("generate: %s", stderr)
	}
	git("init", "-q")
	git("add", ".")
	git("commit", "-q", "-m", "base")
	catalog := "(import 'gpuobs.libsonnet') + { alerts+: { GPUTemperatureHigh+: { team: 'ml-platform' } } }\n"
	if err := os.WriteFile("gpuobs.jsonnet", []byte(catalog), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run(t, "generate", "-c", "gpuobs.jsonnet", "-o", "monitoring"); code != ExitOK {
		t.Fatalf("generate: %s", stderr)
	}

	code, stdout, stderr := run(t, "diff", "--base-ref", "HEAD", "monitoring")
	if code != ExitOK || !strings.Contains(stdout, "~ alert GPUTemperatureHigh (ticket)\n    labels.team: \"infra\" → \"ml-platform\"\n") ||
		!strings.Contains(stdout, "routing changed for 1 alerts") {
		t.Errorf("text: exit %d\n%s%s", code, stdout, stderr)
	}

	code, stdout, _ = run(t, "diff", "--base-ref", "HEAD", "-f", "markdown", "monitoring")
	summary, details, _ := strings.Cut(stdout, "<details>")
	if code != ExitOK || !strings.Contains(summary, "| alerts | 1 | 0 | 0 |") || !strings.Contains(summary, "**Routing changes for 1 alerts**") ||
		!strings.Contains(details, "```diff\n- infra\n+ ml-platform\n```") {
		t.Errorf("markdown: summary first, details folded; exit %d\n%s", code, stdout)
	}

	code, stdout, _ = run(t, "diff", "--base-ref", "HEAD", "-f", "json", "monitoring")
	var report struct {
		Alerts []struct {
			Name string
			Head struct{ Receivers []string }
		}
	}
	if err := json.Unmarshal([]byte(stdout), &report); err != nil || code != ExitOK || len(report.Alerts) != 1 ||
		strings.Join(report.Alerts[0].Head.Receivers, ",") != "ml-platform-ticket" {
		t.Errorf("json: exit %d, %v\n%s", code, err, stdout)
	}

	if code, _, stderr = run(t, "diff", "--base-ref", "HEAD", "--fail-on-routing-change", "monitoring"); code != ExitFindings || !strings.Contains(stderr, "1 alerts reach other receivers") {
		t.Errorf("--fail-on-routing-change: exit %d, want %d\n%s", code, ExitFindings, stderr)
	}
	if code, _, _ = run(t, "diff", "--fail-on-routing-change", "monitoring", "monitoring"); code != ExitOK {
		t.Errorf("a directory against itself: exit %d", code)
	}
	// A ref is verified first, with git's own message; one that looks like an option is a ref.
	if code, _, stderr = run(t, "diff", "--base-ref", "no-such-ref", "monitoring"); code != ExitError || !strings.Contains(stderr, `"no-such-ref" is not a commit of this repository (git rev-parse: fatal: Needed a single revision)`) {
		t.Errorf("unknown ref: exit %d\n%s", code, stderr)
	}
	if code, _, stderr = run(t, "diff", "--base-ref=--output=planted", "monitoring"); code != ExitError || !strings.Contains(stderr, `"--output=planted" is not a commit`) {
		t.Errorf("a ref like an option: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(repo, "planted")); err == nil {
		t.Error("git wrote the file an option-like ref named")
	}
	if code, _, _ = run(t, "diff", "monitoring"); code != ExitUsage {
		t.Errorf("one directory without --base-ref: exit %d, want usage", code)
	}
	if _, err := os.Stat(filepath.Join(repo, "monitoring", "rules", "alerts.yaml")); err != nil {
		t.Errorf("the working tree changed: %v", err)
	}
}
