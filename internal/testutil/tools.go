package testutil

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// tools holds, per pinned tool, its binary's path once found.
var tools sync.Map // name → func() (string, error)

// Tool is the path of a pinned tool's binary (tools/<name>/go.mod: promtool, amtool, pint),
// built by go tool when the build cache lacks it, found once per test binary. Tests run the
// binary itself: each `go tool` call costs about two CPU-seconds of module loading before the
// tool starts.
func Tool(t testing.TB, name string) string {
	t.Helper()
	find, _ := tools.LoadOrStore(name, sync.OnceValues(func() (string, error) {
		cmd := exec.Command("go", "tool", "-n", "-modfile=tools/"+name+"/go.mod", name)
		cmd.Dir = ModuleRoot()
		out, err := cmd.Output()
		return strings.TrimSpace(string(out)), err
	}))
	path, err := find.(func() (string, error))()
	if err != nil {
		t.Fatalf("go tool -n %s: %v", name, err)
	}
	return path
}

// ModuleRoot is the directory of gpuobs' go.mod.
func ModuleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}
