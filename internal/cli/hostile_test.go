package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// secret is the content of a file a catalog must not be able to show.
const secret = "SECRET-TOKEN-4f1c9a"

// hostileCatalog writes a catalog into its own directory below a temporary root whose other
// files hold the secret, and returns the catalog's path and the root.
func hostileCatalog(t *testing.T, body string) (config, root string) {
	t.Helper()
	root = t.TempDir()
	dir := filepath.Join(root, "repo")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "secret.txt"), []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	config = filepath.Join(dir, "gpuobs.jsonnet")
	if err := os.WriteFile(config, []byte("local gpuobs = import 'gpuobs.libsonnet';\n"+body+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return config, root
}

// TestCatalogReadsOnlyItsOwnDirectory: an absolute import, a ../ escape and a symbolic link out
// of the catalog's directory all fail, naming the import and never showing the file.
func TestCatalogReadsOnlyItsOwnDirectory(t *testing.T) {
	for name, body := range map[string]string{
		"absolute": "gpuobs { thresholds+: { gpuTemperatureCelsius: importstr '%ROOT%/secret.txt' } }",
		"escape":   "gpuobs { thresholds+: { gpuTemperatureCelsius: importstr '../secret.txt' } }",
		"symlink":  "gpuobs { thresholds+: { gpuTemperatureCelsius: importstr 'link.txt' } }",
		"import":   "gpuobs + (import '../secret.txt')",
	} {
		t.Run(name, func(t *testing.T) {
			config, root := hostileCatalog(t, "")
			body = strings.ReplaceAll(body, "%ROOT%", root)
			if err := os.WriteFile(config, []byte("local gpuobs = import 'gpuobs.libsonnet';\n"+body+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join(root, "secret.txt"), filepath.Join(filepath.Dir(config), "link.txt")); err != nil {
				t.Fatal(err)
			}
			code, stdout, stderr := run(t, "generate", "-c", config, "-o", t.TempDir())
			if code != ExitError || !strings.Contains(stderr, "is outside") {
				t.Errorf("exit %d, stderr %q: want 1 and the import refused", code, stderr)
			}
			if strings.Contains(stdout+stderr, secret) {
				t.Errorf("the secret was printed: %s", stderr)
			}
		})
	}
}

// TestImportRootWidensWhatACatalogReads: --import-root lets a catalog read a shared library
// beside its directory.
func TestImportRootWidensWhatACatalogReads(t *testing.T) {
	config, root := hostileCatalog(t, "gpuobs + (import '../shared.libsonnet')")
	if err := os.WriteFile(filepath.Join(root, "shared.libsonnet"), []byte("{ thresholds+: { gpuTemperatureCelsius: 91 } }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run(t, "generate", "-c", config, "-o", t.TempDir()); code != ExitError || !strings.Contains(stderr, "is outside") {
		t.Fatalf("without --import-root: exit %d, %s", code, stderr)
	}
	if code, _, stderr := run(t, "generate", "-c", config, "--import-root", root, "-o", t.TempDir()); code != ExitOK {
		t.Fatalf("with --import-root: exit %d, %s", code, stderr)
	}
}

// TestEvaluationIsBounded: endless recursion, a runaway value and an endless loop each end
// with exit 1 and a plain message, quickly, instead of crashing or hanging.
func TestEvaluationIsBounded(t *testing.T) {
	for _, c := range []struct {
		name, body string
		flags      []string
		want       string
	}{
		{"tailstrict recursion", "local f(n) = f(n + 1) tailstrict; gpuobs { x: f(0) }", nil, "recursed too deeply"},
		{"memory", "gpuobs { x: std.length(std.join('', std.makeArray(100000000, function(i) 'xxxxxxxxxxxxxxxxxxxxxxxx'))) }", []string{"--eval-max-memory", "256"}, "more than 256 MiB"},
		{"time", "gpuobs { x: std.foldl(function(a, b) a + b, std.range(1, 100000000), 0) }", []string{"--eval-timeout", "1s", "--eval-max-memory", "100000"}, "longer than 1s"},
		// 1 GB of std.trace output, which the parent buffered whole, in lines of 100 kB.
		{"a trace flood", "local big = std.repeat('x', 100000); gpuobs { x: [std.trace(big, i) for i in std.range(1, 10000)] }", nil, "more than 16 MiB of trace output"},
	} {
		t.Run(c.name, func(t *testing.T) {
			config, _ := hostileCatalog(t, c.body)
			start := time.Now()
			code, _, stderr := run(t, append([]string{"generate", "-c", config, "-o", t.TempDir()}, c.flags...)...)
			if code != ExitError || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, stderr %q: want 1 and %q", code, stderr, c.want)
			}
			if took := time.Since(start); took > 30*time.Second {
				t.Errorf("took %s", took)
			}
			if len(stderr) > 2000 {
				t.Errorf("stderr is %d bytes: a crash dump leaked through", len(stderr))
			}
		})
	}
}

// TestErrorsQuoteOnlyAnExcerpt: a long value in an error message is cut.
func TestErrorsQuoteOnlyAnExcerpt(t *testing.T) {
	config, _ := hostileCatalog(t, "gpuobs { x: error std.join('', std.makeArray(100000, function(i) 'a')) }")
	code, _, stderr := run(t, "generate", "-c", config, "-o", t.TempDir())
	if code != ExitError {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, line := range strings.Split(stderr, "\n") {
		if len(line) > 300 {
			t.Errorf("a %d-byte line was printed: %.80s…", len(line), line)
		}
	}
}

// TestDriftAdviceRepeatsEveryFlag: the command --check suggests regenerates exactly what it
// compared against, catalog and rule formats included.
func TestDriftAdviceRepeatsEveryFlag(t *testing.T) {
	config, _ := hostileCatalog(t, "gpuobs")
	dir := filepath.Join(t.TempDir(), "out dir")
	code, _, stderr := run(t, "generate", "--check", "-c", config, "-o", dir, "--rules-format", "operator,mimir")
	wantCmd := "gpuobs generate -o " + shellQuote(dir) + " -c " + config + " --rules-format operator,mimir"
	if code != ExitError || !strings.Contains(stderr, wantCmd) {
		t.Fatalf("exit %d, stderr %q: want the advice %q", code, stderr, wantCmd)
	}
	args := []string{"generate", "-o", dir, "-c", config, "--rules-format", "operator,mimir"}
	if code, _, stderr := run(t, args...); code != ExitOK {
		t.Fatalf("following the advice: exit %d, %s", code, stderr)
	}
	if code, _, stderr := run(t, "generate", "--check", "-c", config, "-o", dir, "--rules-format", "operator,mimir"); code != ExitOK {
		t.Errorf("after following the advice, --check: exit %d, %s", code, stderr)
	}
}

// TestTemplateLoopsAreBounded: an annotation that loops two billion times fails generation
// at the expansion's step bound, naming the alert, instead of running the parent for minutes.
func TestTemplateLoopsAreBounded(t *testing.T) {
	config := filepath.Join(t.TempDir(), "gpuobs.jsonnet")
	catalog := `(import 'gpuobs.libsonnet') { alerts+: { GPUTemperatureHigh+: { description: '{{ range $i := 2000000000 }}{{ end }}' } } }`
	if err := os.WriteFile(config, []byte(catalog), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	code, _, stderr := run(t, "generate", "-c", config, "-o", t.TempDir())
	if code != ExitError || !strings.Contains(stderr, "the template of GPUTemperatureHigh loops more than 100000 times") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("generate took %s", took)
	}
}

// TestEntryCatalogAndVersionControlAreConfined: a gpuobs.jsonnet that is itself a link to a
// secret outside its directory is refused before it is read, and a catalog at a repository's
// root cannot read .git (where a CI checkout keeps its token); neither shows the secret.
func TestEntryCatalogAndVersionControlAreConfined(t *testing.T) {
	_, root := hostileCatalog(t, "gpuobs")
	link := filepath.Join(root, "repo", "linked.jsonnet")
	if err := os.Symlink(filepath.Join(root, "secret.txt"), link); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := run(t, "generate", "-c", link, "-o", t.TempDir())
	if code != ExitError || !strings.Contains(stderr, "is outside") || strings.Contains(stdout+stderr, secret) {
		t.Errorf("a linked entry catalog: exit %d\n%s%s", code, stdout, stderr)
	}
	repo := filepath.Join(root, "repo")
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, ".git", "config"), []byte("[http]\n\textraheader = AUTHORIZATION: basic "+secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(repo, "gpuobs.jsonnet")
	if err := os.WriteFile(config, []byte("(import 'gpuobs.libsonnet') { runbooks+: { baseURL: importstr '.git/config' } }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = run(t, "generate", "-c", config, "-o", t.TempDir())
	if code != ExitError || !strings.Contains(stderr, "is inside .git: a catalog never reads version control's directories") || strings.Contains(stdout+stderr, secret) {
		t.Errorf("importstr .git/config: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestNamedFilesAreConfined: a baseline, counter or backtest rule file that is a link out of its directory
// (to a token, to the environment) is refused unread; a counter file with lines that are not
// counter lines is an error by line, quoting none of it (a file of secrets read as a counter
// file used to pass as an empty counter set, every field "not collected").
func TestNamedFilesAreConfined(t *testing.T) {
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "secret.env"), []byte("GITHUB_TOKEN="+secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(repo, "out")
	if code, _, stderr := run(t, "generate", "-o", out); code != ExitOK {
		t.Fatal(stderr)
	}
	for _, flag := range []string{"--baseline", "--exporter-counters"} {
		link := filepath.Join(repo, strings.TrimPrefix(flag, "--")+".link")
		if err := os.Symlink(filepath.Join(root, "secret.env"), link); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := run(t, "lint", flag, link, out)
		if code != ExitError || !strings.Contains(stderr, link+" is a symbolic link out of "+repo+": not read") || strings.Contains(stdout+stderr, secret) {
			t.Errorf("%s a link out of its directory: exit %d\n%s", flag, code, stderr)
		}
	}
	link := filepath.Join(repo, "rules.yaml")
	if err := os.Symlink(filepath.Join(root, "secret.env"), link); err != nil {
		t.Fatal(err)
	}
	if code, stdout, stderr := run(t, "backtest", "--data", t.TempDir(), link); code != ExitError || !strings.Contains(stderr, link+" is a symbolic link out of "+repo+": not read") || strings.Contains(stdout+stderr, secret) {
		t.Errorf("backtest of a rule file linked out of its directory: exit %d\n%s", code, stderr)
	}
	junk := filepath.Join(repo, "counters.csv")
	if err := os.WriteFile(junk, []byte("# dcgm-exporter counters\nDCGM_FI_DEV_GPU_TEMP, gauge, GPU temperature (in C).\nGITHUB_TOKEN="+secret+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := run(t, "lint", "--exporter-counters", junk, out)
	if code != ExitError || !strings.Contains(stderr, junk+":3: not a counter line (DCGM field, Prometheus type, help)") || strings.Contains(stdout+stderr, secret) {
		t.Errorf("a counter file with a line that is not a counter: exit %d\n%s", code, stderr)
	}
}

// TestGenerateCompletesAKilledRun: a journal a killed run left (one rename still to make) makes
// generate --check say so, and generate complete it, say so and leave no journal.
func TestGenerateCompletesAKilledRun(t *testing.T) {
	out := t.TempDir()
	if code, _, stderr := run(t, "generate", "-o", out); code != ExitOK {
		t.Fatal(stderr)
	}
	target := filepath.Join(out, "rules", "alerts.yaml")
	content, err := os.ReadFile(target)
	if err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(out, "rules", ".alerts.yaml.gpuobs-12345")
	if err := os.WriteFile(tmp, content, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(target, []byte("# Code generated by gpuobs. DO NOT EDIT.\ngroups: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	journal := `{"renames":[{"from":"rules/.alerts.yaml.gpuobs-12345","to":"rules/alerts.yaml"}],"remove":[]}`
	if err := os.WriteFile(filepath.Join(out, ".gpuobs-journal.json"), []byte(journal), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := run(t, "generate", "--check", "-o", out)
	if code != ExitError || !strings.Contains(stderr, "a generate run was killed while it replaced files") {
		t.Errorf("generate --check with a journal: exit %d\n%s", code, stderr)
	}
	code, stdout, stderr := run(t, "generate", "-o", out)
	if code != ExitOK || !strings.Contains(stdout, "completed 1 renames and removals of a generate run that was killed") || !strings.Contains(stdout, "already up to date") {
		t.Errorf("generate after a killed run: exit %d\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, ".gpuobs-journal.json")); err == nil {
		t.Error("the journal is left")
	}
}
