package cli

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

func newVersionCommand(opts Options) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the gpuobs version",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			fmt.Fprintf(opts.Stdout, "gpuobs %s\n", version(opts.Version))
			return nil
		},
	}
}

// version is the explicit version, else the module version the binary was built from.
func version(explicit string) string {
	if explicit != "" {
		return explicit
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
		return info.Main.Version
	}
	return "(devel)"
}
