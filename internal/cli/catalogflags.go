package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

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
	for flag, exts := range map[string][]string{"config": {"jsonnet", "libsonnet"}} {
		if err := cmd.MarkFlagFilename(flag, exts...); err != nil {
			panic(err)
		}
	}
	if err := cmd.MarkFlagDirname("import-root"); err != nil {
		panic(err)
	}
}

// completeValues offers a flag's enumerated values in shell completion; a comma-separated
// list flag completes each value after the last comma.
func completeValues(cmd *cobra.Command, flag string, values []string) {
	err := cmd.RegisterFlagCompletionFunc(flag, func(_ *cobra.Command, _ []string, typed string) ([]string, cobra.ShellCompDirective) {
		prefix := typed[:strings.LastIndex(typed, ",")+1]
		out := make([]string, len(values))
		for i, v := range values {
			out[i] = prefix + v
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	})
	if err != nil {
		panic(err)
	}
}

// load reads the catalog, using and keeping evaluations in cacheDir ("" for none): a catalog
// file that is not there is said so, and problems in one are introduced as such.
func (c *catalogFlags) load(cacheDir string) (*model.Model, error) {
	if c.config != "" {
		if _, err := os.Stat(c.config); err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return nil, fmt.Errorf("catalog file %s: %w", c.config, err)
		}
	}
	m, err := catalog.Load(catalog.Options{ConfigPath: c.config, ImportRoot: c.importRoot, Isolated: true, Limits: c.limits, CacheDir: cacheDir})
	var problems catalog.Problems
	if errors.As(err, &problems) {
		return nil, fmt.Errorf("catalog is invalid:\n%w", err)
	}
	return m, err
}

// formatFlag adds --format (-f), text by default, over a command's report formats: its help
// lists them and shell completion offers them.
func formatFlag(cmd *cobra.Command, format *string, formats []string) {
	cmd.Flags().StringVarP(format, "format", "f", "text", "output format: "+strings.Join(formats, ", "))
	completeValues(cmd, "format", formats)
}
