package emit

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gpuobs/gpuobs/internal/output"
	"github.com/gpuobs/gpuobs/internal/testutil"
)

func gen(path, body string) File { return YAML(path, []byte(body)) }

func TestWriteThenCheckIsClean(t *testing.T) {
	dir := t.TempDir()
	files := []File{gen("rules/a.yaml", "a: 1\n"), gen("tests/promtool/b.yaml", "b: 2\n")}
	if err := Write(dir, files, []string{"rules", "tests/promtool"}); err != nil {
		t.Fatal(err)
	}
	d, err := Check(dir, files, []string{"rules", "tests/promtool"})
	if err != nil || !d.Empty() {
		t.Fatalf("drift right after writing: %v %v", d, err)
	}
	got := testutil.ReadTree(t, dir)
	if !strings.HasPrefix(got["rules/a.yaml"], "# "+output.Header+"\n") {
		t.Errorf("missing header: %q", got["rules/a.yaml"])
	}
}

func TestCheckReportsStaleMissingExtra(t *testing.T) {
	dir := t.TempDir()
	managed := []string{"rules"}
	old := []File{gen("rules/a.yaml", "a: 1\n"), gen("rules/gone.yaml", "g: 1\n")}
	if err := Write(dir, old, managed); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "rules", "handwritten.yaml"), []byte("groups: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	now := []File{gen("rules/a.yaml", "a: 2\n"), gen("rules/new.yaml", "n: 1\n")}
	d, err := Check(dir, now, managed)
	if err != nil {
		t.Fatal(err)
	}
	want := "stale: rules/a.yaml\nmissing: rules/new.yaml\nextra: rules/gone.yaml\n"
	if d.String() != want {
		t.Errorf("drift:\n%s\nwant:\n%s", d, want)
	}
}

