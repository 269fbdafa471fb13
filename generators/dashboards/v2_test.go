package dashboards

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/grafana/grafana-foundation-sdk/go/cog/plugins"
	"github.com/grafana/grafana-foundation-sdk/go/dashboardv2"

	"github.com/gpuobs/gpuobs/internal/emit"
	"github.com/gpuobs/gpuobs/internal/lint"
	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/output"
	"github.com/gpuobs/gpuobs/internal/plan"
	"github.com/gpuobs/gpuobs/internal/source"
	"github.com/gpuobs/gpuobs/internal/testutil/plantest"
)

// v2Configs are the catalogs the v2 tests run on: the embedded one, the adopter's (every label
// and team renamed, sections off) and dcgm-exporter 4.9's units.
var v2Configs = []string{"", "../../internal/testutil/plantest/testdata/adopter.jsonnet", "../promtooltests/testdata/exporter-4.9.jsonnet"}

// bothSchemas is a plan of config that writes the classic and the v2 dashboards.
func bothSchemas(t *testing.T, config string) *plan.Plan {
	t.Helper()
	p := plantest.Plan(t, config)
	p.Model.Deploy.Grafana.Schemas = []string{model.SchemaClassic, model.SchemaV2}
	return p
}

// bothOutputs are the classic and the v2 dashboard files of config, level by level.
func bothOutputs(t *testing.T, config string) (p *plan.Plan, classic, v2 []emit.File) {
	t.Helper()
	p = bothSchemas(t, config)
	classic, v2 = generateBoth(t, p)
	return p, classic, v2
}

// generateBoth runs both dashboard generators on a plan: each writes its schema's files, if
// the plan's catalog asks for that schema.
func generateBoth(t *testing.T, p *plan.Plan) (classic, v2 []emit.File) {
	t.Helper()
	classic, err := Generate(p)
	if err != nil {
		t.Fatal(err)
	}
	if v2, err = GenerateV2(p); err != nil {
		t.Fatal(err)
	}
	return classic, v2
}

// seen is what a dashboard shows, read from its JSON in either schema: what must not differ
// between them.
type seen struct {
	Title, Description string
	Tags               []string
	Editable           bool
	Variables          []string
	Links              []string
	Annotations        []string
	Rows               []seenRow
}

type seenRow struct {
	Title  string
	Panels []seenPanel
}

type seenPanel struct {
	Title, Description, Type, Unit string
	Min, Max                       any
	Width, Height                  float64
	Thresholds, Links, Queries     []string
	Stacked                        bool
}

