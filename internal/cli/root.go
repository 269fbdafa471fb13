// Package cli holds gpuobs' cobra commands, each built by a constructor so that tests run
// the whole CLI in-process with their own output streams.
package cli

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/gpuobs/gpuobs/internal/kept"
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
	// CatalogCache is the directory where catalog evaluations are kept between runs
	// (catalog.DefaultCacheDir for the gpuobs command), and in its checked/ the generated
	// files that loaded in Prometheus' and Alertmanager's loaders; empty keeps none.
	CatalogCache string
}

// checked remembers the generated files that loaded, under CatalogCache.
func (o Options) checked() *kept.Memo {
	if o.CatalogCache == "" {
		return nil
	}
	return kept.NewMemo(filepath.Join(o.CatalogCache, "checked"))
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
		Example:       "  gpuobs generate -o .\n  gpuobs lint rules/ dashboards/\n  gpuobs init",
		Version:       version(opts.Version),
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          suggestCommands,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cmd.Help()
			return errors.New("a command is required")
		},
	}
	// Cobra suggests by prefix only until a distance is set: genrate and lnt get a suggestion.
	root.SuggestionsMinimumDistance = 2
	root.SetFlagErrorFunc(suggestFlags)
	root.SetVersionTemplate("gpuobs {{.Version}}\n")
	root.SetOut(opts.Stdout)
	root.SetErr(opts.Stderr)
	root.AddCommand(newGenerateCommand(opts), newInitCommand(opts), newLintCommand(opts), newDiffCommand(opts), newBacktestCommand(opts), newVersionCommand(opts))
	return root
}

// suggestCommands rejects arguments to the root command, naming the commands closest to a
// mistyped one.
func suggestCommands(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.Name())
	if suggestions := cmd.SuggestionsFor(args[0]); len(suggestions) > 0 {
		msg += fmt.Sprintf("; did you mean %s?", strings.Join(suggestions, " or "))
	}
	return errors.New(msg)
}

// suggestFlags adds to an unknown flag's error the command's flag closest to it (--ouput:
// did you mean --output?).
func suggestFlags(cmd *cobra.Command, err error) error {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return err
	}
	var names []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
	if closest := plan.Closest(name, names, 2); closest != "" {
		return fmt.Errorf("%w; did you mean --%s?", err, closest)
	}
	return err
}

// Run executes gpuobs with args and returns its exit code.
func Run(args []string, opts Options) int {
	root := NewRootCommand(opts)
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	if err == nil {
		return ExitOK
	}
	var lf findings
	var rc routingChanged
	if errors.As(err, &lf) {
		return ExitFindings
	}
	if errors.As(err, &rc) {
		fmt.Fprintf(opts.Stderr, "gpuobs: %v\n", err)
		return ExitFindings
	}
	fmt.Fprintf(opts.Stderr, "gpuobs: %v\n", err)
	var re runError
	if errors.As(err, &re) {
		return ExitError
	}
	fmt.Fprintf(opts.Stderr, "Run '%s --help' for usage.\n", cmd.CommandPath())
	return ExitUsage
}