func TestWriteRemovesOnlyGeneratedExtras(t *testing.T) {
	dir := t.TempDir()
	managed := []string{"rules"}
	if err := Write(dir, []File{gen("rules/gone.yaml", "g: 1\n")}, managed); err != nil {
		t.Fatal(err)
	}
	hand := filepath.Join(dir, "rules", "handwritten.yaml")
	if err := os.WriteFile(hand, []byte("groups: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(dir, []File{gen("rules/a.yaml", "a: 1\n")}, managed); err != nil {
		t.Fatal(err)
	}
	got := testutil.ReadTree(t, dir)
	if _, ok := got["rules/gone.yaml"]; ok {
		t.Error("a generated file that is no longer produced was kept")
	}
	if got["rules/handwritten.yaml"] != "groups: []\n" {
		t.Error("a file gpuobs did not generate was touched")
	}
}

func TestFailedWriteLeavesDirectoryUntouched(t *testing.T) {
	dir := t.TempDir()
	managed := []string{"rules"}
	if err := Write(dir, []File{gen("rules/a.yaml", "a: 1\n")}, managed); err != nil {
		t.Fatal(err)
	}
	// A regular file where the second output needs a directory: the write must fail after the
	// first file was staged, and roll everything back.
	if err := os.WriteFile(filepath.Join(dir, "blocker"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := testutil.ReadTree(t, dir)
	err := Write(dir, []File{gen("rules/a.yaml", "a: 2\n"), gen("blocker/b.yaml", "b: 1\n")}, managed)
	if err == nil {
		t.Fatal("write through a file succeeded")
	}
	after := testutil.ReadTree(t, dir)
	if len(after) != len(before) {
		t.Errorf("files changed: before %v after %v", before, after)
	}
	for k, v := range before {
		if after[k] != v {
			t.Errorf("%s changed from %q to %q", k, v, after[k])
		}
	}
}

// TestWriteWithRepeatedManagedDirs: two generators may own the same directory; a file that is
// no longer generated there is removed once.
func TestWriteWithRepeatedManagedDirs(t *testing.T) {
	dir := t.TempDir()
	if err := Write(dir, []File{YAML("rules/a.yaml", []byte("a: 1\n")), YAML("rules/old/b.yaml", []byte("b: 1\n"))}, []string{"rules"}); err != nil {
		t.Fatal(err)
	}
	if err := Write(dir, []File{YAML("rules/a.yaml", []byte("a: 1\n"))}, []string{"rules", "rules"}); err != nil {
		t.Fatalf("second write: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "rules/old/b.yaml")); !os.IsNotExist(err) {
		t.Errorf("the file no longer generated is still there: %v", err)
	}
}

// TestUnchangedFilesAreNotTouched: a second write of the same bytes leaves files (and their
// modification times) alone, so a generate in CI with no change touches nothing.
func TestUnchangedFilesAreNotTouched(t *testing.T) {
	dir := t.TempDir()
	files := []File{gen("rules/a.yaml", "a: 1\n"), gen("rules/b.yaml", "b: 1\n")}
	if err := Write(dir, files, []string{"rules"}); err != nil {
		t.Fatal(err)
	}
	past := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, f := range files {
		if err := os.Chtimes(filepath.Join(dir, f.Path), past, past); err != nil {
			t.Fatal(err)
		}
	}
	files[1] = gen("rules/b.yaml", "b: 2\n")
	if err := Write(dir, files, []string{"rules"}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path    string
		touched bool
	}{{"rules/a.yaml", false}, {"rules/b.yaml", true}} {
		info, err := os.Stat(filepath.Join(dir, c.path))
		if err != nil {
			t.Fatal(err)
		}
		if touched := !info.ModTime().Equal(past); touched != c.touched {
			t.Errorf("%s touched = %v, want %v", c.path, touched, c.touched)
		}
	}
}

// TestAnotherRunsTempFilesAreNotOurs: a temporary file of a run still under way carries the
// header, but is neither reported nor removed as a stale generated file.
func TestAnotherRunsTempFilesAreNotOurs(t *testing.T) {
	dir := t.TempDir()
	files := []File{gen("rules/a.yaml", "a: 1\n")}
	if err := Write(dir, files, []string{"rules"}); err != nil {
		t.Fatal(err)
	}
	temp := filepath.Join(dir, "rules", ".a.yaml"+tempMarker+"12345")
	if err := os.WriteFile(temp, gen("rules/a.yaml", "a: 2\n").Content, 0o644); err != nil {
		t.Fatal(err)
	}
	if d, err := Check(dir, files, []string{"rules"}); err != nil || !d.Empty() {
		t.Errorf("Check = %v %v, want no drift", d, err)
	}
	if err := Write(dir, files, []string{"rules"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(temp); err != nil {
		t.Errorf("another run's temporary file was removed: %v", err)
	}
}

// TestConcurrentWritesTakeTurns: two runs writing into one directory at once both succeed and
// leave one run's output whole.
func TestConcurrentWritesTakeTurns(t *testing.T) {
	for round := range 20 {
		dir := t.TempDir()
		outputs := [2][]File{}
		for run := range outputs {
			for i := range 20 {
				outputs[run] = append(outputs[run], gen(fmt.Sprintf("rules/f%02d.yaml", i), fmt.Sprintf("run: %d\n", run)))
			}
		}
		errs := make([]error, 2)
		var wg sync.WaitGroup
		for run := range outputs {
			wg.Go(func() { errs[run] = Write(dir, outputs[run], []string{"rules"}) })
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		got := testutil.ReadTree(t, dir)
		if len(got) != 20 {
			t.Fatalf("round %d: %d files, want 20: %v", round, len(got), got)
		}
		first := got["rules/f00.yaml"]
		for p, c := range got {
			if c != first {
				t.Fatalf("round %d: %s holds %q, f00 %q: the runs' outputs are mixed", round, p, c, first)
			}
		}
	}
}

// TestFailedRenameRestoresWhatWasRenamed: when a rename fails half-way, the files already
// renamed get their old content back, and new ones are removed.
func TestFailedRenameRestoresWhatWasRenamed(t *testing.T) {
	dir := t.TempDir()
	managed := []string{"rules"}
	if err := Write(dir, []File{gen("rules/a.yaml", "a: 1\n")}, managed); err != nil {
		t.Fatal(err)
	}
	before := testutil.ReadTree(t, dir)
	calls := 0
	rename = func(from, to string) error {
		if calls++; calls == 3 {
			return errors.New("disk full")
		}
		return os.Rename(from, to)
	}
	defer func() { rename = os.Rename }()
	err := Write(dir, []File{gen("rules/a.yaml", "a: 2\n"), gen("rules/b.yaml", "b: 1\n"), gen("rules/c.yaml", "c: 1\n")}, managed)
	var partial *PartialError
	if err == nil || errors.As(err, &partial) {
		t.Fatalf("Write = %v, want a plain error (everything restored)", err)
	}
	after := testutil.ReadTree(t, dir)
	if fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("after a failed rename the directory holds %v, want %v", after, before)
	}
}

// TestCommentRules: comment lines go above their rule, at its indentation, in a plain rule
// file and in a manifest; a count that does not match is an error.
func TestCommentRules(t *testing.T) {
	plain := "groups:\n  - name: g\n    rules:\n      - record: a\n        expr: |-\n          x\n      - alert: B\n        expr: y\n"
	got, err := CommentRules([]byte(plain), [][]string{nil, {"why", "pint disable promql/impossible"}})
	want := "groups:\n  - name: g\n    rules:\n      - record: a\n        expr: |-\n          x\n      # why\n      # pint disable promql/impossible\n      - alert: B\n        expr: y\n"
	if err != nil || string(got) != want {
		t.Errorf("CommentRules = %q, %v; want %q", got, err, want)
	}
	manifest := "spec:\n  groups:\n    - name: g\n      rules:\n        - record: a\n          expr: x\n"
	if got, err := CommentRules([]byte(manifest), [][]string{{"c"}}); err != nil || !strings.Contains(string(got), "\n        # c\n        - record: a") {
		t.Errorf("manifest: %q, %v", got, err)
	}
	if _, err := CommentRules([]byte(plain), [][]string{nil}); err == nil {
		t.Error("two rules and one comment list: no error")
	}
	// A line of annotation text that reads like a rule is text: the rule count holds and the
	// comment lands above the rule.
	tricky := "groups:\n  - name: g\n    rules:\n      - alert: A\n        expr: x\n        annotations:\n          description: |-\n            one\n            - alert: X\n            three\n      - record: b\n        expr: y\n"
	got, err = CommentRules([]byte(tricky), [][]string{nil, {"c"}})
	if err != nil || !strings.Contains(string(got), "            three\n      # c\n      - record: b\n") || strings.Count(string(got), "# c") != 1 {
		t.Errorf("annotation text like a rule: %q, %v", got, err)
	}
}

// TestWritesStayInTheTree: a path from data that leaves the output directory is refused, and
// so is a committed link on the way to a file or a managed directory: nothing is written or
// removed through it, and nothing is written at all.
func TestWritesStayInTheTree(t *testing.T) {
	outside := t.TempDir()
	stale := gen("runbooks/Old.md", "old\n")
	if err := os.WriteFile(filepath.Join(outside, "Old.md"), stale.Content, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		setup func(dir string)
		files []File
		want  string
	}{
		{"a name with ../", nil, []File{gen("rules/a.yaml", "a: 1\n"), gen("dashboards/../../x.json", "{}")}, `refusing to write "dashboards/../../x.json": not a plain path inside`},
		{"an absolute name", nil, []File{gen("/tmp/x.yaml", "a: 1\n")}, "not a plain path"},
		{"a linked directory", func(dir string) {
			if err := os.Symlink(outside, filepath.Join(dir, "runbooks")); err != nil {
				t.Fatal(err)
			}
		}, []File{gen("rules/a.yaml", "a: 1\n"), gen("runbooks/New.md", "new\n")}, "runbooks is a symbolic link"},
		{"a linked managed directory with a stale file", func(dir string) {
			if err := os.Symlink(outside, filepath.Join(dir, "runbooks")); err != nil {
				t.Fatal(err)
			}
		}, []File{gen("rules/a.yaml", "a: 1\n")}, "runbooks is a symbolic link"},
		{"a linked file", func(dir string) {
			if err := os.MkdirAll(filepath.Join(dir, "rules"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join(outside, "Old.md"), filepath.Join(dir, "rules", "a.yaml")); err != nil {
				t.Fatal(err)
			}
		}, []File{gen("rules/a.yaml", "a: 1\n")}, "a.yaml is a symbolic link"},
	} {
		t.Run(c.name, func(t *testing.T) {
			parent := t.TempDir()
			dir := filepath.Join(parent, "out")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if c.setup != nil {
				c.setup(dir)
			}
			err := Write(dir, c.files, []string{"rules", "runbooks", "dashboards"})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Write: %v, want %q", err, c.want)
			}
			if _, err := Check(dir, c.files, []string{"rules", "runbooks", "dashboards"}); err == nil {
				t.Error("Check reads through what Write refused")
			}
			if _, err := os.Stat(filepath.Join(parent, "x.json")); err == nil {
				t.Error("x.json written beside the output directory")
			}
			if _, err := os.Stat(filepath.Join(dir, "rules", "a.yaml")); err == nil && c.setup == nil {
				t.Error("rules/a.yaml written although the run was refused")
			}
			entries, _ := os.ReadDir(outside)
			if len(entries) != 1 {
				t.Errorf("the link's target holds %d files, want its one: written or removed through the link", len(entries))
			}
		})
	}
}

// TestSignalsLeaveAWholeTree: SIGTERM while the temporary files are written stops the run with
// the tree as it was and no temporary file left; SIGTERM while they are renamed into place
// lets the renames complete: the tree is wholly new. Never half old, half new.
func TestSignalsLeaveAWholeTree(t *testing.T) {
	managed := []string{"rules"}
	next := []File{gen("rules/a.yaml", "a: 2\n"), gen("rules/b.yaml", "b: 2\n"), gen("rules/c.yaml", "c: 2\n")}
	signalOnSecond := func() func() {
		calls := 0
		return func() {
			if calls++; calls == 2 {
				if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
					t.Fatal(err)
				}
				time.Sleep(50 * time.Millisecond) // the signal is delivered
			}
		}
	}
	for _, c := range []struct {
		name  string
		hook  func(signal func())
		want  string
		isNew bool
	}{
		{"while writing", func(signal func()) {
			createTemp = func(target string, content []byte) (string, error) { signal(); return writeTemp(target, content) }
		}, "interrupted (terminated) before any file was replaced", false},
		{"while renaming", func(signal func()) {
			rename = func(from, to string) error { signal(); return os.Rename(from, to) }
		}, "interrupted (terminated) while files were replaced: the renames were completed", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			old := []File{gen("rules/a.yaml", "a: 1\n"), gen("rules/b.yaml", "b: 1\n"), gen("rules/c.yaml", "c: 1\n")}
			if err := Write(dir, old, managed); err != nil {
				t.Fatal(err)
			}
			c.hook(signalOnSecond())
			defer func() { createTemp, rename = writeTemp, os.Rename }()
			err := Write(dir, next, managed)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Write: %v, want %q", err, c.want)
			}
			want := old
			if c.isNew {
				want = next
			}
			if d, err := Check(dir, want, managed); err != nil || !d.Empty() {
				t.Errorf("the tree is neither wholly old nor wholly new: %v %v", d, err)
			}
			entries, _ := os.ReadDir(filepath.Join(dir, "rules"))
			if len(entries) != 3 {
				t.Errorf("%d files in rules/, want 3: temporary files left", len(entries))
			}
		})
	}
}

// killEnv names the step at which the helper process kills itself (SIGKILL, which no handler
// sees): "write" on its second temporary file, "rename" on its second rename.
const killEnv = "GPUOBS_EMIT_KILL_AT"

// TestHelperKilledWrite is the child TestKilledRunIsRecovered runs: it writes the new tree
// into the directory it is given and kills itself part way.
func TestHelperKilledWrite(t *testing.T) {
	at, dir := os.Getenv(killEnv), os.Getenv("GPUOBS_EMIT_DIR")
	if at == "" {
		return // not the helper
	}
	calls := 0
	kill := func() {
		if calls++; calls == 2 {
			if err := syscall.Kill(os.Getpid(), syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			time.Sleep(time.Minute)
		}
	}
	switch at {
	case "write":
		createTemp = func(target string, content []byte) (string, error) { kill(); return writeTemp(target, content) }
	case "rename":
		rename = func(from, to string) error { kill(); return os.Rename(from, to) }
	}
	if err := Write(dir, killedNext, []string{"rules"}); err != nil {
		t.Fatal(err)
	}
}

// killedNext is the tree the killed run writes over three old files (it drops c.yaml).
var killedNext = []File{gen("rules/a.yaml", "a: 2\n"), gen("rules/b.yaml", "b: 2\n"), gen("rules/d.yaml", "d: 2\n")}

// TestKilledRunIsRecovered: a run killed outright while writing its temporary files leaves
// the old tree and temporaries that Recover removes; one killed during its renames leaves a
// mixed tree and its journal, and Recover completes the renames and removals: the new tree.
// Neither leaves a temporary file or the journal behind.
func TestKilledRunIsRecovered(t *testing.T) {
	managed := []string{"rules"}
	old := []File{gen("rules/a.yaml", "a: 1\n"), gen("rules/b.yaml", "b: 1\n"), gen("rules/c.yaml", "c: 1\n")}
	for _, c := range []struct {
		at    string
		want  []File
		found Recovered
	}{
		{"write", old, Recovered{Temporary: 1}},
		{"rename", killedNext, Recovered{Completed: 3}},
	} {
		t.Run(c.at, func(t *testing.T) {
			dir := t.TempDir()
			if err := Write(dir, old, managed); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperKilledWrite$")
			cmd.Env = append(os.Environ(), killEnv+"="+c.at, "GPUOBS_EMIT_DIR="+dir)
			if err := cmd.Run(); err == nil {
				t.Fatal("the helper was not killed")
			}
			if c.at == "rename" {
				if d, _ := Check(dir, killedNext, managed); d.Empty() {
					t.Fatal("the killed run's tree is already whole: the test kills too late")
				}
			}
			found, err := Recover(dir, killedNext, managed)
			if err != nil || found != c.found {
				t.Errorf("Recover = %+v, %v; want %+v", found, err, c.found)
			}
			if d, err := Check(dir, c.want, managed); err != nil || !d.Empty() {
				t.Errorf("after Recover the tree is not whole: %v %v", d, err)
			}
			for _, sub := range []string{".", "rules"} {
				entries, _ := os.ReadDir(filepath.Join(dir, sub))
				for _, e := range entries {
					if isTemp(e.Name()) || e.Name() == output.Journal {
						t.Errorf("%s left in %s", e.Name(), sub)
					}
				}
			}
		})
	}
}

// TestHostileJournalIsRefused: a journal committed by a pull request cannot have Recover move a
// file out of the tree, rename what is not a temporary file of gpuobs, or remove a user's file.
func TestHostileJournalIsRefused(t *testing.T) {
	for _, c := range []struct{ name, journal, want string }{
		{"out of the tree", `{"renames":[{"from":"../.a.yaml.gpuobs-1","to":"../a.yaml"}]}`, "not a plain path inside"},
		{"not a temporary file", `{"renames":[{"from":"rules/mine.yaml","to":"rules/a.yaml"}]}`, "not a temporary file of gpuobs"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, output.Journal), []byte(c.journal), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := Recover(dir, nil, []string{"rules"}); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Recover: %v, want %q", err, c.want)
			}
		})
	}
	dir := t.TempDir()
	mine := filepath.Join(dir, "rules", "mine.yaml")
	if err := os.MkdirAll(filepath.Dir(mine), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mine, []byte("groups: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, output.Journal), []byte(`{"remove":["rules/mine.yaml"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Recover(dir, nil, []string{"rules"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(mine); err != nil {
		t.Error("Recover removed a file gpuobs did not generate")
	}
}

// TestPlantedJournalMovesNothingOutOfTheTree: a pull request that plants a journal beside a
// directory named like a temporary file of gpuobs, holding a link out of the tree, cannot have
// Recover rename the directory into place and then remove through the link; a journal that
// renames onto a hand-written file, or onto a file gpuobs does not generate, is refused too,
// with a sentence naming what it tried, and nothing is touched.
func TestPlantedJournalMovesNothingOutOfTheTree(t *testing.T) {
	header := "# " + output.Header + "\n"
	declared := []File{gen("rules/x.yaml", "x: 1\n"), gen("rules/alerts.yaml", "a: 1\n")}
	for _, c := range []struct {
		name, journal, want string
		tree                map[string]string
		kept                string
	}{
		{
			name:    "a planted directory that holds a link",
			journal: `{"renames":[{"from":"rules/.x.yaml.gpuobs-1","to":"rules/x.yaml"}],"remove":["rules/x.yaml/out/victim.yaml"]}`,
			tree:    map[string]string{"rules/.x.yaml.gpuobs-1/keep": "x"},
			want:    `renames "rules/.x.yaml.gpuobs-1", which is not a file gpuobs wrote (a directory`,
			kept:    "victim.yaml",
		},
		{
			name:    "a rename over a hand-written file",
			journal: `{"renames":[{"from":"rules/.alerts.yaml.gpuobs-1","to":"rules/alerts.yaml"}]}`,
			tree:    map[string]string{"rules/.alerts.yaml.gpuobs-1": header + "a: 1\n", "rules/alerts.yaml": "groups: [] # mine\n"},
			want:    `over "rules/alerts.yaml", a file without the gpuobs header`,
			kept:    "rules/alerts.yaml",
		},
		{
			name:    "a rename onto a file gpuobs does not generate",
			journal: `{"renames":[{"from":"rules/.mine.yaml.gpuobs-1","to":"rules/mine.yaml"}]}`,
			tree:    map[string]string{"rules/.mine.yaml.gpuobs-1": header + "a: 1\n", "rules/mine.yaml": header + "groups: []\n"},
			want:    `onto "rules/mine.yaml", which gpuobs does not generate`,
			kept:    "rules/mine.yaml",
		},
		{
			name:    "a removal outside the managed directories",
			journal: `{"remove":["notes.yaml"]}`,
			tree:    map[string]string{"notes.yaml": header + "n: 1\n"},
			want:    `removes "notes.yaml", which is outside the directories gpuobs manages`,
			kept:    "notes.yaml",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, outside := t.TempDir(), t.TempDir()
			testutil.WriteTree(t, outside, map[string]string{"victim.yaml": header + "v: 1\n"})
			testutil.WriteTree(t, dir, c.tree)
			if strings.Contains(c.journal, "/out/") {
				if err := os.Symlink(outside, filepath.Join(dir, "rules", ".x.yaml.gpuobs-1", "out")); err != nil {
					t.Fatal(err)
				}
			}
			testutil.WriteTree(t, dir, map[string]string{output.Journal: c.journal})
			before := map[string][]byte{}
			for p := range c.tree {
				before[p], _ = os.ReadFile(filepath.Join(dir, p))
			}
			_, err := Recover(dir, declared, []string{"rules"})
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "refused, nothing done") {
				t.Errorf("Recover: %v\nwant a refusal saying %q", err, c.want)
			}
			if _, err := os.Stat(filepath.Join(outside, "victim.yaml")); err != nil {
				t.Error("a file outside the tree was removed")
			}
			for p, content := range before {
				if got, err := os.ReadFile(filepath.Join(dir, p)); err != nil || string(got) != string(content) {
					t.Errorf("%s was changed by a refused journal", p)
				}
			}
		})
	}
}

