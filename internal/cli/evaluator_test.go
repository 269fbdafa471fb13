package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gpuobs/gpuobs/internal/catalog"
)

// TestEvaluatorCollectsLate: the evaluator process of a catalog file collects no garbage while
// it evaluates the embedded library (an init may have collected once before), where it
// collects several times at gpuobs' GOGC (catalog.RunEvaluator's collectLate).
func TestEvaluatorCollectsLate(t *testing.T) {
	dir := t.TempDir()
	config := filepath.Join(dir, "gpuobs.jsonnet")
	if err := os.WriteFile(config, []byte("import 'gpuobs.libsonnet'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	collections := func(env ...string) int {
		cmd := exec.Command(os.Args[0], catalog.EvaluatorCommand, config, dir, "2048", "")
		cmd.Env = append(slices.DeleteFunc(os.Environ(), func(v string) bool {
			return strings.HasPrefix(v, "GOGC=") || strings.HasPrefix(v, "GOMEMLIMIT=") || strings.HasPrefix(v, "GODEBUG=")
		}), append(env, "GODEBUG=gctrace=1")...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("evaluator: %v\n%s", err, stderr.String())
		}
		return len(regexp.MustCompile(`(?m)^gc \d+ @`).FindAllIndex(stderr.Bytes(), -1))
	}
	if late, usual := collections(), collections("GOGC=400"); late > 1 || usual < 3 {
		t.Errorf("the evaluator collected %d times, at GOGC=400 %d times; want at most once (at init), and several (under ulimit -v it collects as usual)", late, usual)
	}
}
