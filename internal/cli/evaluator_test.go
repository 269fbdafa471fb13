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

// TestEvaluatorRefusedMemorySaysSo: an evaluator that the system refuses memory ends with the
// Go runtime's fatal error (the text below, as one printed under ulimit -v); generate says in
// one sentence that the evaluation ran out of memory below its limit, not "exit status 2" and
// a line of the runtime's stack.
func TestEvaluatorRefusedMemorySaysSo(t *testing.T) {
	t.Setenv(evaluatorFatal, "runtime: out of memory: cannot allocate 4194304-byte block (83066880 in use)\nfatal error: out of memory\n\ngoroutine 1 gp=0x3b1d032621e0 m=4 [running]:\nruntime.throw({0x1a83a3b?, 0x7fd100000001?})\n\t/usr/local/go/src/runtime/panic.go:1229 +0x48\n")
	config := filepath.Join(t.TempDir(), "gpuobs.jsonnet")
	if err := os.WriteFile(config, []byte("import 'gpuobs.libsonnet'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := run(t, "generate", "-c", config, "-o", t.TempDir())
	if want := "evaluating the catalog ran out of memory below its limit of 2048 MiB: the system gave the evaluator no more"; code != ExitError || !strings.Contains(stderr, want) || strings.Contains(stderr, "exit status") {
		t.Errorf("exit %d, stderr:\n%s\nwant exit %d and %q, without the exit status", code, stderr, ExitError, want)
	}
}
