package testutil

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunToolReplaysOnlyTheSameRun: a run of promtool is kept and replayed (a planted output
// shows it was not run again) while the tool, its arguments and every file under the
// directory are the same; an edited file runs it again; a failure is kept with its exit
// status and replayed as a failure, the directory's path restored in its output; "off" runs
// every time.
func TestRunToolReplaysOnlyTheSameRun(t *testing.T) {
	runs := t.TempDir()
	t.Setenv(ToolRunsEnv, runs)
	dir := t.TempDir()
	rules := filepath.Join(dir, "rules.yaml")
	write := func(text string) {
		t.Helper()
		if err := os.WriteFile(rules, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	entries := func() []string {
		t.Helper()
		names, err := filepath.Glob(filepath.Join(runs, "[0-9a-f]*"))
		if err != nil {
			t.Fatal(err)
		}
		return names
	}
	check := func() (string, error) { return RunTool(t, "promtool", dir, nil, "check", "rules", rules) }

	write("groups:\n- name: g\n  rules:\n  - record: a:b:sum\n    expr: sum(up)\n")
	out, err := check()
	if err != nil || !strings.Contains(out, "SUCCESS") || len(entries()) != 1 {
		t.Fatalf("first run: %v, %d kept\n%s", err, len(entries()), out)
	}
	plant := func(text string) {
		t.Helper()
		if err := os.WriteFile(entries()[0], []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	plant("0\nplanted")
	if out, err := check(); err != nil || out != "planted" {
		t.Errorf("the same run again: %q, %v; want the kept output replayed", out, err)
	}

	write("groups:\n- name: g\n  rules:\n  - record: a:b:sum\n    expr: sum(up\n")
	out, err = check()
	if err == nil || !strings.Contains(out, rules) || len(entries()) != 2 {
		t.Fatalf("an edited file: %v, %d kept\n%s", err, len(entries()), out)
	}
	again, againErr := check()
	if againErr == nil || againErr.Error() != err.Error() || again != out {
		t.Errorf("the failure replayed as %q (%v), want %q (%v)", again, againErr, out, err)
	}

	t.Setenv(ToolRunsEnv, "off")
	write("groups:\n- name: g\n  rules:\n  - record: a:b:sum\n    expr: sum(up)\n")
	if out, err := check(); err != nil || !strings.Contains(out, "SUCCESS") {
		t.Errorf("with %s=off: %v\n%s", ToolRunsEnv, err, out)
	}
}

// TestOutsideDirFindsAFileTheKeyMisses: an absolute path out of the run's directory is found
// (its changes would not reach the key); paths under it, relative paths and flags are not.
func TestOutsideDirFindsAFileTheKeyMisses(t *testing.T) {
	dir := t.TempDir()
	under := filepath.Join(dir, "rules", "a.yaml")
	elsewhere := filepath.Join(t.TempDir(), "b.yaml")
	if got := outsideDir(dir, []string{"test", "rules", "--run", "x", under, "tests/c.yaml"}); got != "" {
		t.Errorf("outsideDir = %q for arguments under the directory", got)
	}
	for _, args := range [][]string{{"check", "rules", under, elsewhere}, {filepath.Join(dir, "..", "c.yaml")}} {
		if got := outsideDir(dir, args); got != args[len(args)-1] {
			t.Errorf("outsideDir(%v) = %q, want %q", args, got, args[len(args)-1])
		}
	}
}
