package testutil

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuobs/gpuobs/internal/kept"
)

// ToolRunsEnv names the directory where RunTool keeps the runs of pinned tools; "off" keeps
// none (every run runs). Unset, it is gpuobs/test-runs in the user's cache directory (where
// nobody else can plant a passing run), or in the temporary directory without one.
const ToolRunsEnv = "GPUOBS_TEST_RUNS"

// maxToolRuns is how many runs the directory keeps; the least recently used go first. A
// make test keeps about 300.
const maxToolRuns = 2048

// dirPlaceholder stands for the run's directory in a kept run's key and output.
const dirPlaceholder = "$DIR"

// RunTool runs a pinned tool (Tool) with args, every file it reads under dir, and returns its
// combined output and its failure, as exec's CombinedOutput does. A tool's verdict is a
// function of its binary and what it reads, so, as Go's test cache keeps a test's result, a
// run is kept under the digest of the tool's binary (path, size and modification time), the
// arguments and the name and content of every file under dir (dir itself written as a
// placeholder): the same run on the same bytes replays its output and exit status without
// running the tool; a change to any file, argument or the tool runs it. env is added to the
// run's environment and is not part of the key: it must not change the result (GOGC). An
// argument naming a file by its absolute path out of dir fails the test: the key would not
// cover it.
func RunTool(t testing.TB, name, dir string, env []string, args ...string) (string, error) {
	t.Helper()
	bin := Tool(t, name)
	runs := os.Getenv(ToolRunsEnv)
	if runs == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			base = os.TempDir()
		}
		runs = filepath.Join(base, "gpuobs", "test-runs")
	}
	run := func() (string, error) {
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if runs == "off" {
		return run()
	}
	if outside := outsideDir(dir, args); outside != "" {
		t.Fatalf("RunTool: argument %s names a file outside %s, which a kept run's key does not cover", outside, dir)
	}
	key, err := runKey(bin, dir, args)
	if err != nil {
		t.Fatal(err)
	}
	entry := filepath.Join(runs, key)
	if kept.Used(entry) {
		if data, err := os.ReadFile(entry); err == nil {
			if status, out, ok := strings.Cut(string(data), "\n"); ok {
				if code, err := strconv.Atoi(status); err == nil {
					return strings.ReplaceAll(out, dirPlaceholder, dir), exitError(code)
				}
			}
		}
	}
	out, err := run()
	code := 0
	if err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			return out, err // the tool did not run: nothing to keep
		}
		code = exit.ExitCode()
	}
	keepRun(runs, key, code, strings.ReplaceAll(out, dir, dirPlaceholder))
	return out, err
}

// outsideDir returns the first argument that is an absolute path out of dir, or "": a kept run
// would be replayed though that file changed.
func outsideDir(dir string, args []string) string {
	for _, a := range args {
		if rel, err := filepath.Rel(dir, a); filepath.IsAbs(a) && (err != nil || !filepath.IsLocal(rel)) {
			return a
		}
	}
	return ""
}

// runKey is the digest of a run: the tool's binary, its arguments and every file under dir.
func runKey(bin, dir string, args []string) (string, error) {
	info, err := os.Stat(bin)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%d\x00%d\x00", bin, info.Size(), info.ModTime().UnixNano())
	for _, a := range args {
		fmt.Fprintf(h, "arg %s\x00", strings.ReplaceAll(a, dir, dirPlaceholder))
	}
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		fmt.Fprintf(h, "file %s %d\x00", filepath.ToSlash(rel), len(data))
		h.Write(data)
		return nil
	})
	return hex.EncodeToString(h.Sum(nil)), err
}

// keepRun writes a run's exit status and output under key, atomically; a directory that
// cannot be written keeps nothing.
func keepRun(dir, key string, code int, out string) {
	if os.MkdirAll(dir, 0o700) != nil {
		return
	}
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return
	}
	_, werr := tmp.WriteString(strconv.Itoa(code) + "\n" + out)
	if cerr := tmp.Close(); werr != nil || cerr != nil || os.Rename(tmp.Name(), filepath.Join(dir, key)) != nil {
		_ = os.Remove(tmp.Name())
		return
	}
	kept.Prune(dir, maxToolRuns)
}

// exitError is a kept run's failure: nil for exit status 0.
func exitError(code int) error {
	if code == 0 {
		return nil
	}
	return fmt.Errorf("exit status %d", code)
}
