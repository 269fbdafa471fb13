// Command gpuobs turns one GPU metric catalog into a verified GPU observability setup.
package main

import (
	"os"

	"github.com/gpuobs/gpuobs/internal/catalog"
	"github.com/gpuobs/gpuobs/internal/cli"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == catalog.EvaluatorCommand {
		os.Exit(catalog.RunEvaluator(os.Args[2:], os.Stdout, os.Stderr))
	}
	os.Exit(cli.Run(os.Args[1:], cli.Options{Stdout: os.Stdout, Stderr: os.Stderr}))
}
