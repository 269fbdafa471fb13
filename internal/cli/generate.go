package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gpuobs/gpuobs/generators"
	"github.com/gpuobs/gpuobs/generators/alertmanager"
	"github.com/gpuobs/gpuobs/generators/ruleformats"
	"github.com/gpuobs/gpuobs/internal/catalog"
	"github.com/gpuobs/gpuobs/internal/emit"
	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/output"
	"github.com/gpuobs/gpuobs/internal/plan"
	"github.com/gpuobs/gpuobs/internal/semdiff"
	"github.com/gpuobs/gpuobs/internal/source"
)

type generateOptions struct {
	Options
	catalogFlags
	output       string
	check        bool
	rulesFormats []string
}

func newGenerateCommand(opts Options) *cobra.Command {
	o := &generateOptions{Options: opts}
	cmd := &cobra.Command{
		Use:   "generate",
		Short: "Generate rules, Alertmanager config, dashboards, runbooks and tests from the catalog",
		Long: `Generate evaluates the catalog (the embedded default, or -c gpuobs.jsonnet), validates it,
and writes under the output directory: rules/ (plain rule files, and with --rules-format a
PrometheusRule manifest or a Mimir ruler namespace file), alertmanager/, dashboards/,
runbooks/, exporter/ (the dcgm-exporter counter file), docs/catalog.md and tests/promtool/.
All files are written atomically: on any error the output directory is left exactly as it was.
It warns about alerts that read a field the exporter does not collect (default counter set and
exporter.extraCounters): they could never fire.

With --check nothing is written: stale, missing and extra generated files are listed and
the exit code is 1 when there are any.`,
		Example: `  gpuobs generate -o .                                  # the embedded catalog into this repository
  gpuobs generate -c gpuobs.jsonnet -o monitoring/      # your catalog
  gpuobs generate -c gpuobs.jsonnet --rules-format operator,mimir -o monitoring/
  gpuobs generate --check -c gpuobs.jsonnet -o monitoring/   # in CI: exit 1 when stale`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return o.run() },
	}
	o.register(cmd)
	cmd.Flags().StringVarP(&o.output, "output", "o", ".", "output directory")
	cmd.Flags().BoolVar(&o.check, "check", false, "write nothing; exit 1 if the output directory is not up to date")
	cmd.Flags().StringSliceVar(&o.rulesFormats, "rules-format", []string{ruleformats.Plain}, "rule file formats: "+strings.Join(ruleformats.Names, ", ")+" (plain is always written)")
	completeValues(cmd, "rules-format", ruleformats.Names)
	if err := cmd.MarkFlagDirname("output"); err != nil {
		panic(err)
	}
	return cmd
}

func (o *generateOptions) run() error {
	if err := ruleformats.Check(o.rulesFormats); err != nil {
		return err
	}
	m, err := o.load(o.CatalogCache)
	if err != nil {
		return failed(fmt.Errorf("nothing was written: %w", err))
	}
	if o.config != "" && m.Runbooks.BaseURL == catalog.UpstreamRunbookBaseURL {
		fmt.Fprintf(o.Stderr, "warning: runbooks.baseURL is still %s: every alert's runbook_url points at gpuobs' own pages, not at your runbooks/; set runbooks.baseURL to where you serve them\n", catalog.UpstreamRunbookBaseURL)
	}
	o.noteEngines(m)
	p, err := o.buildPlan(m)
	if err != nil {
		return failed(fmt.Errorf("nothing was written: %w", err))
	}
	checked := o.checked()
	files, managed, err := generators.Run(p, generators.Options{RulesFormats: o.rulesFormats, Checked: checked})
	checked.Save()
	if err != nil {
		return failed(fmt.Errorf("nothing was written: %w", err))
	}
	missing := p.Missing()
	for _, alert := range model.SortedKeys(missing) {
		if len(missing[alert]) == 0 {
			continue
		}
		if cloud := m.Exporter.Managed; cloud != "" {
			fmt.Fprintf(o.Stderr, "warning: alert %s reads %s, which the managed exporter (exporter.managed: %s) does not send: it can never fire there; a managed exporter reads no counter file of yours, so collect the fields with an exporter you run, or remove the alert\n",
				alert, strings.Join(missing[alert], ", "), cloud)
			continue
		}
		fmt.Fprintf(o.Stderr, "warning: alert %s reads %s, which the exporter does not collect (default counter set and exporter.extraCounters): it can never fire; deploy %s or add the fields to exporter.extraCounters\n",
			alert, strings.Join(missing[alert], ", "), output.Counters)
	}
	if o.check {
		drift, err := emit.Check(o.output, files, managed)
		if err != nil {
			return failed(err)
		}
		if !drift.Empty() {
			fmt.Fprint(o.Stdout, drift.String())
			if _, err := os.Lstat(filepath.Join(o.output, output.Journal)); err == nil {
				return failed(fmt.Errorf("%s is not up to date: a generate run was killed while it replaced files (its journal %s is left); run '%s' to complete it", o.output, output.Journal, o.regenerateCommand()))
			}
			return failed(fmt.Errorf("%s is not up to date with the catalog: run '%s'", o.output, o.regenerateCommand()))
		}
		fmt.Fprintf(o.Stdout, "%d generated files in %s are up to date\n", len(files), o.output)
		return nil
	}
	recovered, err := emit.Recover(o.output, files, managed)
	if err != nil {
		return failed(fmt.Errorf("nothing was written: %w", err))
	}
	if recovered.Completed > 0 {
		fmt.Fprintf(o.Stdout, "completed %d renames and removals of a generate run that was killed in %s\n", recovered.Completed, o.output)
	}
	if recovered.Temporary > 0 {
		fmt.Fprintf(o.Stdout, "removed %d temporary files a killed generate run left in %s\n", recovered.Temporary, o.output)
	}
	before, err := emit.Check(o.output, files, managed)
	if err != nil {
		return failed(fmt.Errorf("nothing was written: %w", err))
	}
	silenced := newInhibitRules(o.output, p, files)
	renamed := renamedRecords(o.output, p, before.Stale)
	if err := emit.Write(o.output, files, managed); err != nil {
		var partial *emit.PartialError
		var interrupted *emit.InterruptedError
		if errors.As(err, &partial) || errors.As(err, &interrupted) {
			return failed(err)
		}
		return failed(fmt.Errorf("nothing was written: %w", err))
	}
	if before.Empty() {
		fmt.Fprintf(o.Stdout, "%d generated files in %s were already up to date: nothing changed\n", len(files), o.output)
		return nil
	}
	fmt.Fprintf(o.Stdout, "wrote %d files to %s: %d changed, %d new, %d removed\n", len(files), o.output, len(before.Stale), len(before.Missing), len(before.Extra))
	for _, line := range append(silenced, renamed...) {
		fmt.Fprintln(o.Stdout, line)
	}
	return nil
}

