package lint

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gpuobs/gpuobs/internal/source"
)

// TestReadPathsSkipsWhatIsNotARegularFile: a named pipe, a directory named like a rule file
// and a symbolic-link loop are reported, and the rule file beside them is still read; nothing
// hangs.
func TestReadPathsSkipsWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	if err := os.WriteFile(good, []byte(rules("      - record: node:x:sum\n        expr: sum(up)\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "dir.yaml"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "dir.yaml"), filepath.Join(dir, "link-to-dir.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "loop.yaml"), filepath.Join(dir, "loop.yaml")); err != nil {
		t.Fatal(err)
	}
	done := make(chan []*source.File)
	go func() { done <- source.ReadPaths([]string{dir, filepath.Join(dir, "pipe.yaml")}) }()
	var files []*source.File
	select {
	case files = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("ReadPaths hangs")
	}
	got := map[string]string{}
	for _, f := range files {
		msg := "read"
		if f.Err != nil {
			msg = readProblem(f).Severity.String() + ": " + f.Err.Message
		}
		got[filepath.Base(f.Path)] = msg
	}
	for name, want := range map[string]string{
		"good.yaml":        "read",
		"pipe.yaml":        "warning: not a regular file (a named pipe): skipped",
		"link-to-dir.yaml": "warning: not a regular file (a directory): skipped",
		"loop.yaml":        "error: cannot read the file: too many levels of symbolic links",
	} {
		if got[name] != want {
			t.Errorf("%s: %q, want %q", name, got[name], want)
		}
	}
}

// TestLongLinesShowAWindow: a problem on a minified dashboard shows the part of the line
// around it, not the whole line.
func TestLongLinesShowAWindow(t *testing.T) {
	padding := strings.Repeat(`{"title": "x", "type": "text"}, `, 2000)
	src := `{"tags": ["L1"], "panels": [` + padding + `{"title": "T", "targets": [{"expr": "DCGM_FI_DEV_XID_ERRORS[5m]"}]}]}`
	f := source.ReadDashboard("d.json", []byte(src))
	problems := Run(NewInputs(loadPlan(t), []*source.File{f}), Checks())
	if len(problems) == 0 {
		t.Fatal("no problem found")
	}
	var out bytes.Buffer
	if err := Reporters.Write(&out, "text", Result{Problems: problems, Files: []*source.File{f}}); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(out.String(), "\n") {
		if len(line) > 400 {
			t.Fatalf("a %d-byte line was echoed", len(line))
		}
	}
	if !strings.Contains(out.String(), "DCGM_FI_DEV_XID_ERRORS") {
		t.Errorf("the window does not show the problem:\n%s", out.String())
	}
}

// TestNamesStayOnTheirLine: an alert name holding a newline and a GitHub workflow command
// cannot start a line of its own in the text report (a CI log runs such a line), and in the
// github format each problem is exactly one annotation.
func TestNamesStayOnTheirLine(t *testing.T) {
	src := rules("      - alert: \"GPUHot\\n::error file=x.yaml,line=1::planted\"\n        expr: DCGM_FI_DEV_GPU_TEMP > 90\n")
	f := source.ReadRules("r.yaml", []byte(src))
	problems := Run(NewInputs(loadPlan(t), []*source.File{f}), Checks())
	if len(problems) == 0 {
		t.Fatal("no problem found")
	}
	for _, format := range []string{"text", "github"} {
		var out bytes.Buffer
		if err := Reporters.Write(&out, format, Result{Problems: problems, Files: []*source.File{f}}); err != nil {
			t.Fatal(err)
		}
		commands := 0
		for _, line := range strings.Split(out.String(), "\n") {
			if strings.HasPrefix(line, "::") {
				commands++
			}
		}
		want := map[string]int{"text": 0, "github": len(problems)}[format]
		if commands != want || !strings.Contains(out.String(), "planted") {
			t.Errorf("%s: %d lines start a workflow command, want %d:\n%s", format, commands, want, out.String())
		}
	}
}

// TestLinksOutOfTheTreeAreNotRead: a rule file that is a link out of the directory lint was
// given (or out of a named file's directory) is skipped unread: none of its lines is echoed.
func TestLinksOutOfTheTreeAreNotRead(t *testing.T) {
	outside := t.TempDir()
	const secret = "TOKEN-9d3e-never-echoed"
	target := filepath.Join(outside, "secret.yaml")
	if err := os.WriteFile(target, []byte(rules("      - record: node:x:sum\n        expr: sum(DCGM_FI_DEV_POWER_USAGE) # "+secret+"\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Symlink(target, filepath.Join(dir, "linked.yaml")); err != nil {
		t.Fatal(err)
	}
	for _, paths := range [][]string{{dir}, {filepath.Join(dir, "linked.yaml")}} {
		files := source.ReadPaths(paths)
		problems := Run(NewInputs(loadPlan(t), files), Checks())
		var out bytes.Buffer
		if err := Reporters.Write(&out, "text", Result{Problems: problems, Files: files}); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out.String(), secret) || len(files) != 1 || files[0].Err == nil || !strings.Contains(files[0].Err.Message, "a symbolic link out of") {
			t.Errorf("%v: %d files:\n%s", paths, len(files), out.String())
		}
	}
}
