package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gpuobs/gpuobs/generators"
	"github.com/gpuobs/gpuobs/internal/catalog"
	"github.com/gpuobs/gpuobs/internal/emit"
)

type generateOptions struct {
	Options
	config string
	output string
	check  bool
}

func newGenerateCommand(opts Options) *cobra.Command {
	o := &generateOptions{Options: opts}
	cmd := &cobra.Command{
		Use:   "generate",
		Short: "Generate rules and promtool tests from the catalog",
		Long: `Generate evaluates the catalog (the embedded default, or -c gpuobs.jsonnet), validates it,
and writes rules/ and tests/promtool/ under the output directory. All files are written
atomically: on any error the output directory is left exactly as it was.

With --check nothing is written: stale, missing and extra generated files are listed and
the exit code is 1 when there are any.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return o.run() },
	}
	cmd.Flags().StringVarP(&o.config, "config", "c", "", "catalog file (gpuobs.jsonnet); default: the embedded catalog")
	cmd.Flags().StringVarP(&o.output, "output", "o", ".", "output directory")
	cmd.Flags().BoolVar(&o.check, "check", false, "write nothing; exit 1 if the output directory is not up to date")
	return cmd
}

func (o *generateOptions) run() error {
	m, err := catalog.Load(catalog.Options{ConfigPath: o.config})
	if err != nil {
		return failed(fmt.Errorf("catalog is invalid, nothing was written:\n%w", err))
	}
	files, managed, err := generators.Run(m)
	if err != nil {
		return failed(fmt.Errorf("nothing was written: %w", err))
	}
	if o.check {
		drift, err := emit.Check(o.output, files, managed)
		if err != nil {
			return failed(err)
		}
		if !drift.Empty() {
			fmt.Fprint(o.Stdout, drift.String())
			return failed(fmt.Errorf("%s is not up to date with the catalog: run 'gpuobs generate -o %s'", o.output, o.output))
		}
		fmt.Fprintf(o.Stdout, "%d generated files in %s are up to date\n", len(files), o.output)
		return nil
	}
	if err := emit.Write(o.output, files, managed); err != nil {
		return failed(fmt.Errorf("nothing was written: %w", err))
	}
	fmt.Fprintf(o.Stdout, "wrote %d files to %s\n", len(files), o.output)
	return nil
}
