// Package semdiff compares two generated outputs by meaning: alerts with the receivers they
// reach and the alerts that can silence them (computed by Alertmanager's own routing and
// inhibition code), recording rules and their readers, dashboard panels and queries, and the
// exporter's counter fields.
package semdiff

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gpuobs/gpuobs/internal/amconfig"
	"github.com/gpuobs/gpuobs/internal/output"
	"github.com/gpuobs/gpuobs/internal/promql"
	"github.com/gpuobs/gpuobs/internal/promql/labelflow"
	"github.com/gpuobs/gpuobs/internal/source"
)

// Output is what one generated output directory means.
type Output struct {
	Alerts   map[string]*Alert
	Records  map[string]*Record
	Panels   map[string]*Panel
	Counters map[string]string // DCGM field → Prometheus type
	// Receivers are the Alertmanager configuration's receivers, by name.
	Receivers map[string]Receiver
	// Files are the content hashes of every generated file, by path: a change no other part of
	// the report accounts for is reported as the file's.
	Files map[string]string
	// routed is false when the directory has no Alertmanager configuration.
	routed bool
}

// Alert is one alerting rule and where Alertmanager sends it.
type Alert struct {
	Name string `json:"name"`
	File string `json:"file"`
	Expr string `json:"expr"`
	For  string `json:"for,omitempty"`
	// KeepFiringFor is the rule's keep_firing_for.
	KeepFiringFor string            `json:"keepFiringFor,omitempty"`
	Labels        map[string]string `json:"labels,omitempty"`
	Annotations   map[string]string `json:"annotations,omitempty"`
	// Receivers are the receivers Alertmanager's routing tree sends the alert to, from its
	// rule labels.
	Receivers []string `json:"receivers"`
	// SilencedBy are the alerts of the same output whose firing Alertmanager's inhibitor lets
	// silence this one.
	SilencedBy []string `json:"silencedBy,omitempty"`
	reads      []string
	node       *promql.Node
}

// Record is one recording rule.
type Record struct {
	Name   string            `json:"name"`
	Labels map[string]string `json:"labels,omitempty"`
	File   string            `json:"file"`
	Expr   string            `json:"expr"`
	reads  []string
	node   *promql.Node
}

// Panel is one dashboard panel and its queries.
type Panel struct {
	Dashboard string   `json:"dashboard"`
	Title     string   `json:"title"`
	Queries   []string `json:"queries"`
	reads     []string
}

// Load reads an output directory as gpuobs generate writes it. Every problem is reported
// together, each with its file.
func Load(dir string) (*Output, error) {
	out := &Output{Alerts: map[string]*Alert{}, Records: map[string]*Record{}, Panels: map[string]*Panel{}, Counters: map[string]string{}, Receivers: map[string]Receiver{}, Files: map[string]string{}}
	var errs []error
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return nil, fmt.Errorf("%s: not a directory", dir)
	}
	ruleFiles, err := source.RuleFiles(dir)
	if err != nil {
		return nil, err
	}
	if len(ruleFiles) == 0 {
		errs = append(errs, fmt.Errorf("%s: no rule files under %s/", dir, output.RulesDir))
	}
	for _, rel := range ruleFiles {
		errs = append(errs, out.readRules(dir, rel)...)
	}
	errs = append(errs, out.readDashboards(dir)...)
	errs = append(errs, out.readCounters(dir)...)
	errs = append(errs, out.route(dir)...)
	errs = append(errs, out.hashFiles(dir, ruleFiles)...)
	return out, errors.Join(errs...)
}

