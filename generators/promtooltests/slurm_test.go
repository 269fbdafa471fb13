package promtooltests_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// kubernetesRead finds a read of a Kubernetes series (kube-state-metrics' kube_*, not gpuobs'
// own records such as cluster:kube_gpu_allocatable:sum) or a kubectl command.
var kubernetesRead = regexp.MustCompile(`(^|[^:a-z_])kube_[a-z_]+|kubectl`)

// TestSlurmReadsNoKubernetes: a Slurm fleet runs no kube-state-metrics and no kubectl, so
// nothing gpuobs generates for it (rules, dashboards, runbooks, Alertmanager) reads a kube_*
// series or tells anyone to run kubectl; on the plain Slurm catalog and on a lab's own (labels
// and teams renamed, other sources, sections off). Left out: the generated promtool tests (a
// shared case may feed a series nobody reads) and docs/catalog.md, whose metric table lists
// every series lint knows.
func TestSlurmReadsNoKubernetes(t *testing.T) {
	for _, config := range []string{"testdata/slurm.jsonnet", "testdata/slurm-adopter.jsonnet"} {
		t.Run(filepath.Base(config), func(t *testing.T) {
			dir := generateInto(t, config)
			found := 0
			err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
				if err != nil || d.IsDir() || skipped(mustRel(t, dir, path)) {
					return err
				}
				b, err := os.ReadFile(path)
				if err != nil {
					return err
				}
				for i, line := range strings.Split(string(b), "\n") {
					if m := kubernetesRead.FindString(line); m != "" {
						found++
						t.Errorf("%s:%d reads %q on a Slurm fleet", mustRel(t, dir, path), i+1, strings.TrimLeft(m, " ({,"))
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if found == 0 && !strings.Contains(readAll(t, filepath.Join(dir, "rules", "alerts.yaml")), "slurm_node_gpus") {
				t.Error("the Slurm catalog's alerts read no slurm_node_gpus: the check would pass on nothing")
			}
		})
	}
}

func skipped(rel string) bool {
	rel = filepath.ToSlash(rel)
	return strings.HasPrefix(rel, "tests/") || rel == "docs/catalog.md"
}

func mustRel(t *testing.T, base, path string) string {
	t.Helper()
	rel, err := filepath.Rel(base, path)
	if err != nil {
		t.Fatal(err)
	}
	return rel
}

func readAll(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
