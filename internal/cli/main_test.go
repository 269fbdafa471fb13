package cli

import (
	"os"
	"testing"

	"github.com/gpuobs/gpuobs/internal/catalog"
)

// evaluatorFatal, set in a test's environment, has the evaluator process end as the Go runtime
// ends one with a fatal error: this text on stderr, exit status 2.
const evaluatorFatal = "GPUOBS_TEST_EVALUATOR_FATAL"

// TestMain lets the test binary serve as the catalog evaluator process, as cmd/gpuobs does:
// commands run in-process here evaluate catalog files in a child process of this binary.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == catalog.EvaluatorCommand {
		if fatal := os.Getenv(evaluatorFatal); fatal != "" {
			_, _ = os.Stderr.WriteString(fatal)
			os.Exit(2)
		}
		os.Exit(catalog.RunEvaluator(os.Args[2:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}
