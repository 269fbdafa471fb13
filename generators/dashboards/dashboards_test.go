package dashboards

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/cog/plugins"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"go.yaml.in/yaml/v3"

	"github.com/gpuobs/gpuobs/internal/emit"
	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/output"
	"github.com/gpuobs/gpuobs/internal/promql"
	"github.com/gpuobs/gpuobs/internal/testutil"
	"github.com/gpuobs/gpuobs/internal/testutil/plantest"
	"github.com/gpuobs/gpuobs/internal/testutil/testcatalog"
)

// root is the repository root, where the generated output is checked in.
const root = "../.."

// checkedIn reads the checked-in dashboards by level.
func checkedIn(t *testing.T, m *model.Model) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, level := range model.SortedKeys(m.Dashboards) {
		data, err := os.ReadFile(filepath.Join(root, output.Dashboard(level)))
		if err != nil {
			t.Fatal(err)
		}
		out[level] = data
	}
	return out
}

func TestDashboardsUnmarshalStrictlyAndValidate(t *testing.T) {
	plugins.RegisterDefaultPlugins()
	m := testcatalog.Model(t, "")
	for level, data := range checkedIn(t, m) {
		var d dashboard.Dashboard
		if err := sdkError(d.UnmarshalJSONStrict(data)); err != nil {
			t.Errorf("%s: strict unmarshal: %v", level, err)
			continue
		}
		if err := sdkError(d.Validate()); err != nil {
			t.Errorf("%s: %v", level, err)
		}
		if d.Uid == nil || *d.Uid != m.Dashboards[level].UID {
			t.Errorf("%s: uid %v, want the catalog's %s", level, d.Uid, m.Dashboards[level].UID)
		}
		if len(d.Panels) < 5 {
			t.Errorf("%s: %d panels", level, len(d.Panels))
		}
	}
}

// sdkError is err, or nil for the SDK's empty error list (a typed nil inside an error).
func sdkError(err error) error {
	if errs, ok := err.(cog.BuildErrors); ok && len(errs) == 0 {
		return nil
	}
	return err
}

// TestStrictUnmarshalRejectsUnknownFields proves the check above can fail.
func TestStrictUnmarshalRejectsUnknownFields(t *testing.T) {
	plugins.RegisterDefaultPlugins()
	m := testcatalog.Model(t, "")
	data := checkedIn(t, m)["L1"]
	broken := strings.Replace(string(data), `"refresh": "1m"`, `"refresh": "1m", "refreshh": "5m"`, 1)
	var d dashboard.Dashboard
	if err := sdkError(d.UnmarshalJSONStrict([]byte(broken))); err == nil {
		t.Fatal("an unknown field passed the strict unmarshal")
	}
}

// query is one PromQL expression of a dashboard and where it is.
type query struct{ where, expr string }

// queries collects every expression of a dashboard: panel targets, annotations, and the
// metric selectors of label_values() variables.
func queries(t *testing.T, data []byte) []query {
	t.Helper()
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	var out []query
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, c := range v {
				if s, ok := c.(string); ok && k == "expr" {
					out = append(out, query{path, s})
				}
				if s, ok := c.(string); ok && k == "query" && strings.HasPrefix(s, "label_values(") {
					inner := strings.TrimSuffix(strings.TrimPrefix(s, "label_values("), ")")
					out = append(out, query{path + ".query", inner[:strings.LastIndex(inner, ",")]})
				}
				walk(path+"."+k, c)
			}
		case []any:
			for i, c := range v {
				walk(path+"["+strconv.Itoa(i)+"]", c)
			}
		}
	}
	walk("", doc)
	return out
}

// rateInterval stands for $__rate_interval when queries are parsed.
const rateInterval = 4321 * time.Second

var templateVariable = regexp.MustCompile(`\$\{?[A-Za-z_][A-Za-z0-9_]*(:[a-z]+)?\}?`)

// substitute fills Grafana's variables as Grafana would before sending a query.
func substitute(expr string) string {
	expr = strings.ReplaceAll(expr, "$__rate_interval", "4321s")
	return templateVariable.ReplaceAllString(expr, "value")
}