// at walks a decoded JSON document by keys (for objects) and indices (for arrays).
func at(v any, path ...any) any {
	for _, k := range path {
		switch k := k.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

func list(v any) []any { a, _ := v.([]any); return a }

func str(v any) string { s, _ := v.(string); return s }

// fieldDefaults reads what a panel's field config shows: unit, range, thresholds, links.
func fieldDefaults(p *seenPanel, defaults any) {
	p.Unit, p.Min, p.Max = str(at(defaults, "unit")), at(defaults, "min"), at(defaults, "max")
	for _, s := range list(at(defaults, "thresholds", "steps")) {
		p.Thresholds = append(p.Thresholds, fmt.Sprintf("%v %v", at(s, "value"), at(s, "color")))
	}
	for _, l := range list(at(defaults, "links")) {
		p.Links = append(p.Links, str(at(l, "title"))+" "+str(at(l, "url")))
	}
	p.Stacked = str(at(defaults, "custom", "stacking", "mode")) == "normal"
}

// shownQuery is one target as the panel shows it.
func shownQuery(refID string, spec any) string {
	return fmt.Sprintf("%s %q legend=%q instant=%v format=%v", refID, str(at(spec, "expr")), str(at(spec, "legendFormat")), at(spec, "instant"), at(spec, "format"))
}

func readClassic(t *testing.T, data []byte) seen {
	t.Helper()
	var d any
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatal(err)
	}
	s := seen{Title: str(at(d, "title")), Description: str(at(d, "description")), Editable: at(d, "editable") == true}
	for _, tag := range list(at(d, "tags")) {
		s.Tags = append(s.Tags, str(tag))
	}
	for _, v := range list(at(d, "templating", "list")) {
		s.Variables = append(s.Variables, fmt.Sprintf("%s %s %s %q multi=%v all=%v", at(v, "type"), at(v, "name"), at(v, "label"), at(v, "query"), at(v, "multi"), at(v, "includeAll")))
	}
	for _, l := range list(at(d, "links")) {
		s.Links = append(s.Links, fmt.Sprintf("%s %v vars=%v time=%v", at(l, "title"), at(l, "tags"), at(l, "includeVars"), at(l, "keepTime")))
	}
	for _, a := range list(at(d, "annotations", "list")) {
		s.Annotations = append(s.Annotations, fmt.Sprintf("%s %q %q %s", at(a, "name"), at(a, "expr"), at(a, "titleFormat"), at(a, "iconColor")))
	}
	for _, p := range list(at(d, "panels")) {
		if str(at(p, "type")) == "row" {
			s.Rows = append(s.Rows, seenRow{Title: str(at(p, "title"))})
			continue
		}
		sp := seenPanel{Title: str(at(p, "title")), Description: str(at(p, "description")), Type: str(at(p, "type"))}
		sp.Width, _ = at(p, "gridPos", "w").(float64)
		sp.Height, _ = at(p, "gridPos", "h").(float64)
		fieldDefaults(&sp, at(p, "fieldConfig", "defaults"))
		for _, target := range list(at(p, "targets")) {
			sp.Queries = append(sp.Queries, shownQuery(str(at(target, "refId")), target))
		}
		row := &s.Rows[len(s.Rows)-1]
		row.Panels = append(row.Panels, sp)
	}
	return s
}

func readV2(t *testing.T, data []byte) seen {
	t.Helper()
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	d := at(doc, "spec")
	s := seen{Title: str(at(d, "title")), Description: str(at(d, "description")), Editable: at(d, "editable") == true}
	for _, tag := range list(at(d, "tags")) {
		s.Tags = append(s.Tags, str(tag))
	}
	kinds := map[string]string{"DatasourceVariable": "datasource", "QueryVariable": "query"}
	for _, v := range list(at(d, "variables")) {
		vs := at(v, "spec")
		var q any = str(at(vs, "pluginId"))
		if str(at(v, "kind")) == "QueryVariable" {
			q = at(vs, "query", "spec", "__legacyStringValue")
		}
		s.Variables = append(s.Variables, fmt.Sprintf("%s %s %s %q multi=%v all=%v", kinds[str(at(v, "kind"))], at(vs, "name"), at(vs, "label"), q, at(vs, "multi"), at(vs, "includeAll")))
	}
	for _, l := range list(at(d, "links")) {
		s.Links = append(s.Links, fmt.Sprintf("%s %v vars=%v time=%v", at(l, "title"), at(l, "tags"), at(l, "includeVars"), at(l, "keepTime")))
	}
	for _, a := range list(at(d, "annotations")) {
		as := at(a, "spec")
		s.Annotations = append(s.Annotations, fmt.Sprintf("%s %q %q %s", at(as, "name"), at(as, "query", "spec", "expr"), at(as, "legacyOptions", "titleFormat"), at(as, "iconColor")))
	}
	for _, r := range list(at(d, "layout", "spec", "rows")) {
		row := seenRow{Title: str(at(r, "spec", "title"))}
		for _, item := range list(at(r, "spec", "layout", "spec", "items")) {
			p := at(d, "elements", str(at(item, "spec", "element", "name")), "spec")
			sp := seenPanel{Title: str(at(p, "title")), Description: str(at(p, "description")), Type: str(at(p, "vizConfig", "group"))}
			sp.Width, _ = at(item, "spec", "width").(float64)
			sp.Height, _ = at(item, "spec", "height").(float64)
			fieldDefaults(&sp, at(p, "vizConfig", "spec", "fieldConfig", "defaults"))
			for _, q := range list(at(p, "data", "spec", "queries")) {
				sp.Queries = append(sp.Queries, shownQuery(str(at(q, "spec", "refId")), at(q, "spec", "query", "spec")))
			}
			row.Panels = append(row.Panels, sp)
		}
		s.Rows = append(s.Rows, row)
	}
	return s
}

// TestClassicAndV2ShowTheSame: every dashboard's v2 resource carries what its classic JSON
// does: title, description (with the header), tags, variables, links, annotations, and per row
// the same panels in the same order with the same type, unit, range, thresholds, drill links,
// size and queries (expression, legend, instant, format). Read from the two files' JSON, each
// by its own schema's paths.
func TestClassicAndV2ShowTheSame(t *testing.T) {
	for _, config := range v2Configs {
		p, classic, v2 := bothOutputs(t, config)
		if len(v2) != len(classic) || len(v2) != len(p.Model.Dashboards) {
			t.Fatalf("%s: %d classic and %d v2 dashboards for %d levels", config, len(classic), len(v2), len(p.Model.Dashboards))
		}
		for i := range classic {
			a, b := readClassic(t, classic[i].Content), readV2(t, v2[i].Content)
			if len(a.Rows) == 0 || len(a.Rows[0].Panels) == 0 || len(a.Rows[0].Panels[0].Queries) == 0 {
				t.Fatalf("%s: %s read as %+v: the reader misses the schema", config, classic[i].Path, a)
			}
			if !reflect.DeepEqual(a, b) {
				ja, _ := json.MarshalIndent(a, "", " ")
				jb, _ := json.MarshalIndent(b, "", " ")
				t.Errorf("%s: %s and %s differ:\n%s", config, classic[i].Path, v2[i].Path, firstDifference(string(ja), string(jb)))
			}
		}
	}
}

// firstDifference shows the first line two texts differ on, with the lines before it.
func firstDifference(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return strings.Join(la[max(0, i-5):i], "\n") + "\nclassic: " + la[i] + "\nv2:      " + lb[i]
		}
	}
	return fmt.Sprintf("one is longer (%d and %d lines)", len(la), len(lb))
}

