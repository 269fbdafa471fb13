package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gpuobs/gpuobs/generators"
	"github.com/gpuobs/gpuobs/generators/dashboards"
	"github.com/gpuobs/gpuobs/generators/exporter"
	"github.com/gpuobs/gpuobs/internal/conventions"
	"github.com/gpuobs/gpuobs/internal/lint"
)

// ExitFindings is the exit code when lint finds problems at or above --fail-on.
const ExitFindings = 3

// findings marks a lint run that found problems at or above --fail-on (exit 3).
type findings struct{ n int }

func (f findings) Error() string { return fmt.Sprintf("%d problems at or above --fail-on", f.n) }

type lintOptions struct {
	Options
	catalogFlags
	format   string
	failOn   string
	counters string
}

func newLintCommand(opts Options) *cobra.Command {
	o := &lintOptions{Options: opts}
	cmd := &cobra.Command{
		Use: "lint [PATH...]",
		Example: `  gpuobs lint                                      # what the embedded catalog generates
  gpuobs lint rules/ dashboards/                   # files and directories
  gpuobs lint -c gpuobs.jsonnet -f github --fail-on warning rules/ dashboards/
  gpuobs lint --exporter-counters deployed.csv rules/`,
		Short: "Check rule files and dashboards for cardinality and PromQL problems, offline",
		Long: `Lint reads Prometheus rule files (rule groups and PrometheusRule manifests, also in
multi-document YAML), Grafana dashboards (.json) and directories of them, and checks them
against the catalog (the embedded one, or -c gpuobs.jsonnet): cardinality at the catalog's
fleet size, counters and gauges by their real semantics, MIG double counting, fields the
exporter does not collect, units, alert hygiene and naming. Without PATH it lints the rules
and dashboards the catalog generates.

Suppress a check for one rule with a comment in it or just above it,
  # gpuobs-lint disable promql/counter
for a whole file with "# gpuobs-lint disable-file <check>", or in the catalog's lint.disable
and lint.ignore. Exit codes: 0 clean, 3 problems at or above --fail-on, 1 error, 2 usage.`,
		RunE: func(_ *cobra.Command, args []string) error { return o.run(args) },
	}
	o.register(cmd)
	cmd.Flags().StringVarP(&o.format, "format", "f", "text", "output format: "+strings.Join(lint.Formats, ", "))
	cmd.Flags().StringVar(&o.failOn, "fail-on", "error", "exit 3 when there are problems of this severity or higher: info, warning, error")
	completeValues(cmd, "format", lint.Formats)
	completeValues(cmd, "fail-on", []string{lint.Info.String(), lint.Warning.String(), lint.Error.String()})
	cmd.Flags().StringVar(&o.counters, "exporter-counters", "", "dcgm-exporter counter file (CSV) actually deployed; exporter/not-collected then checks against it instead of the catalog's declared set")
	return cmd
}

func (o *lintOptions) run(paths []string) error {
	failOn, err := lint.ParseSeverity(o.failOn)
	if err != nil {
		return err
	}
	if !slices.Contains(lint.Formats, o.format) {
		return fmt.Errorf("unknown format %q: use one of %s", o.format, strings.Join(lint.Formats, ", "))
	}
	m, err := o.load()
	if err != nil {
		return failed(err)
	}
	if o.counters != "" {
		data, err := os.ReadFile(o.counters)
		if err != nil {
			return failed(err)
		}
		if m.Exporter.Deployed, err = exporter.ReadCounters(o.counters, data); err != nil {
			return failed(err)
		}
	}
	p, err := o.buildPlan(m)
	if err != nil {
		return failed(err)
	}
	var files []*lint.File
	if len(paths) == 0 {
		generated, _, err := generators.Run(p, generators.Options{})
		if err != nil {
			return failed(err)
		}
		for _, g := range generated {
			if strings.HasPrefix(g.Path, conventions.RulesDir+"/") || strings.HasPrefix(g.Path, dashboards.Dir+"/") {
				files = append(files, lint.ReadFile(g.Path, g.Content))
			}
		}
	} else {
		var missing []string
		for _, path := range paths {
			if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
				missing = append(missing, path)
			}
		}
		if len(missing) > 0 {
			return failed(fmt.Errorf("nothing to lint at %s: no such file or directory", strings.Join(missing, ", ")))
		}
		files = lint.ReadPaths(paths)
	}
	problems := lint.Run(lint.NewInputs(p, files), lint.Checks())
	if err := lint.Write(o.Stdout, o.format, problems, files); err != nil {
		return failed(err)
	}
	if o.format == "text" && len(problems) == 0 {
		rules, queries := 0, 0
		for _, f := range files {
			rules += len(f.Rules)
			if f.Dashboard != nil {
				queries += len(f.Dashboard.Queries)
			}
		}
		fmt.Fprintf(o.Stdout, "checked %d files: %d rules, %d dashboard queries; no problems\n", len(files), rules, queries)
	}
	n := 0
	for _, p := range problems {
		if p.Severity >= failOn {
			n++
		}
	}
	if n > 0 {
		return findings{n}
	}
	return nil
}
