// Command gpuobs turns one GPU metric catalog into a verified GPU observability setup.
package main

import (
	"os"

	"github.com/gpuobs/gpuobs/internal/cli"
)

func main() {
	os.Exit(cli.Run(os.Args[1:], cli.Options{Stdout: os.Stdout, Stderr: os.Stderr}))
}
