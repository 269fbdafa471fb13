package cli

import (
	"github.com/spf13/cobra"

	"github.com/gpuobs/gpuobs/internal/catalog"
	"github.com/gpuobs/gpuobs/internal/model"
)

// catalogFlags choose the catalog a command reads, and bound its evaluation: a catalog file
// may come from a pull request, so it is evaluated in its own process, reads files only under
// its own directory (or --import-root), and has a time and memory limit.
type catalogFlags struct {
	config     string
	importRoot string
	limits     catalog.Limits
}

func (c *catalogFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVarP(&c.config, "config", "c", "", "catalog file (gpuobs.jsonnet); default: the embedded catalog")
	cmd.Flags().StringVar(&c.importRoot, "import-root", "", "directory the catalog may import files from (default: the catalog's own directory)")
	cmd.Flags().DurationVar(&c.limits.Timeout, "eval-timeout", catalog.DefaultLimits.Timeout, "longest the catalog's evaluation may take")
	cmd.Flags().IntVar(&c.limits.MaxMemoryMiB, "eval-max-memory", catalog.DefaultLimits.MaxMemoryMiB, "most memory (MiB) the catalog's evaluation may use")
}

func (c *catalogFlags) load() (*model.Model, error) {
	return catalog.Load(catalog.Options{ConfigPath: c.config, ImportRoot: c.importRoot, Isolated: true, Limits: c.limits})
}
