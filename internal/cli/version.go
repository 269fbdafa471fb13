package cli

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

func newVersionCommand(opts Options) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the gpuobs version",
		Example: "  gpuobs version\n  gpuobs --version",
		Args:    cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			fmt.Fprintf(opts.Stdout, "gpuobs %s\n", version(opts.Version))
			return nil
		},
	}
}

// version is the explicit version, else what the binary's build info says: the module version
// (v1.2.3 for go install ...@v1.2.3) and, for a build from a checkout, the VCS revision.
func version(explicit string) string {
	if explicit != "" {
		return explicit
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	return describeBuild(info)
}

// describeBuild is the module version, then the revision and whether the tree was modified.
func describeBuild(info *debug.BuildInfo) string {
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	if rev := settings["vcs.revision"]; rev != "" {
		v += " " + rev[:min(12, len(rev))]
		if settings["vcs.modified"] == "true" {
			v += " (modified)"
		}
	}
	return v
}
