package source

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gpuobs/gpuobs/internal/testutil"
)

// TestReadCountersSkipsComments: comment and empty lines are no fields; each field keeps its type.
func TestReadCountersSkipsComments(t *testing.T) {
	got, err := ReadCounters("c.csv", []byte("# DCGM FIELD, Prometheus metric type, help message\n\n# DCGM_FI_DEV_ECC_DBE_VOL_TOTAL, counter, off\nDCGM_FI_DEV_GPU_TEMP, gauge, GPU temperature (in C).\n  DCGM_FI_DEV_POWER_USAGE,gauge,Power draw (in W).\n"))
	if err != nil || len(got) != 2 || got["DCGM_FI_DEV_GPU_TEMP"] != "gauge" || got["DCGM_FI_DEV_POWER_USAGE"] != "gauge" {
		t.Errorf("ReadCounters = %v, %v", got, err)
	}
}

// TestReadCountersRefusesWhatIsNotACounterFile: lines that are not "field, type, help" are
// errors by line, and a file without a counter line is refused, not read as collecting nothing.
func TestReadCountersRefusesWhatIsNotACounterFile(t *testing.T) {
	for _, c := range []struct{ name, data, want string }{
		{"an environment file", "HOME=/root\nTOKEN=abc\n", "c.csv:1: not a counter line (DCGM field, Prometheus type, help)\nc.csv:2: not a counter line"},
		{"an unknown type", "DCGM_FI_DEV_GPU_TEMP, gaug, GPU temperature.\n", "c.csv:1: not a counter line"},
		{"only comments", "# DCGM FIELD, Prometheus metric type, help message\n\n", "c.csv: holds no counter lines"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadCounters("c.csv", []byte(c.data))
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "abc") {
				t.Errorf("ReadCounters = %v, want %q", err, c.want)
			}
		})
	}
}

// TestReadNamedRefusesPipes: a baseline or counter file that is a named pipe is refused at
// once instead of blocking the run for ever.
func TestReadNamedRefusesPipes(t *testing.T) {
	pipe := filepath.Join(t.TempDir(), "baseline.json")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() { _, err := ReadNamed(pipe); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "is not a regular file (a named pipe): not read") {
			t.Errorf("ReadNamed(pipe) = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("reading a named pipe blocked")
	}
}

// TestReadPathsLeavesHiddenTooling: the directories of version control, CI and editors (an
// editor's JSONC settings, a devcontainer) are not read; any other hidden path is, so that a
// rule file moved into one is still checked.
func TestReadPathsLeavesHiddenTooling(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteTree(t, dir, map[string]string{
		"rules/gpu.yaml":                  "groups: []\n",
		"rules/.moved/gpu.yaml":           "groups: []\n",
		".vscode/launch.json":             "{\n  // a comment\n  \"version\": \"0.2.0\",\n}\n",
		".devcontainer/devcontainer.json": "{ // JSONC\n}\n",
	})
	var read []string
	for _, f := range ReadPaths([]string{dir}) {
		rel, _ := filepath.Rel(dir, f.Path)
		read = append(read, filepath.ToSlash(rel))
	}
	if strings.Join(read, " ") != "rules/.moved/gpu.yaml rules/gpu.yaml" {
		t.Errorf("read %v, want the two rule files only", read)
	}
	if named := ReadPaths([]string{filepath.Join(dir, ".vscode", "launch.json")}); len(named) != 1 || named[0].Err == nil {
		t.Errorf("a tooling file named on the command line is not read: %+v", named)
	}
}

// TestDashboardsWithoutAnExtension: rendered mixins name their dashboards without an
// extension. Such a file that holds a JSON object is read as a dashboard, found in a directory
// or named; other files without one (a LICENSE, a Makefile, a YAML file) are not walked into.
func TestDashboardsWithoutAnExtension(t *testing.T) {
	dir := t.TempDir()
	dashboard := "\n  {\"title\": \"GPUs\", \"tags\": [\"L3\"], \"panels\": [{\"title\": \"p\", \"targets\": [{\"expr\": \"max(DCGM_FI_DEV_GPU_TEMP)\"}]}]}\n"
	testutil.WriteTree(t, dir, map[string]string{
		"dashboards/gpu-overview": dashboard,
		"LICENSE":                 "Apache License\nVersion 2.0\n",
		"Makefile":                "all:\n\t@echo {}\n",
		"rules/gpu":               "groups: []\n",
	})
	files := ReadPaths([]string{dir})
	if len(files) != 1 || files[0].Dashboard == nil || len(files[0].Dashboard.Queries) != 1 {
		t.Fatalf("walked: %+v, want the dashboard without an extension only", files)
	}
	named := ReadPaths([]string{filepath.Join(dir, "dashboards", "gpu-overview")})
	if len(named) != 1 || named[0].Dashboard == nil || named[0].Err != nil {
		t.Errorf("named: %+v, want it read as a dashboard", named)
	}
}
