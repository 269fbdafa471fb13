package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gpuobs/gpuobs/internal/semdiff"
	"github.com/gpuobs/gpuobs/internal/source"
)

// routingChanged marks a diff with --fail-on-routing-change that found alerts routed or
// silenced differently (exit 3, as lint findings).
type routingChanged struct{ alerts, receivers int }

func (r routingChanged) Error() string {
	return fmt.Sprintf("%d alerts reach other receivers or are silenced by other alerts; %d receivers notify otherwise", r.alerts, r.receivers)
}

type diffOptions struct {
	Options
	baseRef       string
	format        string
	failOnRouting bool
}

func newDiffCommand(opts Options) *cobra.Command {
	o := &diffOptions{Options: opts}
	cmd := &cobra.Command{
		Use:   "diff BASE_DIR HEAD_DIR | diff --base-ref REF [DIR]",
		Short: "Compare two generated outputs by meaning: alerts and their routing, records, panels, counters",
		Long: `Diff compares two outputs of gpuobs generate (two directories, or DIR in the working tree
against DIR at a git ref) by what they mean, not by their text: alerts added, removed or
changed (expression in Prometheus' canonical form, for, labels, annotations), each with the
receivers Alertmanager's routing tree sends it to and the alerts whose firing its inhibit
rules let silence it (computed with Alertmanager's own packages on each side, from the
alert's rule labels); recording rules added, removed or redefined, with the alerts, records
and panels that read them; dashboard panels and queries added or removed; counter-file fields
added or removed; receivers whose integrations changed (type, target, a secret's file; a value
that may be a secret is compared, never shown); and every other generated file whose content
changed where none of these accounts for it.

It reads rules/ (the plain rule files; rules/operator and rules/mimir repeat them),
alertmanager/alertmanager.yml, dashboards/*.json and exporter/dcgm-counters.csv, and hashes
every file with gpuobs' header under the output's directories.
Exit codes: 0 (whatever changed), 3 with --fail-on-routing-change when an alert's receivers
or silencers differ or a receiver's integrations do, 1 error, 2 usage.`,
		Example: `  gpuobs diff old/ new/
  gpuobs diff --base-ref origin/main .                      # the working tree against the base branch
  gpuobs diff --base-ref origin/main -f markdown . > diff.md  # a pull-request comment
  gpuobs diff --base-ref origin/main --fail-on-routing-change .`,
		Args: func(cmd *cobra.Command, args []string) error {
			if o.baseRef != "" {
				return cobra.MaximumNArgs(1)(cmd, args)
			}
			if len(args) != 2 {
				return fmt.Errorf("diff takes two output directories, or --base-ref REF and at most one")
			}
			return nil
		},
		RunE: func(_ *cobra.Command, args []string) error { return o.run(args) },
	}
	cmd.Flags().StringVar(&o.baseRef, "base-ref", "", "git ref: compare DIR (default .) in the working tree against DIR at this ref")
	formatFlag(cmd, &o.format, semdiff.Reporters.Formats())
	cmd.Flags().BoolVar(&o.failOnRouting, "fail-on-routing-change", false, "exit 3 when an alert reaches other receivers or is silenced by other alerts, or a receiver's integrations change")
	return cmd
}

func (o *diffOptions) run(args []string) error {
	if _, err := semdiff.Reporters.Lookup(o.format); err != nil {
		return err
	}
	var baseDir, headDir, baseName string
	if o.baseRef != "" {
		headDir = "."
		if len(args) == 1 {
			headDir = args[0]
		}
		tmp, remove, err := source.FromGit(headDir, o.baseRef)
		if err != nil {
			return failed(err)
		}
		defer remove()
		baseDir, baseName = tmp, o.baseRef
	} else {
		baseDir, headDir, baseName = args[0], args[1], args[0]
	}
	base, err := semdiff.Load(baseDir)
	if err != nil {
		return failed(fmt.Errorf("base %s: %w", baseName, err))
	}
	head, err := semdiff.Load(headDir)
	if err != nil {
		return failed(fmt.Errorf("head %s: %w", headDir, err))
	}
	report := semdiff.Compare(baseName, base, headDir, head)
	if err := semdiff.Reporters.Write(o.Stdout, o.format, report); err != nil {
		return failed(err)
	}
	if c := (routingChanged{report.RoutingChanges(), len(report.Receivers)}); o.failOnRouting && c.alerts+c.receivers > 0 {
		return c
	}
	return nil
}
