package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gpuobs/gpuobs/generators"
	"github.com/gpuobs/gpuobs/internal/emit"
	"github.com/gpuobs/gpuobs/internal/lint"
	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/output"
	"github.com/gpuobs/gpuobs/internal/plan"
	"github.com/gpuobs/gpuobs/internal/promql"
	"github.com/gpuobs/gpuobs/internal/source"
)

// ExitFindings is the exit code when lint finds problems at or above --fail-on.
const ExitFindings = 3

// findings marks a lint run that found problems at or above --fail-on (exit 3).
type findings struct{ n int }

func (f findings) Error() string { return fmt.Sprintf("%d problems at or above --fail-on", f.n) }

type lintOptions struct {
	Options
	catalogFlags
	format        string
	failOn        string
	counters      string
	scrapes       []string
	baseline      string
	writeBaseline string
	changedSince  string
	global        []string
	prometheus    string
}

func newLintCommand(opts Options) *cobra.Command {
	o := &lintOptions{Options: opts}
	cmd := &cobra.Command{
		Use: "lint [PATH...]",
		Example: `  gpuobs lint                                      # what the embedded catalog generates
  gpuobs lint rules/ dashboards/                   # files and directories
  gpuobs lint -c gpuobs.jsonnet -f github --fail-on warning rules/ dashboards/
  gpuobs lint --exporter-counters deployed.csv rules/
  gpuobs lint --write-baseline .gpuobs-lint-baseline.json rules/   # adopt: accept what is there
  gpuobs lint --baseline .gpuobs-lint-baseline.json rules/         # then fail only on new problems
  gpuobs lint --changed-since origin/main rules/ dashboards/       # report only files a PR changed
  gpuobs lint --global thanos/rules/ prometheus/rules/ thanos/rules/  # which files the Thanos ruler evaluates`,
		Short: "Check rule files and dashboards for cardinality and PromQL problems, offline",
		Long: `Lint reads Prometheus rule files (rule groups and PrometheusRule manifests, also in
multi-document YAML), Grafana dashboards (.json) and directories of them, and checks them
against the catalog (the embedded one, or -c gpuobs.jsonnet): cardinality at the catalog's
fleet size, counters and gauges by their real semantics, MIG double counting, fields the
exporter does not collect, units, alert hygiene and naming. Without PATH it lints the rules
and dashboards the catalog generates. Directories are walked for .yaml, .yml, .rules and .json
files, and for files without an extension that hold a JSON object (the dashboards of rendered
mixins); the dashboards and rule files inside ConfigMaps are read too. A dcgm-exporter counter file (.csv) among
them says what the exporter collects, unless --exporter-counters or --scrape does. GPU checks apply to expressions that read a
DCGM field or a rule derived from one; gpuobs' naming, severity and annotation conventions
apply to its own output, and to other files only as the catalog's lint.policy says. On a
sharded fleet, rule files under a directory named global (or given with --global) are the
global layer's and must not read raw series; files under a directory named shard must not read
the global layer's records.

Suppress a check for one rule with a comment in it or just above it,
  # gpuobs-lint disable promql/counter
for a whole file with "# gpuobs-lint disable-file <check>", or in the catalog's lint.disable
and lint.ignore. Exit codes: 0 clean, 3 problems at or above --fail-on, 1 error, 2 usage.`,
		RunE: func(_ *cobra.Command, args []string) error { return o.run(args) },
	}
	o.register(cmd)
	formatFlag(cmd, &o.format, lint.Reporters.Formats())
	cmd.Flags().StringVar(&o.failOn, "fail-on", "error", "exit 3 when there are problems of this severity or higher: info, warning, error")
	completeValues(cmd, "fail-on", []string{lint.Info.String(), lint.Warning.String(), lint.Error.String()})
	cmd.Flags().StringVar(&o.counters, "exporter-counters", "", "dcgm-exporter counter file (CSV) actually deployed; exporter/not-collected then checks against it instead of the catalog's declared set")
	cmd.Flags().StringArrayVar(&o.scrapes, "scrape", nil, "a saved /metrics text of dcgm-exporter (repeat for several node types): the catalog's label profile is checked against it, and exporter/not-collected checks the rules against the fields it holds")
	cmd.Flags().StringVar(&o.baseline, "baseline", "", "baseline file (from --write-baseline): report only problems it does not list")
	cmd.Flags().StringVar(&o.writeBaseline, "write-baseline", "", "write every problem found to this baseline file and exit 0")
	cmd.Flags().StringSliceVar(&o.global, "global", nil, "rule files or directories the global layer of a sharded fleet evaluates (Thanos or Mimir ruler), besides those under a directory named global")
	cmd.Flags().StringVar(&o.changedSince, "changed-since", "", "git ref: report only problems in files changed since it (the rest is still read, for the rules it records)")
	cmd.Flags().StringVar(&o.prometheus, "prometheus-version", "", "the Prometheus release the rules run on (3.5, 3.13, ...), instead of the catalog's prometheus.version: PromQL it lacks is reported (promql/feature)")
	return cmd
}