// TestQueriesReadOnlyWhatGpuobsKnows: every query parses once its variables are filled, reads
// only catalog fields and metrics or recording rules gpuobs generates, L1 and L2 read only
// recording rules, and every range over a counter is $__rate_interval.
func TestQueriesReadOnlyWhatGpuobsKnows(t *testing.T) {
	p := plantest.Plan(t, "")
	m := p.Model
	recorded := map[string]bool{"ALERTS": true}
	for _, r := range p.Recorded {
		recorded[r.Name] = true
	}
	counter := func(name string) bool {
		if f, ok := m.Fields[name]; ok {
			return f.Kind == model.KindCounter
		}
		if mt, ok := m.Metrics[name]; ok {
			return mt.Type == "counter"
		}
		for _, suffix := range []string{"_bucket", "_count", "_sum"} {
			if base, ok := strings.CutSuffix(name, suffix); ok && m.Metrics[base].Type == "histogram" {
				return true
			}
		}
		return false
	}
	for level, data := range checkedIn(t, m) {
		qs := queries(t, data)
		if len(qs) < 10 {
			t.Fatalf("%s: only %d queries found", level, len(qs))
		}
		for _, q := range qs {
			expr := substitute(q.expr)
			n, err := promql.Parse(expr)
			if err != nil {
				t.Errorf("%s %s: %q does not parse: %v", level, q.where, expr, err)
				continue
			}
			promql.Walk(n, func(c *promql.Node, _ []*promql.Node) {
				if c.Kind != promql.Selector {
					return
				}
				// A selector of several names ({__name__=~"a|b"}) reads each.
				names := []string{c.Name}
				if c.Name == "" {
					names = nameAlternatives(expr)
				}
				for _, name := range names {
					_, field := m.Fields[name]
					_, metric := m.Metrics[name]
					histogram := counter(name) && !field && !metric
					if !field && !metric && !histogram && !recorded[name] {
						t.Errorf("%s %s: reads %q, which is neither a catalog metric nor a gpuobs recording rule", level, q.where, name)
					}
					if (level == "L1" || level == "L2") && !recorded[name] {
						t.Errorf("%s %s: reads raw series %s; fleet and cluster dashboards read recording rules only", level, q.where, name)
					}
					// A variable lists values from recording rules, or a serving engine's gauges
					// (a series per server), never by scanning the exporter's per-GPU series.
					if strings.HasSuffix(q.where, ".query") && (field || !recorded[name] && !metric) {
						t.Errorf("%s %s: a variable scans raw series %s; variables list values from recording rules", level, q.where, name)
					}
				}
				if c.Range > 0 && counter(c.Name) && c.Range != rateInterval {
					t.Errorf("%s %s: range [%v] over counter %s; use $__rate_interval", level, q.where, c.Range, c.Name)
				}
			})
		}
	}
}

// TestDrillDownLinks: each level links to levels that exist, carrying its variables, and
// every data link opens an existing dashboard.
func TestDrillDownLinks(t *testing.T) {
	m := testcatalog.Model(t, "")
	uids := map[string]bool{}
	for _, d := range m.Dashboards {
		uids[d.UID] = true
	}
	dataLink := regexp.MustCompile(`/d/([a-z0-9-]+)\?`)
	for level, data := range checkedIn(t, m) {
		d := m.Dashboards[level]
		if len(d.Links) == 0 {
			t.Errorf("%s links nowhere", level)
		}
		var doc struct {
			Links []struct {
				Tags        []string `json:"tags"`
				IncludeVars bool     `json:"includeVars"`
			} `json:"links"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		for i, l := range doc.Links {
			if !l.IncludeVars || len(l.Tags) != 2 || l.Tags[0] != Tag || m.Dashboards[l.Tags[1]].UID == "" {
				t.Errorf("%s link %d: %+v does not open a gpuobs level with the variables", level, i, l)
			}
		}
		for _, match := range dataLink.FindAllStringSubmatch(string(data), -1) {
			if !uids[match[1]] {
				t.Errorf("%s: data link to unknown dashboard %s", level, match[1])
			}
		}
	}
}

// nameAlternatives are the metric names a query's {__name__=~"a|b"} selector reads.
func nameAlternatives(expr string) []string {
	m := regexp.MustCompile(`__name__=~"([^"]*)"`).FindStringSubmatch(expr)
	if m == nil {
		return []string{""}
	}
	return strings.Split(m[1], "|")
}