// newInhibitRules describes the inhibit rules the generated files add to, or drop from, the
// Alertmanager configuration gpuobs generated in dir before (compared by semdiff): a change
// such as making an alert critical derives new ones, and each silences alerts. Nothing when
// there was none before.
func newInhibitRules(dir string, p *plan.Plan, files []emit.File) []string {
	base, err := source.ReadInTree(dir, filepath.Join(dir, output.AlertmanagerConfig))
	if err != nil {
		return nil
	}
	i := slices.IndexFunc(files, func(f emit.File) bool { return f.Path == output.AlertmanagerConfig })
	if i < 0 || bytes.Equal(base, files[i].Content) {
		return nil // nothing generated, or nothing changed
	}
	added, removed, err := semdiff.InhibitRuleChanges(base, files[i].Content)
	if err != nil {
		return nil
	}
	inhibitions, err := alertmanager.Inhibitions(p)
	if err != nil {
		return nil
	}
	var out []string
	for _, in := range inhibitions {
		if slices.Contains(added, in.Name) {
			out = append(out, fmt.Sprintf("inhibit rule %s added: while %s fires, %s on the same %s are silenced", in.Name, strings.Join(in.Sources, " or "), strings.Join(in.Targets, ", "), strings.Join(in.Equal, ", ")))
		}
	}
	for _, name := range removed {
		out = append(out, "inhibit rule "+name+" removed")
	}
	return out
}

// regenerateCommand is the generate command that writes what --check compared against: every
// flag that shapes the output, repeated.
func (o *generateOptions) regenerateCommand() string {
	args := []string{"gpuobs", "generate", "-o", shellQuote(o.output)}
	if o.config != "" {
		args = append(args, "-c", shellQuote(o.config))
	}
	if o.importRoot != "" {
		args = append(args, "--import-root", shellQuote(o.importRoot))
	}
	if !slices.Equal(o.rulesFormats, []string{ruleformats.Plain}) {
		args = append(args, "--rules-format", shellQuote(strings.Join(o.rulesFormats, ",")))
	}
	return strings.Join(args, " ")
}

// shellQuote quotes s for a POSIX shell when it holds anything but plain path characters.
func shellQuote(s string) string {
	special := func(r rune) bool {
		return (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') && (r < '0' || r > '9') && !strings.ContainsRune("_./-,=:@+", r)
	}
	plain := s != "" && strings.IndexFunc(s, special) < 0
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// noteEngines says, for each served engine, what it cannot show of what the rules read.
func (o *generateOptions) noteEngines(m *model.Model) {
	for _, name := range model.SortedKeys(m.Engines) {
		e := m.Engines[name]
		if !e.Served || len(e.Lacks()) == 0 {
			continue
		}
		leftOut := "the SLOs, alerts and panels on those leave it out"
		if len(e.LeftOutOf) > 0 {
			leftOut = "it is left out of " + strings.Join(e.LeftOutOf, ", ") + " and of the panels on those"
		}
		fmt.Fprintf(o.Stderr, "note: %s (%s) shows no %s: %s (docs/catalog.md, Serving engines)\n", e.Title, name, strings.Join(e.Lacks(), ", "), leftOut)
	}
}
