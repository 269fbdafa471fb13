// Command gpuobs turns one GPU metric catalog into a verified GPU observability setup.
package main

import (
	"os"
	"runtime/debug"

	"github.com/gpuobs/gpuobs/internal/catalog"
	"github.com/gpuobs/gpuobs/internal/cli"
)

// gcPercent is the garbage collector's target for a run of gpuobs, which allocates much and
// keeps little for under a second: collecting a quarter as often as Go's default (100) saves
// about a third of a generation's CPU (0.78 to 0.55 CPU-s on a catalog of one's own) for
// about 25 MB more memory. Lint keeps Go's default: it holds every file it reads (90 MB live
// on 26,000 rules), and five times that is 420 MB of peak memory against 250 MB, for the same
// wall time. A GOGC of the environment decides instead. The catalog's evaluator process
// collects later still (catalog.RunEvaluator).
const gcPercent = 400

func main() {
	if os.Getenv("GOGC") == "" && (len(os.Args) < 2 || os.Args[1] != "lint") {
		debug.SetGCPercent(gcPercent)
	}
	if len(os.Args) > 1 && os.Args[1] == catalog.EvaluatorCommand {
		os.Exit(catalog.RunEvaluator(os.Args[2:], os.Stdout, os.Stderr))
	}
	os.Exit(cli.Run(os.Args[1:], cli.Options{Stdout: os.Stdout, Stderr: os.Stderr, CatalogCache: catalog.DefaultCacheDir()}))
}
