package cli

import (
	"os"
	"testing"

	"github.com/gpuobs/gpuobs/internal/catalog"
)

// TestMain lets the test binary serve as the catalog evaluator process, as cmd/gpuobs does:
// commands run in-process here evaluate catalog files in a child process of this binary.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == catalog.EvaluatorCommand {
		os.Exit(catalog.RunEvaluator(os.Args[2:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}
