// Package cli holds gpuobs' cobra commands, each built by a constructor so that tests run
// the whole CLI in-process with their own output streams.
package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/plan"
)

// Exit codes of gpuobs.
const (
	ExitOK    = 0
	ExitError = 1
	ExitUsage = 2
)

// Options are what every command needs from its environment.
type Options struct {
	Stdout  io.Writer
	Stderr  io.Writer
	Version string
	// BuildPlan derives the plan of a catalog, once per command; nil means plan.Build. Tests
	// wrap it to count derivations.
	BuildPlan func(*model.Model) (*plan.Plan, error)
}

// buildPlan derives the plan of a catalog.
func (o Options) buildPlan(m *model.Model) (*plan.Plan, error) {
	if o.BuildPlan != nil {
		return o.BuildPlan(m)
	}
	return plan.Build(m)
}

// runError marks a failure of a command's work (exit 1), as opposed to a usage error (exit 2).
type runError struct{ err error }

func (e runError) Error() string { return e.err.Error() }
func (e runError) Unwrap() error { return e.err }

// failed wraps an error of a command's work.
func failed(err error) error { return runError{err} }

// NewRootCommand builds the gpuobs command tree.
func NewRootCommand(opts Options) *cobra.Command {
	root := &cobra.Command{
		Use:           "gpuobs",
		Short:         "Turn one GPU metric catalog into verified Prometheus rules and tests, and lint them",
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cmd.Help()
			return errors.New("a command is required")
		},
	}
	root.SetOut(opts.Stdout)
	root.SetErr(opts.Stderr)
	root.AddCommand(newGenerateCommand(opts), newInitCommand(opts), newLintCommand(opts), newVersionCommand(opts))
	return root
}

// Run executes gpuobs with args and returns its exit code.
func Run(args []string, opts Options) int {
	root := NewRootCommand(opts)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return ExitOK
	}
	var lf findings
	if errors.As(err, &lf) {
		return ExitFindings
	}
	fmt.Fprintf(opts.Stderr, "gpuobs: %v\n", err)
	var re runError
	if errors.As(err, &re) {
		return ExitError
	}
	fmt.Fprintln(opts.Stderr, "Run 'gpuobs --help' for usage.")
	return ExitUsage
}
