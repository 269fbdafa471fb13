package cli

import (
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/spf13/cobra"

	"github.com/gpuobs/gpuobs/internal/catalog"
	"github.com/gpuobs/gpuobs/internal/emit"
)

// starter is the commented gpuobs.jsonnet that init writes.
//
//go:embed starter.jsonnet
var starter []byte

type initOptions struct {
	Options
	path  string
	force bool
}

func newInitCommand(opts Options) *cobra.Command {
	o := &initOptions{Options: opts}
	cmd := &cobra.Command{
		Use:     "init",
		Short:   "Write a commented starter gpuobs.jsonnet that overrides the embedded catalog",
		Example: "  gpuobs init\n  gpuobs init -f monitoring/gpuobs.jsonnet --force",
		Args:    cobra.NoArgs,
		RunE:    func(*cobra.Command, []string) error { return o.run() },
	}
	cmd.Flags().StringVarP(&o.path, "file", "f", "gpuobs.jsonnet", "where to write the starter catalog")
	cmd.Flags().BoolVar(&o.force, "force", false, "overwrite an existing file")
	return cmd
}

func (o *initOptions) run() error {
	if _, err := os.Stat(o.path); err == nil && !o.force {
		return failed(fmt.Errorf("%s exists; keep it, or pass --force to overwrite it", o.path))
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return failed(err)
	}
	if err := emit.WriteFile(o.path, starter); err != nil {
		return failed(err)
	}
	if _, err := catalog.Load(catalog.Options{ConfigPath: o.path}); err != nil {
		return failed(fmt.Errorf("the starter catalog does not load (a gpuobs bug): %w", err))
	}
	fmt.Fprintf(o.Stdout, "wrote %s; edit it, then run 'gpuobs generate -c %s'\n", o.path, o.path)
	return nil
}
