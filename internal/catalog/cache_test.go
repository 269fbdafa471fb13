package catalog

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpuobs/gpuobs/internal/kept"
)

// tampered is the body planted in a kept entry: an evaluation that returns it was read from
// the cache, one that does not was evaluated again.
const tampered = `{"tampered": true}`

// plantBody replaces the body of every entry in dir (an evaluation's one or two names),
// keeping the list of files each read.
func plantBody(t *testing.T, dir string) {
	t.Helper()
	if entries, err := os.ReadDir(dir); err != nil || len(entries) == 0 || len(entries) > 2 {
		t.Fatalf("want one evaluation's entries in %s, found %d (%v)", dir, len(entries), err)
	}
	rewriteBodies(t, dir, func(string) string { return tampered })
}

// rewriteBodies replaces the body of every entry in dir by edit's, keeping the list of files
// each read; each name gets a file of its own.
func rewriteBodies(t *testing.T, dir string, edit func(body string) string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		file := filepath.Join(dir, e.Name())
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		header, body, _ := bytes.Cut(data, []byte("\n"))
		if err := os.Remove(file); err != nil {
			t.Fatal(err)
		}
		write(t, file, string(header)+"\n"+edit(string(body)))
	}
}

// library is a file of the embedded library that a user catalog imports: a small one, since what
// these tests read is which files an evaluation read, not the catalog (a whole catalog's
// evaluation is 20 times as long).
const library = "units.libsonnet"

// userCatalog writes a catalog that imports a file of the embedded library and one of its own.
func userCatalog(t *testing.T) (config, local string) {
	t.Helper()
	dir := t.TempDir()
	config, local = filepath.Join(dir, "gpuobs.jsonnet"), filepath.Join(dir, "teams.libsonnet")
	write(t, config, "{ units: import '"+library+"', teams: import 'teams.libsonnet' }")
	write(t, local, "{ infra: 'gpu-infra' }")
	return config, local
}