// TestV2UnmarshalsStrictly: each v2 resource's spec reads back through the SDK's strict v2
// types and validates; its name is the dashboard's UID.
func TestV2UnmarshalsStrictly(t *testing.T) {
	plugins.RegisterDefaultPlugins()
	for _, config := range v2Configs {
		p := bothSchemas(t, config)
		files, err := GenerateV2(p)
		if err != nil {
			t.Fatal(err)
		}
		for i, level := range model.SortedKeys(p.Model.Dashboards) {
			var doc struct {
				APIVersion string `json:"apiVersion"`
				Kind       string `json:"kind"`
				Metadata   struct{ Name string }
				Spec       json.RawMessage `json:"spec"`
			}
			if err := json.Unmarshal(files[i].Content, &doc); err != nil {
				t.Fatal(err)
			}
			var d dashboardv2.Dashboard
			if err := sdkError(d.UnmarshalJSONStrict(doc.Spec)); err != nil {
				t.Errorf("%s: %s: strict unmarshal: %v", config, files[i].Path, err)
				continue
			}
			if err := sdkError(d.Validate()); err != nil {
				t.Errorf("%s: %s: %v", config, files[i].Path, err)
			}
			if doc.APIVersion != "dashboard.grafana.app/v2" || doc.Kind != "Dashboard" || doc.Metadata.Name != p.Model.Dashboards[level].UID {
				t.Errorf("%s: %s is %s %s named %q", config, files[i].Path, doc.APIVersion, doc.Kind, doc.Metadata.Name)
			}
			if !output.HasHeader(files[i].Path, files[i].Content) {
				t.Errorf("%s: %s has no header gpuobs can recognise", config, files[i].Path)
			}
		}
	}
}

// TestLintReadsV2AsClassic: lint reads the same queries from both schemas and reports the same
// problems: the generated dashboards with each one's first query replaced, in both files alike,
// by one that sums a field dcgm-exporter repeats on every MIG instance and reads an unknown
// metric.
func TestLintReadsV2AsClassic(t *testing.T) {
	for _, config := range v2Configs {
		p, classic, v2 := bothOutputs(t, config)
		// The first query of each level's first panel, as its JSON spells it.
		var seeds []string
		for _, level := range model.SortedKeys(p.Model.Dashboards) {
			var quoted strings.Builder
			enc := json.NewEncoder(&quoted)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(p.Model.Dashboards[level].Rows[0].Panels[0].Queries[0].Expr); err != nil {
				t.Fatal(err)
			}
			seeds = append(seeds, strings.Trim(strings.TrimSpace(quoted.String()), `"`))
		}
		findings := func(files []emit.File) (queries int, problems []string) {
			dir := t.TempDir()
			var paths []string
			for i, f := range files {
				path, seed := filepath.Join(dir, filepath.Base(f.Path)), seeds[i]
				if !strings.Contains(string(f.Content), seed) {
					t.Fatalf("%s: %s does not hold %s", config, f.Path, seed)
				}
				content := strings.Replace(string(f.Content), seed, `sum(DCGM_FI_DEV_POWER_USAGE) + dcgm_power_watts_typo`, 1)
				if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
				paths = append(paths, path)
			}
			read := source.ReadPaths(paths)
			for _, f := range read {
				if f.Dashboard != nil {
					queries += len(f.Dashboard.Queries)
				}
			}
			for _, pr := range lint.Run(lint.NewInputs(p, read), lint.Checks()) {
				problems = append(problems, fmt.Sprintf("%s %s %s", filepath.Base(pr.Path), pr.Check, pr.Message))
			}
			return queries, problems
		}
		qc, pc := findings(classic)
		qv, pv := findings(v2)
		if qc == 0 || qc != qv {
			t.Errorf("%s: lint read %d queries from the classic files and %d from the v2 ones", config, qc, qv)
		}
		if len(pc) < 2 || !reflect.DeepEqual(pc, pv) {
			t.Errorf("%s: classic findings\n%s\nv2 findings\n%s", config, strings.Join(pc, "\n"), strings.Join(pv, "\n"))
		}
	}
}

// TestSchemasChooseTheFiles: the embedded catalog writes classic dashboards only; v2 alone
// writes no classic file.
func TestSchemasChooseTheFiles(t *testing.T) {
	for _, config := range v2Configs[:2] {
		p := plantest.Plan(t, config)
		classic, v2 := generateBoth(t, p)
		if len(classic) != len(p.Model.Dashboards) || len(v2) != 0 {
			t.Errorf("%s: by default %d classic and %d v2 files", config, len(classic), len(v2))
		}
		p.Model.Deploy.Grafana.Schemas = []string{model.SchemaV2}
		classic, v2 = generateBoth(t, p)
		if len(classic) != 0 || len(v2) != len(p.Model.Dashboards) {
			t.Errorf("%s: with v2 only %d classic and %d v2 files", config, len(classic), len(v2))
		}
	}
}