func (o *lintOptions) run(paths []string) error {
	failOn, err := lint.ParseSeverity(o.failOn)
	if err != nil {
		return err
	}
	if _, err := lint.Reporters.Lookup(o.format); err != nil {
		return err
	}
	if o.counters != "" && len(o.scrapes) > 0 {
		return fmt.Errorf("--exporter-counters and --scrape both say what the exporter collects: give one")
	}
	if o.prometheus != "" {
		if _, err := promql.ParseVersion(o.prometheus); err != nil {
			return fmt.Errorf("--prometheus-version: %w", err)
		}
	}
	read := readInputs(paths)
	m, err := o.loadWithCounters(paths)
	if err != nil {
		return failed(err)
	}
	if err := lint.CheckSuppressions(m); err != nil {
		return failed(err)
	}
	if o.prometheus != "" {
		m.Prometheus.Version = o.prometheus
	}
	p, err := o.buildPlan(m)
	if err != nil {
		return failed(err)
	}
	files, err := read(p)
	if err != nil {
		return failed(err)
	}
	in := lint.NewInputs(p, files)
	in.Analysis.GlobalPaths = o.global
	f := p.Model.Fleet
	in.FleetSource = fmt.Sprintf("the embedded catalog's default fleet, a worst case of %d clusters × %d nodes × %d GPUs, each split into %d MIG instances; set fleet in your gpuobs.jsonnet to your own",
		f.Clusters, f.NodesPerCluster, f.GPUsPerNode, f.MIGInstancesPerGPU)
	if o.config != "" {
		in.FleetSource, in.BaseDir = "fleet of "+o.config, filepath.Dir(o.config)
	}
	problems := lint.Run(in, lint.Checks())
	if o.writeBaseline != "" {
		var b strings.Builder
		if err := in.WriteBaseline(&b, problems); err != nil {
			return failed(err)
		}
		if err := emit.WriteFile(o.writeBaseline, []byte(b.String())); err != nil {
			return failed(err)
		}
		fmt.Fprintf(o.Stdout, "wrote %d problems to the baseline %s\n", len(problems), o.writeBaseline)
		return nil
	}
	if problems, err = o.onlyNew(in, problems); err != nil {
		return failed(err)
	}
	if err := lint.Reporters.Write(o.Stdout, o.format, lint.Result{Problems: problems, Files: files}); err != nil {
		return failed(err)
	}
	// The summary follows a text report; a machine-read report (json, sarif, github,
	// checkstyle) keeps stdout to its format and gets it on stderr, for the CI log.
	summaryTo := o.Stderr
	if o.format == "text" {
		summaryTo = o.Stdout
	}
	fmt.Fprintln(summaryTo, lint.Summary(files, len(problems)))
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

// loadWithCounters loads the catalog with the exporter's collected set: the counter file
// --exporter-counters names, or the fields the --scrape texts hold, or else the counter files
// the linted paths hold (a repository that ships its exporter's counter file beside its rules
// and dashboards), all of them together, said on stderr.
func (o *lintOptions) loadWithCounters(paths []string) (*model.Model, error) {
	m, err := o.load(o.CatalogCache)
	if err != nil {
		return nil, err
	}
	if len(o.scrapes) > 0 {
		return withScrapes(m, o.scrapes)
	}
	files := source.FindCounterFiles(paths)
	if o.counters != "" {
		files = []string{o.counters}
	} else if len(files) > 0 {
		fmt.Fprintf(o.Stderr, "gpuobs: exporter/not-collected checks against the counter files found in the inputs: %s (--exporter-counters chooses one)\n", strings.Join(files, ", "))
	}
	for _, file := range files {
		data, err := source.ReadNamed(file)
		if err != nil {
			return nil, err
		}
		counters, err := source.ReadCounters(file, data)
		if err != nil {
			return nil, err
		}
		if m.Exporter.Deployed == nil {
			m.Exporter.Deployed = map[string]bool{}
		}
		maps.Copy(m.Exporter.Deployed, source.Collected(counters))
	}
	return m, nil
}

// readInputs starts reading the files lint checks, those under paths, so that reading and
// parsing them overlaps the catalog's evaluation (a child process); the function it returns
// waits for them. Without paths, the function reads the rules and dashboards the plan
// generates.
func readInputs(paths []string) func(*plan.Plan) ([]*source.File, error) {
	if len(paths) == 0 {
		return generatedInputs
	}
	type result struct {
		files []*source.File
		err   error
	}
	done := make(chan result, 1)
	go func() {
		files, err := pathInputs(paths)
		done <- result{files, err}
	}()
	return func(*plan.Plan) ([]*source.File, error) {
		r := <-done
		return r.files, r.err
	}
}

// generatedInputs are the rules and dashboards the plan generates.
func generatedInputs(p *plan.Plan) ([]*source.File, error) {
	generated, _, err := generators.Run(p, generators.Options{})
	if err != nil {
		return nil, err
	}
	var files []*source.File
	for _, g := range generated {
		if strings.HasPrefix(g.Path, output.RulesDir+"/") || strings.HasPrefix(g.Path, output.DashboardsDir+"/") {
			files = append(files, source.ReadFile(g.Path, g.Content))
		}
	}
	return files, nil
}

// pathInputs reads the files under paths, refusing paths that do not exist.
func pathInputs(paths []string) ([]*source.File, error) {
	var missing []string
	for _, path := range paths {
		if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
			missing = append(missing, path)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("nothing to lint at %s: no such file or directory", strings.Join(missing, ", "))
	}
	return source.ReadPaths(paths), nil
}

// onlyNew keeps the problems --baseline does not accept, in files --changed-since names.
func (o *lintOptions) onlyNew(in *lint.Inputs, problems []lint.Problem) ([]lint.Problem, error) {
	if o.baseline != "" {
		data, err := source.ReadNamed(o.baseline)
		if err != nil {
			return nil, err
		}
		b, err := lint.ReadBaseline(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", o.baseline, err)
		}
		problems = in.New(b, problems)
	}
	if o.changedSince == "" {
		return problems, nil
	}
	changed, err := source.ChangedSince(".", o.changedSince)
	if err != nil {
		return nil, fmt.Errorf("--changed-since: %w", err)
	}
	var kept []lint.Problem
	for _, p := range problems {
		if changed[filepath.ToSlash(filepath.Clean(p.Path))] {
			kept = append(kept, p)
		}
	}
	return kept, nil
}