func write(t *testing.T, file, text string) {
	t.Helper()
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func evaluate(t *testing.T, opts Options) string {
	t.Helper()
	out, err := Evaluate(opts)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestKeptEvaluationIsUsedWhileItsFilesAreUnchanged: a catalog file's evaluation is kept and
// read back while every file it read is the same; an edit of the catalog or of a file it
// imports, a file appearing where an import found none (and fell back to the embedded
// library), and a link out of the tree in place of an imported file each make gpuobs evaluate
// again.
func TestKeptEvaluationIsUsedWhileItsFilesAreUnchanged(t *testing.T) {
	for name, change := range map[string]func(t *testing.T, config, local string){
		"the catalog edited": func(t *testing.T, config, _ string) {
			write(t, config, "{ units: import '"+library+"', teams: import 'teams.libsonnet', deploy: {} }")
		},
		"an imported file edited": func(t *testing.T, _, local string) {
			write(t, local, "{ infra: 'gpu-infra-2' }")
		},
		"a file where an import fell back to the library": func(t *testing.T, config, _ string) {
			write(t, filepath.Join(filepath.Dir(config), library), "{}")
		},
		"an imported file replaced by a link out of the tree": func(t *testing.T, _, local string) {
			outside := filepath.Join(t.TempDir(), "teams.libsonnet")
			data, _ := os.ReadFile(local)
			write(t, outside, string(data))
			if err := os.Remove(local); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, local); err != nil {
				t.Fatal(err)
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			config, local := userCatalog(t)
			opts := Options{ConfigPath: config, CacheDir: t.TempDir()}
			first := evaluate(t, opts)
			if !strings.Contains(first, `"gpu-infra"`) {
				t.Fatal("the catalog's own import is not in its evaluation")
			}
			plantBody(t, opts.CacheDir)
			if got := evaluate(t, opts); got != tampered {
				t.Fatal("an unchanged catalog is evaluated again instead of read from the cache")
			}
			change(t, config, local)
			if out, _ := Evaluate(opts); out == tampered {
				t.Errorf("after %s, the kept evaluation is still used", name)
			}
		})
	}
}

// TestKeptEvaluationOfTheEmbeddedCatalog: the embedded catalog's evaluation is kept too, and
// nothing is written without a cache directory.
func TestKeptEvaluationOfTheEmbeddedCatalog(t *testing.T) {
	opts := Options{CacheDir: t.TempDir()}
	evaluate(t, opts)
	plantBody(t, opts.CacheDir)
	if got := evaluate(t, opts); got != tampered {
		t.Error("the embedded catalog's kept evaluation is not used")
	}
	config, _ := userCatalog(t)
	evaluate(t, Options{ConfigPath: config})
	if entries, _ := os.ReadDir(filepath.Dir(config)); len(entries) != 2 {
		t.Errorf("an evaluation without a cache directory wrote files: %v", entries)
	}
}

// TestFailedEvaluationsAreNotKept: a catalog that does not evaluate leaves no entry.
func TestFailedEvaluationsAreNotKept(t *testing.T) {
	dir := t.TempDir()
	config := filepath.Join(dir, "gpuobs.jsonnet")
	write(t, config, "error 'no'")
	opts := Options{ConfigPath: config, CacheDir: t.TempDir()}
	if _, err := Evaluate(opts); err == nil {
		t.Fatal("a failing catalog evaluated")
	}
	if entries, _ := os.ReadDir(opts.CacheDir); len(entries) != 0 {
		t.Errorf("a failed evaluation was kept: %v", entries)
	}
}

// TestCacheKeepsItsSizeAndOthersFiles: past maxKept entries the least recently used go, and
// a file that is not an entry (a directory shared by mistake) is never removed.
func TestCacheKeepsItsSizeAndOthersFiles(t *testing.T) {
	dir := t.TempDir()
	old := time.Now().Add(-time.Hour)
	for i := range maxKept + 5 {
		file := filepath.Join(dir, fmt.Sprintf("%064x", i))
		write(t, file, "[]\n{}")
		if err := os.Chtimes(file, old, old.Add(time.Duration(i)*time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(dir, "notes.txt"), "mine")
	evaluate(t, Options{CacheDir: dir})
	entries, _ := os.ReadDir(dir)
	entriesKept := 0
	for _, e := range entries {
		if kept.IsKey(e.Name()) {
			entriesKept++
		}
	}
	if entriesKept != maxKept {
		t.Errorf("%d entries kept, want %d", entriesKept, maxKept)
	}
	if _, err := os.Stat(filepath.Join(dir, "notes.txt")); err != nil {
		t.Errorf("a file that is not an entry was removed: %v", err)
	}
	if _, ok := lookup(Options{CacheDir: dir}, cacheKey(Options{CacheDir: dir}, false)); !ok {
		t.Error("the newest entry was pruned")
	}
}

// TestKeptEvaluationMovesWithItsTree: a catalog's evaluation is found again from a copy of its
// tree elsewhere (a fresh clone, another CI workspace), whose files are then read where the
// copy is: an edit there evaluates again. A catalog that imports a file by its absolute path
// is not: its copy would import the original, so the copy is evaluated.
func TestKeptEvaluationMovesWithItsTree(t *testing.T) {
	copyTree := func(t *testing.T, config string) string {
		t.Helper()
		dir := t.TempDir()
		for _, name := range []string{"gpuobs.jsonnet", "teams.libsonnet"} {
			data, err := os.ReadFile(filepath.Join(filepath.Dir(config), name))
			if err != nil {
				t.Fatal(err)
			}
			write(t, filepath.Join(dir, name), string(data))
		}
		return filepath.Join(dir, "gpuobs.jsonnet")
	}
	t.Run("relative imports", func(t *testing.T) {
		config, _ := userCatalog(t)
		cache := t.TempDir()
		evaluate(t, Options{ConfigPath: config, CacheDir: cache})
		plantBody(t, cache)
		moved := copyTree(t, config)
		if got := evaluate(t, Options{ConfigPath: moved, CacheDir: cache}); got != tampered {
			t.Fatal("the same tree elsewhere is evaluated again instead of read from the cache")
		}
		write(t, filepath.Join(filepath.Dir(moved), "teams.libsonnet"), "{ infra: 'gpu-infra-2' }")
		if got := evaluate(t, Options{ConfigPath: moved, CacheDir: cache}); got == tampered || !strings.Contains(got, `"gpu-infra-2"`) {
			t.Errorf("an edit in the copy still finds the original's evaluation: %.80s", got)
		}
	})
	t.Run("an import by absolute path", func(t *testing.T) {
		config, local := userCatalog(t)
		write(t, config, "{ units: import '"+library+"', teams: import '"+local+"' }")
		cache := t.TempDir()
		evaluate(t, Options{ConfigPath: config, CacheDir: cache})
		plantBody(t, cache)
		if got := evaluate(t, Options{ConfigPath: config, CacheDir: cache}); got != tampered {
			t.Fatal("the catalog in place is evaluated again instead of read from the cache")
		}
		moved := copyTree(t, config)
		// The copy imports the original's file, outside its own directory: refused.
		if got, err := Evaluate(Options{ConfigPath: moved, CacheDir: cache}); err == nil {
			t.Errorf("the copy of a catalog that imports by absolute path was not evaluated: %.80s", got)
		}
	})
}

// TestKeptEvaluationsOfAlikeCatalogsStayApart: two catalog files alike, in directories whose
// imported files differ, each find their own evaluation again, run after run: the key a copy
// of a tree looks for is shared, the one in place is not.
func TestKeptEvaluationsOfAlikeCatalogsStayApart(t *testing.T) {
	cache := t.TempDir()
	configA, _ := userCatalog(t)
	configB, localB := userCatalog(t)
	write(t, localB, "{ infra: 'gpu-infra-b' }")
	for _, config := range []string{configA, configB} {
		evaluate(t, Options{ConfigPath: config, CacheDir: cache})
	}
	// Marked, so that a hit tells whose evaluation it found.
	rewriteBodies(t, cache, func(body string) string { return strings.Replace(body, "gpu-infra", "kept-gpu-infra", 1) })
	for _, c := range []struct{ config, want string }{{configA, `"kept-gpu-infra"`}, {configB, `"kept-gpu-infra-b"`}, {configA, `"kept-gpu-infra"`}} {
		if got := evaluate(t, Options{ConfigPath: c.config, CacheDir: cache}); !strings.Contains(got, c.want) {
			t.Errorf("%s: its kept evaluation (%s) was not found: %.120s", c.config, c.want, got)
		}
	}
}

// TestCacheDirUnderPreCommit: a pre-commit hook keeps evaluations in pre-commit's own home,
// which CI caches to reuse the hooks' environments; GPUOBS_CACHE decides over it.
func TestCacheDirUnderPreCommit(t *testing.T) {
	t.Setenv(CacheEnv, "")
	t.Setenv("PRE_COMMIT", "1")
	t.Setenv("PRE_COMMIT_HOME", "/ci/pre-commit")
	if got := DefaultCacheDir(); got != filepath.Join("/ci/pre-commit", "gpuobs", "catalog") {
		t.Errorf("under pre-commit with PRE_COMMIT_HOME: %s", got)
	}
	t.Setenv("PRE_COMMIT_HOME", "")
	t.Setenv("XDG_CACHE_HOME", "/ci/xdg")
	if got := DefaultCacheDir(); got != filepath.Join("/ci/xdg", "pre-commit", "gpuobs", "catalog") {
		t.Errorf("under pre-commit with XDG_CACHE_HOME: %s", got)
	}
	t.Setenv(CacheEnv, "/mine")
	if got := DefaultCacheDir(); got != "/mine" {
		t.Errorf("GPUOBS_CACHE under pre-commit: %s", got)
	}
}