// hashFiles notes the content hash of every generated file (one with gpuobs' header) under
// output.ReadDirs; a plain rule file is hashed by its meaning (expressions in canonical form,
// keys in order, layout and comments left out), as its rules are compared.
func (o *Output) hashFiles(dir string, ruleFiles []string) []error {
	var errs []error
	for _, d := range output.ReadDirs {
		err := filepath.WalkDir(filepath.Join(dir, d), func(p string, e fs.DirEntry, err error) error {
			if errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			if err != nil || !e.Type().IsRegular() {
				return err
			}
			content, err := source.ReadInTree(dir, p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			rel = filepath.ToSlash(rel)
			if !output.HasHeader(p, content) {
				return nil
			}
			if slices.Contains(ruleFiles, rel) {
				content = ruleMeaning(content)
			}
			sum := sha256.Sum256(content)
			o.Files[rel] = hex.EncodeToString(sum[:])
			return nil
		})
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// ruleMeaning is a rule file as data with every expression in canonical form (the file itself
// when it does not read so: its rules' errors are reported apart).
func ruleMeaning(data []byte) []byte {
	var doc any
	if yaml.Unmarshal(data, &doc) != nil {
		return data
	}
	var canon func(v any) any
	canon = func(v any) any {
		switch v := v.(type) {
		case map[string]any:
			for k, child := range v {
				if expr, ok := child.(string); ok && k == "expr" {
					if c, err := promql.Canonical(expr); err == nil {
						v[k] = c
					}
					continue
				}
				v[k] = canon(child)
			}
		case []any:
			for i, child := range v {
				v[i] = canon(child)
			}
		}
		return v
	}
	meaning, err := json.Marshal(canon(doc))
	if err != nil {
		return data
	}
	return meaning
}

func (o *Output) readRules(dir, rel string) []error {
	data, err := source.ReadInTree(dir, filepath.Join(dir, rel))
	if err != nil {
		return []error{err}
	}
	f := source.ReadRules(rel, data)
	if f.Err != nil {
		return []error{fmt.Errorf("%s:%d:%d: %s", rel, f.Err.Pos.Line, f.Err.Pos.Col, f.Err.Message)}
	}
	var errs []error
	for _, r := range f.Rules {
		if r.Expr.Err != nil {
			pos := r.Expr.PosAt(r.Expr.Err.Offset)
			errs = append(errs, fmt.Errorf("%s:%d:%d: %s: %s", rel, pos.Line, pos.Col, r.Name(), r.Expr.Err.Msg))
			continue
		}
		expr, reads, err := canonical(r.Expr.Text)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s:%d:%d: %s: %w", rel, r.Expr.PosAt(0).Line, r.Expr.PosAt(0).Col, r.Name(), err))
			continue
		}
		if r.Alert != "" {
			a := &Alert{Name: r.Alert, File: rel, Expr: expr, For: r.For, KeepFiringFor: r.KeepFiringFor, Labels: r.Labels, Annotations: r.Annotations, reads: reads, node: r.Expr.Node}
			o.Alerts[alertKey(o.Alerts, r.Alert, r.Labels)] = a
			continue
		}
		rec := &Record{Name: r.Record, Labels: r.Labels, File: rel, Expr: expr, reads: reads, node: r.Expr.Node}
		o.Records[recordKey(r.Record, r.Labels)] = rec
	}
	return errs
}

// recordKey names a recording rule: its name, and its labels when it has some (an SLO's
// records share names and differ by their slo label).
func recordKey(name string, lbls map[string]string) string {
	if len(lbls) == 0 {
		return name
	}
	return name + labelString(lbls)
}

// alertKey names an alert: its name, and its labels when another alert of the output has the
// name.
func alertKey(alerts map[string]*Alert, name string, lbls map[string]string) string {
	if _, taken := alerts[name]; !taken {
		return name
	}
	return name + labelString(lbls)
}

// labelString writes labels as {a="1", b="2"}, sorted.
func labelString(lbls map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(lbls)) {
		parts = append(parts, fmt.Sprintf("%s=%q", k, lbls[k]))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// canonical is an expression in Prometheus' canonical form (so that layout is not a change)
// and the metric names it reads.
func canonical(expr string) (string, []string, error) {
	c, err := promql.Canonical(expr)
	if err != nil {
		return "", nil, err
	}
	reads, err := promql.MetricNames(expr)
	return c, reads, err
}

func (o *Output) readDashboards(dir string) []error {
	var paths []string
	for _, d := range []string{output.DashboardsDir, output.DashboardsV2Dir} {
		found, err := filepath.Glob(filepath.Join(dir, d, "*.json"))
		if err != nil {
			return []error{err}
		}
		paths = append(paths, found...)
	}
	var errs []error
	for _, p := range paths {
		data, err := source.ReadInTree(dir, p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		f := source.ReadDashboard(rel, data)
		if f.Err != nil {
			errs = append(errs, fmt.Errorf("%s:%d:%d: %s", rel, f.Err.Pos.Line, f.Err.Pos.Col, f.Err.Message))
			continue
		}
		for _, q := range f.Dashboard.Queries {
			key := rel + " › " + q.Panel
			p := o.Panels[key]
			if p == nil {
				p = &Panel{Dashboard: rel, Title: q.Panel}
				o.Panels[key] = p
			}
			p.Queries = append(p.Queries, q.Expr.Text)
			if q.Expr.Node != nil {
				if reads, err := promql.MetricNames(promql.FillGrafanaVariables(q.Expr.Text)); err == nil {
					p.reads = append(p.reads, reads...)
				}
			}
		}
	}
	return errs
}

// readCounters reads the counter file by the reader every command uses.
func (o *Output) readCounters(dir string) []error {
	data, err := source.ReadInTree(dir, filepath.Join(dir, output.Counters))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return []error{err}
	}
	counters, err := source.ReadCounters(output.Counters, data)
	maps.Copy(o.Counters, counters)
	if err != nil {
		return []error{err}
	}
	return nil
}

// route computes each alert's receivers and silencers with Alertmanager's packages.
func (o *Output) route(dir string) []error {
	data, err := source.ReadInTree(dir, filepath.Join(dir, output.AlertmanagerConfig))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return []error{err}
	}
	conf, err := amconfig.Load(data)
	if err != nil {
		return []error{fmt.Errorf("%s: %w", output.AlertmanagerConfig, err)}
	}
	o.routed = true
	receivers, err := readReceivers(data)
	if err != nil {
		return []error{fmt.Errorf("%s: %w", output.AlertmanagerConfig, err)}
	}
	o.Receivers = receivers
	keys := slices.Sorted(maps.Keys(o.Alerts))
	lsets := make([]map[string]string, len(keys))
	resolve := o.labelResolver()
	inhibitLabels := conf.InhibitLabels()
	for i, k := range keys {
		a := o.Alerts[k]
		lsets[i] = map[string]string{}
		carried := labelflow.Output(a.node, resolve)
		for _, l := range carried.Sorted() {
			lsets[i][l] = anyValue
		}
		for _, l := range inhibitLabels {
			if carried.MayHave(l) {
				lsets[i][l] = anyValue
			}
		}
		maps.Copy(lsets[i], a.Labels)
		lsets[i]["alertname"] = a.Name
		for _, r := range conf.Routes(lsets[i]) {
			a.Receivers = append(a.Receivers, r.Receiver)
		}
	}
	silencers, err := conf.Silencers(lsets)
	if err != nil {
		return []error{err}
	}
	for i, k := range keys {
		for _, s := range silencers[i] {
			o.Alerts[k].SilencedBy = append(o.Alerts[k].SilencedBy, o.Alerts[keys[s]].Name)
		}
		slices.Sort(o.Alerts[k].SilencedBy)
		o.Alerts[k].SilencedBy = slices.Compact(o.Alerts[k].SilencedBy)
	}
	return nil
}

// anyValue stands for the value of a label an alert's series carry: routing and inhibition
// then see the label, and two alerts' values as equal (the question is whether one can
// silence the other). An alert carries the labels its expression surely keeps, and those an
// inhibit rule reads that it may keep (a raw series' labels are not known).
const anyValue = "any"

// labelResolver resolves a metric's labels through the output's own recording rules (a
// record's expression, plus its rule labels); a metric no rule records may carry any label,
// and none surely.
func (o *Output) labelResolver() labelflow.Resolver {
	byName := map[string][]*Record{}
	for _, r := range o.Records {
		byName[r.Name] = append(byName[r.Name], r)
	}
	memo := map[string]labelflow.Set{}
	var resolve labelflow.Resolver
	resolve = func(metric string) labelflow.Set {
		if s, ok := memo[metric]; ok {
			return s
		}
		memo[metric] = labelflow.NewSet(true) // a record that reads itself stays unknown
		var s labelflow.Set
		for i, r := range byName[metric] {
			out := labelflow.Output(r.node, resolve).With(slices.Sorted(maps.Keys(r.Labels))...)
			if i == 0 {
				s = out
			} else {
				s = intersect(s, out)
			}
		}
		if len(byName[metric]) == 0 {
			s = labelflow.NewSet(true)
		}
		memo[metric] = s
		return s
	}
	return resolve
}

// intersect is the labels both sets surely carry; open when either is.
func intersect(a, b labelflow.Set) labelflow.Set {
	var both []string
	for _, l := range a.Sorted() {
		if b.Has(l) {
			both = append(both, l)
		}
	}
	return labelflow.NewSet(a.Open || b.Open, both...)
}
