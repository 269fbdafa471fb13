package source

import (
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// gitRepo is a new git repository in a temporary directory, and a function that runs git in
// it (failing the test when git fails) and one that writes a file of it.
func gitRepo(t *testing.T) (dir string, git func(args ...string), write func(name, content string)) {
	t.Helper()
	dir = t.TempDir()
	git = func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write = func(name, content string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q")
	return dir, git, write
}

// TestChangedSince: the files a later commit, a staged or an unstaged change made differ from
// the ref, relative to the directory asked about, named as they are (spaces, non-ASCII);
// untracked files and files outside that directory are not listed.
func TestChangedSince(t *testing.T) {
	dir, git, write := gitRepo(t)
	for _, name := range []string{"a.yaml", "same.yaml", "rules/b.yaml", "rules/same.yaml"} {
		write(name, "groups: []\n")
	}
	git("add", ".")
	git("commit", "-q", "-m", "base")
	write("rules/b.yaml", "groups: [] # committed\n")
	git("commit", "-q", "-am", "second")
	write("a.yaml", "groups: [] # not staged\n")
	write("rules/staged.yaml", "groups: []\n")
	git("add", "rules/staged.yaml")
	write("untracked.yaml", "groups: []\n")
	write("rules/with space.yaml", "groups: []\n")
	write("rules/gpu-ü.yaml", "groups: []\n")
	git("add", "rules/with space.yaml", "rules/gpu-ü.yaml")
	for _, c := range []struct {
		name, dir, ref string
		want           []string
	}{
		{"since the first commit", dir, "HEAD~1", []string{"a.yaml", "rules/b.yaml", "rules/gpu-ü.yaml", "rules/staged.yaml", "rules/with space.yaml"}},
		{"since the last commit", dir, "HEAD", []string{"a.yaml", "rules/gpu-ü.yaml", "rules/staged.yaml", "rules/with space.yaml"}},
		{"by branch name", dir, "main", []string{"a.yaml", "rules/gpu-ü.yaml", "rules/staged.yaml", "rules/with space.yaml"}},
		{"in a subdirectory, relative to it", filepath.Join(dir, "rules"), "HEAD~1", []string{"b.yaml", "gpu-ü.yaml", "staged.yaml", "with space.yaml"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			changed, err := ChangedSince(c.dir, c.ref)
			if err != nil {
				t.Fatal(err)
			}
			if got := slices.Sorted(maps.Keys(changed)); !slices.Equal(got, c.want) {
				t.Errorf("ChangedSince(%s) = %q, want %q", c.ref, got, c.want)
			}
		})
	}
}

// TestChangedSinceRefusals: a ref that names no commit (one that looks like an option
// included: git writes no file) is refused with git's message; a repository without a work
// tree fails git diff, with the ref named.
func TestChangedSinceRefusals(t *testing.T) {
	dir, git, write := gitRepo(t)
	write("a.yaml", "groups: []\n")
	git("add", ".")
	git("commit", "-q", "-m", "base")
	bare := filepath.Join(t.TempDir(), "bare.git")
	git("clone", "-q", "--bare", dir, bare)
	for _, c := range []struct {
		name, dir, ref, want string
	}{
		{"unknown ref", dir, "nope", `"nope" is not a commit of this repository (git rev-parse: fatal: `},
		{"option-like ref", dir, "--output=planted.txt", `"--output=planted.txt" is not a commit of this repository (git rev-parse: fatal: `},
		{"no work tree", bare, "HEAD", "HEAD: git diff: fatal: "},
	} {
		t.Run(c.name, func(t *testing.T) {
			changed, err := ChangedSince(c.dir, c.ref)
			if err == nil || !strings.HasPrefix(err.Error(), c.want) || changed != nil {
				t.Errorf("ChangedSince(%q) = %v, %v; want an error starting %q", c.ref, changed, err, c.want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "planted.txt")); err == nil {
		t.Error("git wrote the file an option-like ref named")
	}
}
