// Package promtooltests generates promtool unit tests for the generated rules: every alert
// fires on its scenarios with the exact labels and annotations and stays quiet on the others,
// and every recording rule yields the values an independent model of its semantics expects,
// all on synthetic series shaped like dcgm-exporter's and kube-state-metrics'.
package promtooltests

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/gpuobs/gpuobs/internal/emit"
	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/output"
	"github.com/gpuobs/gpuobs/internal/plan"
	"github.com/gpuobs/gpuobs/internal/promql"
	"github.com/gpuobs/gpuobs/internal/synth"
)

// ruleFiles are the generated rule files, relative to the test files: every layer's of a
// sharded topology, so the tests evaluate them as one Prometheus that sees every shard.
func ruleFiles(p *plan.Plan) []string {
	var out []string
	for _, f := range p.RuleFiles() {
		out = append(out, "../../"+f.Path)
	}
	return out
}

// evalOrder is the order the tests evaluate the rule groups in: a group after the groups whose
// records it reads (where no cycle forbids it), else in file order. Prometheus evaluates its
// groups on their own schedules, so a read of another group's record is at most an interval
// behind; the tests take the order without that lag, the same on every run.
func evalOrder(p *plan.Plan) ([]string, error) {
	var names []string
	producer := map[string]string{}
	for _, f := range p.RuleFiles() {
		for _, g := range f.Groups {
			if !slices.Contains(names, g.Name) {
				names = append(names, g.Name)
			}
			for _, r := range g.Rules {
				if r.Record != "" {
					producer[r.Record] = g.Name
				}
			}
		}
	}
	after := map[string][]string{}
	for _, f := range p.RuleFiles() {
		for _, g := range f.Groups {
			for _, r := range g.Rules {
				reads, err := promql.MetricNames(r.Expr)
				if err != nil {
					return nil, err
				}
				for _, name := range reads {
					if h, ok := producer[name]; ok && h != g.Name && !slices.Contains(after[g.Name], h) {
						after[g.Name] = append(after[g.Name], h)
					}
				}
			}
		}
	}
	var out []string
	placed := map[string]bool{}
	var place func(name string, visiting map[string]bool)
	place = func(name string, visiting map[string]bool) {
		if placed[name] || visiting[name] {
			return
		}
		visiting[name] = true
		for _, first := range after[name] {
			place(first, visiting)
		}
		placed[name] = true
		out = append(out, name)
	}
	for _, name := range names {
		place(name, map[string]bool{})
	}
	return out, nil
}

// Generate renders the promtool test files.
func Generate(p *plan.Plan) ([]emit.File, error) {
	m := p.Model
	steps, err := stepCount(m)
	if err != nil {
		return nil, err
	}
	alerts, err := alertTests(p, steps)
	if err != nil {
		return nil, err
	}
	recording := recordingTests(p, steps)
	order, err := evalOrder(p)
	if err != nil {
		return nil, err
	}
	var files []emit.File
	for _, f := range []struct {
		path string
		body testFile
	}{{output.AlertTests, alerts}, {output.RecordingTests, recording}, {output.RecordsTests, recordTests(p)}} {
		f.body.GroupEvalOrder = order
		file, err := emit.JSONAsYAML(f.path, f.body)
		if err != nil {
			return nil, err
		}
		files = append(files, file)
	}
	return files, nil
}

// stepCount is how many evaluation intervals fit before the evaluation time.
func stepCount(m *model.Model) (int, error) {
	interval, _ := promql.ParseDuration(m.Tests.Interval)
	eval, _ := promql.ParseDuration(m.Tests.EvalTime)
	if time.Duration(interval) <= 0 || time.Duration(eval)%time.Duration(interval) != 0 {
		return 0, fmt.Errorf("tests.evalTime %s is not a multiple of tests.interval %s", m.Tests.EvalTime, m.Tests.Interval)
	}
	return int(time.Duration(eval) / time.Duration(interval)), nil
}

func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// constant is a series that holds v at every step.
func constant(v float64, steps int) string { return fmt.Sprintf("%sx%d", num(v), steps) }

// rising is a counter that grows by inc every step.
func rising(inc float64, steps int) string { return fmt.Sprintf("0+%sx%d", num(inc), steps) }

// counters choose how healthy counter fields behave.
type counters int

const (
	flatCounters counters = iota
	risingCounters
)

// gpuSeries are the healthy series of one GPU: every recorded field and the health field,
// and the clock-event bitmask (throttleReasons, or synth's cycle of reasons when negative).
func gpuSeries(m *model.Model, g synth.GPU, steps int, c counters, throttleReasons int) []series {
	var out []series
	names := map[string]bool{m.Exporter.HealthFields[0]: true}
	for name, f := range m.Fields {
		if f.Rollup != model.RollupNone {
			names[name] = true
		}
	}
	// The fields of one entity level have the same series but for their names: their label
	// sets are built and rendered once per level (and per-process kind) of the GPU.
	type kind struct {
		entity     model.Entity
		perProcess bool
	}
	entities := map[kind][]synth.Entity{}
	matchers := map[kind][]string{}
	for _, name := range model.SortedKeys(names) {
		f := m.Fields[name]
		k := kind{synth.EntityOf(m, name), slices.Contains(m.Exporter.PerProcessFields, name)}
		if _, ok := entities[k]; !ok {
			entities[k] = g.SeriesOf(m, name)
			for _, e := range entities[k] {
				matchers[k] = append(matchers[k], e.Labels.Matchers())
			}
		}
		for i, e := range entities[k] {
			values := constant(synth.GaugeValue(m, f, g, e), steps)
			if f.Kind == model.KindCounter {
				inc := synth.CounterIncrease(f, g, e)
				values = constant(inc*10, steps)
				if c == risingCounters {
					values = rising(inc, steps)
				}
			}
			out = append(out, series{Series: name + matchers[k][i], Values: values})
		}
	}
	bitmask := m.Exporter.ThrottleReasonsField
	reasons := throttleReasons
	if reasons < 0 {
		reasons = synth.ThrottleReasons(g)
	}
	for _, e := range g.SeriesOf(m, bitmask) {
		out = append(out, series{Series: synth.Series(bitmask, e.Labels), Values: constant(float64(reasons), steps)})
	}
	return out
}

// upSeries is the exporter target's up series.
func upSeries(m *model.Model, g synth.GPU, values string) series {
	return series{Series: synth.Series("up", g.UpLabels(m)), Values: values}
}
