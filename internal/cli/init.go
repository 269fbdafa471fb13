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
	path    string
	force   bool
	scrapes []string
}

func newInitCommand(opts Options) *cobra.Command {
	o := &initOptions{Options: opts}
	cmd := &cobra.Command{
		Use:     "init",
		Short:   "Write a commented starter gpuobs.jsonnet that overrides the embedded catalog",
		Long:    "Write a commented starter gpuobs.jsonnet that overrides the embedded catalog. With --from-scrape, the catalog matches saved /metrics texts of your exporters (curl <node>:9400/metrics > node.prom; one file per node type): the exporter version, host label, pod attribution, platform, vGPU guests, job and counter set they show, each with what decided it, and what a scrape cannot tell.",
		Example: "  gpuobs init\n  gpuobs init -f monitoring/gpuobs.jsonnet --force\n  gpuobs init --from-scrape h100.prom --from-scrape l4.prom",
		Args:    cobra.NoArgs,
		RunE:    func(*cobra.Command, []string) error { return o.run() },
	}
	cmd.Flags().StringVarP(&o.path, "file", "f", "gpuobs.jsonnet", "where to write the starter catalog")
	cmd.Flags().BoolVar(&o.force, "force", false, "overwrite an existing file")
	cmd.Flags().StringArrayVar(&o.scrapes, "from-scrape", nil, "a saved /metrics text of dcgm-exporter to match (repeat for several node types)")
	return cmd
}

func (o *initOptions) run() error {
	if _, err := os.Stat(o.path); err == nil && !o.force {
		return failed(fmt.Errorf("%s exists; keep it, or pass --force to overwrite it", o.path))
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return failed(err)
	}
	content := starter
	if len(o.scrapes) > 0 {
		in, conflicts, err := readScrapes(o.scrapes)
		if err != nil {
			return failed(fmt.Errorf("nothing was written: %w", err))
		}
		m, err := embeddedModel(o.Options)
		if err != nil {
			return failed(err)
		}
		for _, c := range conflicts {
			fmt.Fprintf(o.Stderr, "warning: %s\n", c)
		}
		// The catalog written knows its platform's fields: read the scrapes' fields against it.
		if err := emit.WriteFile(o.path, scrapeCatalog(in, o.scrapes, m)); err != nil {
			return failed(err)
		}
		if m, err = catalog.Load(catalog.Options{ConfigPath: o.path}); err != nil {
			return failed(fmt.Errorf("the catalog written from the scrapes does not load (a gpuobs bug): %w", err))
		}
		content = scrapeCatalog(in, o.scrapes, m)
	}
	if err := emit.WriteFile(o.path, content); err != nil {
		return failed(err)
	}
	if _, err := catalog.Load(catalog.Options{ConfigPath: o.path}); err != nil {
		return failed(fmt.Errorf("the starter catalog does not load (a gpuobs bug): %w", err))
	}
	fmt.Fprintf(o.Stdout, "wrote %s; edit it, then run 'gpuobs generate -c %s'\n", o.path, o.path)
	return nil
}