// TestDashboardsFollowTheCatalog renders the dashboards of a catalog with dcgm-exporter
// 4.8.3's host label and another temperature threshold, against golden files: labels and
// thresholds come from the catalog, and the workload's panels read its pod where a scrape with
// honorLabels: false puts it too (go test -update rewrites them).
func TestDashboardsFollowTheCatalog(t *testing.T) {
	files, err := Generate(plantest.Plan(t, "../../internal/catalog/testdata/override.jsonnet"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		testutil.Golden(t, filepath.Join("testdata", filepath.Base(f.Path)+".golden"), f.Content)
	}
	l3 := string(files[2].Content)
	for _, want := range []string{`hostname=\"$node\"`, `exported_namespace`, `"value": 90`} {
		if !strings.Contains(l3+string(files[3].Content), want) {
			t.Errorf("L3/L4 lack %s", want)
		}
	}
}

// TestUnitsFollowTheExporterVersion: dcgm-exporter 4.9 reports clocks in Hz and memory in
// bytes, so the panels show them without conversion.
func TestUnitsFollowTheExporterVersion(t *testing.T) {
	m := testcatalog.Model(t, "../promtooltests/testdata/exporter-4.9.jsonnet")
	d, err := Build(m, "L3")
	if err != nil {
		t.Fatal(err)
	}
	data, err := emit.SortedJSON(d)
	if err != nil {
		t.Fatal(err)
	}
	l3 := string(data)
	for _, want := range []string{`"unit": "bytes"`, `max by (gpu, UUID) (DCGM_FI_DEV_SM_CLOCK{cluster=\"$cluster\", hostname=\"$node\"})"`} {
		if !strings.Contains(l3, want) {
			t.Errorf("4.9 L3 lacks %s", want)
		}
	}
	if strings.Contains(l3, "mbytes") || strings.Contains(l3, "* 1000000") {
		t.Error("4.9 L3 converts units the exporter no longer uses")
	}
}

// TestNVLinkBandwidthIsShownAsTheRateItIs: the exporter declares the NVLink bandwidth a
// counter, but reports the current MiB/s: its panel shows the value, never its rate().
func TestNVLinkBandwidthIsShownAsTheRateItIs(t *testing.T) {
	d, err := Build(testcatalog.Model(t, ""), "L5")
	if err != nil {
		t.Fatal(err)
	}
	data, err := emit.SortedJSON(d)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, q := range queries(t, data) {
		if strings.Contains(q.expr, "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL") {
			found = true
			if strings.Contains(q.expr, "rate(") {
				t.Errorf("%s: %s takes the rate of a rate", q.where, q.expr)
			}
		}
	}
	if !found || !strings.Contains(string(data), `"unit": "MiBs"`) {
		t.Errorf("no NVLink bandwidth panel in MiB/s on L5 (found %v)", found)
	}
}

// TestSecondInstall: a second install in one Grafana organization (another UID prefix) keeps
// its own UIDs, and its links and drill-downs lead to its own dashboards only; editable is the
// catalog's; the sidecar ConfigMaps hold each dashboard exactly as its JSON file, labelled for
// the sidecar.
func TestSecondInstall(t *testing.T) {
	config := filepath.Join(t.TempDir(), "gpuobs.jsonnet")
	catalog := `(import 'gpuobs.libsonnet') { deploy+: { grafana+: { uidPrefix: 'gpu-prod', editable: true, sidecar+: { enabled: true, namespace: 'grafana' } } } }`
	if err := os.WriteFile(config, []byte(catalog), 0o644); err != nil {
		t.Fatal(err)
	}
	p := plantest.Plan(t, config)
	files, err := Generate(p)
	if err != nil {
		t.Fatal(err)
	}
	sidecar, err := Sidecar(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(sidecar) != len(files) {
		t.Fatalf("%d ConfigMaps for %d dashboards", len(sidecar), len(files))
	}
	for i, f := range files {
		var d struct {
			UID      string   `json:"uid"`
			Editable bool     `json:"editable"`
			Tags     []string `json:"tags"`
			Links    []struct {
				Tags []string `json:"tags"`
			} `json:"links"`
		}
		if err := json.Unmarshal(f.Content, &d); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(d.UID, "gpu-prod-") || !d.Editable || !slices.Contains(d.Tags, "gpu-prod") {
			t.Errorf("%s: uid %s, editable %v, tags %v", f.Path, d.UID, d.Editable, d.Tags)
		}
		for _, l := range d.Links {
			if !slices.Contains(l.Tags, "gpu-prod") || slices.Contains(l.Tags, Tag) {
				t.Errorf("%s: a link by tags %v reaches other installs' dashboards", f.Path, l.Tags)
			}
		}
		if strings.Contains(string(f.Content), "/d/gpuobs-") {
			t.Errorf("%s drills down into the default install's UIDs", f.Path)
		}
		var cm struct {
			Metadata struct {
				Name      string            `yaml:"name"`
				Namespace string            `yaml:"namespace"`
				Labels    map[string]string `yaml:"labels"`
			} `yaml:"metadata"`
			Data map[string]string `yaml:"data"`
		}
		if err := yaml.Unmarshal(sidecar[i].Content, &cm); err != nil {
			t.Fatal(err)
		}
		key := strings.TrimPrefix(f.Path, output.DashboardsDir+"/")
		if cm.Data[key] != string(f.Content) || cm.Metadata.Namespace != "grafana" || cm.Metadata.Labels["grafana_dashboard"] != "1" || !strings.HasPrefix(cm.Metadata.Name, "gpu-prod-") {
			t.Errorf("%s: ConfigMap %s/%s labels %v does not hold %s as it is", sidecar[i].Path, cm.Metadata.Namespace, cm.Metadata.Name, cm.Metadata.Labels, key)
		}
	}
	// The embedded catalog writes no ConfigMaps and keeps its dashboards read-only.
	if none, err := Sidecar(plantest.Plan(t, "")); err != nil || len(none) != 0 {
		t.Errorf("default catalog: %d ConfigMaps (%v)", len(none), err)
	}
}

// TestFieldPanelsShowTheirUnit: every field's L5 panel shows the field in the Grafana unit its
// catalog unit names, converted by that unit's scale only when the scale is not 1: a gauge as
// it is, a counter as its rate (a gauge count of events is not a rate per minute). On the
// embedded catalog, the adopter's (labels renamed) and the 4.9 profile (other units).
func TestFieldPanelsShowTheirUnit(t *testing.T) {
	for _, config := range []string{"", "../../internal/testutil/plantest/testdata/adopter.jsonnet", "../promtooltests/testdata/exporter-4.9.jsonnet"} {
		m := testcatalog.Model(t, config)
		seen := 0
		for _, row := range m.Dashboards["L5"].Rows {
			for _, p := range row.Panels {
				name, _, _ := strings.Cut(p.Description, ",")
				name = strings.TrimSuffix(name, ".")
				f, ok := m.Fields[name]
				if !ok || len(p.Queries) != 1 {
					continue
				}
				seen++
				shown := m.Units[f.Unit].Of(f)
				scaled := strings.Contains(p.Queries[0].Expr, " * "+strconv.FormatFloat(shown.Scale, 'f', -1, 64))
				if p.Unit != shown.Grafana || scaled != (shown.Scale != 1) {
					t.Errorf("%s: panel %q for %s (%s %s) shows unit %s, %s; want unit %s at scale %g", config, p.Title, name, f.Kind, f.Unit, p.Unit, p.Queries[0].Expr, shown.Grafana, shown.Scale)
				}
			}
		}
		if seen < 10 {
			t.Errorf("%s: only %d field panels found on L5", config, seen)
		}
	}
}

// TestDescriptionsFollowTheSections: the L4 dashboard mentions its inference metrics only
// where the inference section is on (a training fleet's catalog switches it off, and the
// inference row goes with it).
func TestDescriptionsFollowTheSections(t *testing.T) {
	for config, serves := range map[string]bool{
		"": true,
		"../../internal/testutil/plantest/testdata/training.jsonnet": false,
	} {
		files, err := Generate(plantest.Plan(t, config))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if f.Path != output.Dashboard("L4") {
				continue
			}
			if got := strings.Contains(string(f.Content), "vLLM"); got != serves {
				t.Errorf("catalog %q (inference on: %v): L4 mentions vLLM: %v", config, serves, got)
			}
		}
	}
}