// TestLinkAppearingMidJournalStopsIt: the link check is made by every rename and removal as it
// acts, so a removal whose way becomes a link after the renames (here by a rename the journal
// itself makes) is not made through it.
func TestLinkAppearingMidJournalStopsIt(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	header := "# " + output.Header + "\n"
	testutil.WriteTree(t, outside, map[string]string{"victim.yaml": header})
	testutil.WriteTree(t, dir, map[string]string{"rules/sub/a.yaml": header})
	if err := os.RemoveAll(filepath.Join(dir, "rules", "sub")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "rules", "sub")); err != nil {
		t.Fatal(err)
	}
	if err := removeInside(dir, "rules/sub/victim.yaml"); err == nil || !strings.Contains(err.Error(), "is a symbolic link") {
		t.Errorf("removeInside through a link: %v", err)
	}
	if err := renameInside(dir, "rules/sub/victim.yaml", "rules/v.yaml"); err == nil {
		t.Error("renameInside through a link succeeded")
	}
	if _, err := os.Stat(filepath.Join(outside, "victim.yaml")); err != nil {
		t.Error("a file outside the tree was touched")
	}
}

// TestStaleTemporaryCleanupStaysInTheTree: with a committed link where a managed directory's
// parent should be (tests -> elsewhere) and no journal, the clean-up of a killed run's
// temporary files does not walk through the link to remove files named like gpuobs'.
func TestStaleTemporaryCleanupStaysInTheTree(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	testutil.WriteTree(t, outside, map[string]string{"promtool/.a.yaml.gpuobs-7": "theirs"})
	if err := os.Symlink(outside, filepath.Join(dir, "tests")); err != nil {
		t.Fatal(err)
	}
	if _, err := Recover(dir, nil, []string{"tests/promtool"}); err == nil || !strings.Contains(err.Error(), "is a symbolic link") {
		t.Errorf("Recover with a linked managed directory: %v", err)
	}
	if _, err := os.Stat(filepath.Join(outside, "promtool", ".a.yaml.gpuobs-7")); err != nil {
		t.Error("the clean-up removed a file outside the tree")
	}
}
