package catalog_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gpuobs/gpuobs/internal/catalog"
	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/promql"
	"github.com/gpuobs/gpuobs/internal/testutil"
	"github.com/gpuobs/gpuobs/internal/testutil/testcatalog"
)

// load loads a catalog file (the embedded catalog for "") as gpuobs does, its evaluation kept
// between test runs where the catalog evaluates (its problems are found when it is decoded).
func load(config string) (*model.Model, error) {
	return catalog.Load(catalog.Options{ConfigPath: config, CacheDir: testcatalog.CacheDir()})
}

func TestEmbeddedCatalogLoads(t *testing.T) {
	m, err := load("")
	if err != nil {
		t.Fatal(err)
	}
	if m.Labels.Host != "Hostname" || m.Labels.Namespace != "namespace" {
		t.Errorf("default label profile: host %q namespace %q", m.Labels.Host, m.Labels.Namespace)
	}
	// The fields the issue names must all be in the catalog, with their DCGM ids.
	for name, id := range map[string]int{
		"DCGM_FI_DEV_ECC_SBE_VOL_TOTAL": 310, "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL": 311,
		"DCGM_FI_DEV_ECC_SBE_AGG_TOTAL": 312, "DCGM_FI_DEV_ECC_DBE_AGG_TOTAL": 313,
		"DCGM_FI_DEV_RETIRED_SBE": 390, "DCGM_FI_DEV_RETIRED_DBE": 391, "DCGM_FI_DEV_RETIRED_PENDING": 392,
		"DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS": 393, "DCGM_FI_DEV_ROW_REMAP_FAILURE": 395,
		"DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL": 409, "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL": 419,
		"DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL": 429, "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL": 439,
		"DCGM_FI_DEV_POWER_VIOLATION": 240, "DCGM_FI_DEV_THERMAL_VIOLATION": 241,
		"DCGM_FI_DEV_CLOCK_THROTTLE_REASONS": 112, "DCGM_FI_DEV_CLOCKS_EVENT_REASONS": 112,
		"DCGM_FI_DEV_XID_ERRORS": 230, "DCGM_FI_PROF_SM_ACTIVE": 1002, "DCGM_FI_PROF_PCIE_TX_BYTES": 1009,
	} {
		f, ok := m.Fields[name]
		if !ok || f.ID != id {
			t.Errorf("field %s: in catalog %v, id %d, want %d", name, ok, f.ID, id)
		}
	}
	// Types that lie are modelled with their real semantics.
	for name, kind := range map[string]model.Kind{
		"DCGM_FI_DEV_XID_ERRORS":             model.KindLastEvent,
		"DCGM_FI_DEV_RETIRED_PENDING":        model.KindFlag,
		"DCGM_FI_DEV_CLOCK_THROTTLE_REASONS": model.KindBitmask,
	} {
		if got := m.Fields[name].Kind; got != kind {
			t.Errorf("%s kind %q, want %q", name, got, kind)
		}
	}
	if m.Fields["DCGM_FI_DEV_RETIRED_PENDING"].Type != "counter" {
		t.Error("DCGM_FI_DEV_RETIRED_PENDING must keep the type the exporter declares (counter)")
	}
	// The exporter's default counter set: ECC is off by default, the profiling basics are on.
	if m.Fields["DCGM_FI_DEV_ECC_DBE_VOL_TOTAL"].Default || !m.Fields["DCGM_FI_PROF_GR_ENGINE_ACTIVE"].Default {
		t.Error("default counter set flags are wrong")
	}
	defaults := 0
	for _, f := range m.Fields {
		if f.Default {
			defaults++
		}
	}
	if defaults != 25 {
		t.Errorf("%d fields in the default counter set, want dcgm-exporter's 25", defaults)
	}
}

func TestUserOverride(t *testing.T) {
	m, err := load(filepath.Join("testdata", "override.jsonnet"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Labels.Host != "hostname" {
		t.Errorf("host label %q, want the override", m.Labels.Host)
	}
	if !slices.Equal(m.Exporter.HealthFields, []string{"DCGM_FI_DEV_MEM_CLOCK"}) || !strings.Contains(m.Alerts["GPUSeriesMissing"].Expr, "DCGM_FI_DEV_MEM_CLOCK") {
		t.Errorf("the health fields did not reach the alerts: %v", m.Exporter.HealthFields)
	}
	a := m.Alerts["GPUTemperatureHigh"]
	if a.For != "20m" || !strings.Contains(a.Expr, "> 90") || !strings.Contains(a.Expr, "hostname") {
		t.Errorf("override did not reach the alert: for %q expr %q", a.For, a.Expr)
	}
	if !strings.Contains(a.Description, "$labels.hostname") {
		t.Errorf("description does not follow the host label: %q", a.Description)
	}
	// A scenario reads the final alert: the one named after the wait says the catalog's.
	var names []string
	for _, c := range m.Alerts["GPUHotterThanFleetPeers"].Tests {
		names = append(names, c.Name)
	}
	if !slices.Contains(names, "hotter for less than 25m") {
		t.Errorf("the scenarios of GPUHotterThanFleetPeers do not follow its overridden for (25m): %q", names)
	}
	if got := m.RunbookURL("GPUTemperatureHigh"); got != "https://runbooks.example.com/gpu/GPUTemperatureHigh.md" {
		t.Errorf("relative import of a user file did not apply: %s", got)
	}
}

// TestBadInput checks the error output for each kind of bad catalog against golden files.
func TestBadInput(t *testing.T) {
	for _, name := range []string{"syntax-error", "runtime-error", "schema-errors", "unknown-top-level", "missing-import", "breaks-later", "mistyped-inputs", "mistyped-values", "bad-topology", "bad-sections", "removed-entry", "bad-names", "bad-units", "bad-features", "bad-deploy", "bad-xid", "bad-xid-class", "bad-recovery", "bad-kubernetes", "bad-allocation", "bad-platform", "bad-urls", "schema-and-more", "bad-panel-thresholds", "bad-fanout", "retired-settings", "older-prometheus", "bad-prometheus-version", "bad-slurm", "bad-section-intervals", "untestable-objective"} {
		t.Run(name, func(t *testing.T) {
			_, err := load(filepath.Join("testdata", name+".jsonnet"))
			var problems catalog.Problems
			if !errors.As(err, &problems) {
				t.Fatalf("want catalog.Problems, got %v", err)
			}
			// Frames inside the embedded catalog move whenever it is edited; the user's own
			// file:line:col is what the golden files pin.
			var lines []string
			for _, line := range strings.Split(err.Error(), "\n") {
				if !strings.HasPrefix(strings.TrimSpace(line), "embedded:libsonnet/") {
					lines = append(lines, line)
				}
			}
			testutil.Golden(t, filepath.Join("testdata", name+".golden"), []byte(strings.Join(lines, "\n")+"\n"))
		})
	}
}

func TestSchemaErrorsAreAllReported(t *testing.T) {
	_, err := load(filepath.Join("testdata", "schema-errors.jsonnet"))
	var problems catalog.Problems
	if !errors.As(err, &problems) {
		t.Fatal(err)
	}
	want := []string{
		`alerts.GPUEccDoubleBit.for: invalid duration "5x"`,
		`alerts.GPUEccDoubleBit.severity: is "page"`,
		`alerts.GPUTemperatureHigh: unknown field "forr"`,
		`alerts.GPUXidFatal.expr: invalid PromQL: 1:`,
		`fields.DCGM_FI_DEV_GPU_TEMP.rollup: rate needs a counter`,
		`throttleReasons.idle.bits: 0x1 means GPU idle, not throttling`,
	}
	text := err.Error()
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("missing problem %q in:\n%s", w, text)
		}
	}
}

func TestMissingConfigFile(t *testing.T) {
	_, err := load(filepath.Join("testdata", "nope.jsonnet"))
	if err == nil || !strings.Contains(err.Error(), "nope.jsonnet") {
		t.Fatalf("want an error naming the file, got %v", err)
	}
}

// FuzzDecode feeds the strict decoder arbitrary JSON: it must return a model or problems,
// never panic. Its seeds are small: the embedded catalog with every section cut to its first
// entry (a few KB instead of 600), and hand-written shapes.
func FuzzDecode(f *testing.F) {
	out, err := catalog.Evaluate(catalog.Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(firstEntries(f, []byte(out)))
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"alerts": {"X": {"tests": [{"fires": true}]}}}`))
	f.Add([]byte(`{"fields": {"DCGM_FI_X": {"id": "1"}}, "apiVersion": 3}`))
	f.Add([]byte(`[1, 2]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := catalog.Decode(data)
		if (err == nil) == (m == nil) {
			t.Fatalf("want exactly one of a model and an error, got %v and %v", m != nil, err)
		}
		if err == nil && !json.Valid(data) {
			t.Fatal("invalid JSON decoded without an error")
		}
	})
}

// firstEntries cuts every object of a catalog, at any depth, to its first key.
func firstEntries(t testing.TB, catalog []byte) []byte {
	var v any
	if err := json.Unmarshal(catalog, &v); err != nil {
		t.Fatal(err)
	}
	var cut func(v any, depth int) any
	cut = func(v any, depth int) any {
		switch x := v.(type) {
		case map[string]any:
			out := map[string]any{}
			for i, k := range model.SortedKeys(x) {
				if depth > 0 && i > 0 {
					break
				}
				out[k] = cut(x[k], depth+1)
			}
			return out
		case []any:
			if len(x) > 1 {
				x = x[:1]
			}
			for i := range x {
				x[i] = cut(x[i], depth+1)
			}
			return x
		}
		return v
	}
	out, err := json.Marshal(cut(v, 0))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestFieldNamesRenameTheWholeCatalog: exporter.fieldNames renames a field everywhere.
func TestFieldNamesRenameTheWholeCatalog(t *testing.T) {
	m, err := load("../../generators/promtooltests/testdata/exporter-renamed.jsonnet")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := m.Fields["DCGM_FI_DEV_GPU_TEMPERATURE"]; !ok {
		t.Error("the renamed field is missing")
	}
	if _, ok := m.Fields["DCGM_FI_DEV_GPU_TEMP"]; ok {
		t.Error("the old name survived")
	}
	if m.Exporter.HealthFields[0] != "DCGM_FI_DEV_GPU_TEMPERATURE" || !strings.Contains(m.Alerts["GPUTemperatureHigh"].Expr, "DCGM_FI_DEV_GPU_TEMPERATURE") {
		t.Errorf("health field %s, alert %s", m.Exporter.HealthFields[0], m.Alerts["GPUTemperatureHigh"].Expr)
	}
	// The alert reads the per-GPU record, named after the catalog's field; its scenarios feed
	// the series the exporter really exports.
	if got := m.Alerts["GPUEccDoubleBit"].Tests[0].Series[0].Metric; got != "DCGM_FI_DEV_ECC_DBE_VOLATILE_TOTAL" {
		t.Errorf("GPUEccDoubleBit's scenario feeds %s", got)
	}
}

// TestUpstreamRunbookBaseURL: the constant the CLI warns about is the embedded catalog's.
func TestUpstreamRunbookBaseURL(t *testing.T) {
	m, err := load("")
	if err != nil {
		t.Fatal(err)
	}
	if m.Runbooks.BaseURL != catalog.UpstreamRunbookBaseURL {
		t.Errorf("embedded runbooks.baseURL %q, catalog.UpstreamRunbookBaseURL %q", m.Runbooks.BaseURL, catalog.UpstreamRunbookBaseURL)
	}
}

// TestSectionsSwitchedOff: a training fleet switches every section off; nothing of them is
// left (alerts, records, SLOs with what they expand to, metrics, retention tiers), nothing
// left reads what went (dashboard panels, variables, annotations, runbook queries), and no
// scenario expects a removed alert to fire. The core stays.
func TestSectionsSwitchedOff(t *testing.T) {
	all, err := load("")
	if err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(t.TempDir(), "gpuobs.jsonnet")
	// A core alert's scenario that also expects an inference alert: the expectation goes with it.
	off := `(import 'gpuobs.libsonnet') {
  enabled+: { inference: false, release: false, cost: false, cohorts: false, retention: false, scheduling: false },
  alerts+: { GPUTemperatureHigh+: { tests: [c { alsoFires+: [{ alert: 'GPUInferenceQueueGrowing', value: 1 }] } for c in super.tests] } },
}`
	if err := os.WriteFile(config, []byte(off), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := load(config)
	if err != nil {
		t.Fatal(err)
	}
	// The scheduler's own section (kubernetes) follows the scheduler, not a switch: it stays.
	switched := func(section string) bool { return section != "" && section != "kubernetes" }
	gone := map[string]bool{}
	for key, r := range all.Records {
		if switched(r.Section) || switched(all.SLOs[r.Labels["slo"]].Section) {
			gone[key] = true
			if _, ok := m.Records[key]; ok {
				t.Errorf("record %s of section %s is left", key, r.Section)
			}
		}
	}
	for name, mt := range all.Metrics {
		if switched(mt.Section) {
			gone[name] = true
		}
	}
	removed := 0
	for name, a := range all.Alerts {
		_, left := m.Alerts[name]
		switch {
		case switched(a.Section) || switched(all.SLOs[a.Labels["slo"]].Section):
			removed++
			if left {
				t.Errorf("alert %s of section %s is left", name, a.Section)
			}
		case !left:
			t.Errorf("core alert %s is gone", name)
		}
	}
	if removed < 19 || len(gone) < 40 {
		t.Fatalf("only %d alerts and %d records and metrics are in sections: the test reads nothing", removed, len(gone))
	}
	for name, s := range m.SLOs {
		if s.Section != "" {
			t.Errorf("SLO %s of section %s is left", name, s.Section)
		}
	}
	if _, ok := m.SLOs["GPUAvailability"]; !ok {
		t.Error("the core SLO GPUAvailability is gone")
	}
	if len(m.Recording.Retention.Intervals) != 0 {
		t.Errorf("retention tiers left: %v", m.Recording.Retention.Intervals)
	}
	readsGoneName := func(where, expr string) {
		names, err := promql.MetricNames(promql.FillGrafanaVariables(expr))
		if err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		for _, n := range names {
			for _, base := range []string{n, strings.TrimSuffix(n, "_bucket"), strings.TrimSuffix(n, "_count"), strings.TrimSuffix(n, "_sum")} {
				if gone[base] && m.Records[base].Expr == "" {
					t.Errorf("%s reads %s, which went", where, base)
				}
			}
		}
	}
	for name, a := range m.Alerts {
		readsGoneName("alerts."+name, a.Expr)
		for _, q := range a.Runbook.Queries {
			readsGoneName("alerts."+name+".runbook", q.Expr)
		}
		for _, c := range a.Tests {
			for _, f := range c.AlsoFires {
				if _, ok := m.Alerts[f.Alert]; !ok {
					t.Errorf("alerts.%s case %q expects removed %s to fire", name, c.Name, f.Alert)
				}
			}
		}
	}
	panels := 0
	for name, d := range m.Dashboards {
		for _, r := range d.Rows {
			for _, p := range r.Panels {
				panels++
				for _, q := range p.Queries {
					readsGoneName("dashboards."+name+" panel "+p.Title, q.Expr)
				}
			}
		}
	}
	if panels == 0 {
		t.Fatal("no panels left")
	}
}

// TestFeaturesTheServersRun: an alert using Prometheus 3's experimental PromQL loads when
// prometheus.enableFeatures lists its flag (and is refused without it: bad-features).
func TestFeaturesTheServersRun(t *testing.T) {
	config := filepath.Join(t.TempDir(), "gpuobs.jsonnet")
	text := "(import 'gpuobs.libsonnet') {\n  prometheus+: { enableFeatures: ['promql-experimental-functions'] },\n  alerts+: { GPUTemperatureHigh+: { expr: 'limitk by (cluster) (3, DCGM_FI_DEV_GPU_TEMP) > 85' } },\n}\n"
	if err := os.WriteFile(config, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := load(config); err != nil {
		t.Errorf("with the flag listed: %v", err)
	}
}

// TestANewerTargetTakesWhatItAdded: the rules older-prometheus.jsonnet has refused on 3.5 load
// on a target that has what they use (3.16), and on 3.13 only the flag first_over_time still
// needs there is asked for.
func TestANewerTargetTakesWhatItAdded(t *testing.T) {
	older, err := os.ReadFile(filepath.Join("testdata", "older-prometheus.jsonnet"))
	if err != nil {
		t.Fatal(err)
	}
	for version, want := range map[string]string{"3.16": "", "3.13": "alerts.GPUTemperatureHigh.expr: function first_over_time needs --enable-feature=promql-experimental-functions on Prometheus 3.13"} {
		dir := t.TempDir()
		text := strings.Replace(string(older), "version: '3.5'", "version: '"+version+"'", 1)
		if err := os.WriteFile(filepath.Join(dir, "gpuobs.jsonnet"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := load(filepath.Join(dir, "gpuobs.jsonnet"))
		var problems catalog.Problems
		if !errors.As(err, &problems) {
			t.Fatalf("%s: want catalog.Problems (the untested record), got %v", version, err)
		}
		for _, p := range problems {
			msg := p.Path + ": " + p.Message
			if strings.Contains(msg, "Prometheus 3.") && (want == "" || !strings.HasPrefix(msg, want)) {
				t.Errorf("on %s: %s", version, msg)
			}
		}
		if want != "" && !strings.Contains(err.Error(), want) {
			t.Errorf("on %s: no %q in %v", version, want, err)
		}
	}
}

// TestServerCountersAsTheirWritersWriteThem: the request counters the catalog declares for a
// serving engine carry, beyond the scrape target's labels, only labels the engine writes,
// read here from texts in the shape each server exposes (vLLM's API server counts with
// prometheus-fastapi-instrumentator's default labels: handler, method, status, no model; its
// engine counts finished requests by model, engine and finished_reason). A declared label
// the server does not write is a per-model rule that sums over nothing.
func TestServerCountersAsTheirWritersWriteThem(t *testing.T) {
	m, err := load("")
	if err != nil {
		t.Fatal(err)
	}
	scraped := map[string]string{
		"http_requests_total": `# TYPE http_requests_total counter
http_requests_total{handler="/v1/chat/completions",method="POST",status="2xx"} 12.0
`,
		// vllm/v1/metrics/loggers.py: every finished_reason's series from start.
		"vllm:request_success_total": `# TYPE vllm:request_success_total counter
vllm:request_success_total{engine="0",finished_reason="stop",model_name="llama-3-8b"} 12.0
vllm:request_success_total{engine="0",finished_reason="error",model_name="llama-3-8b"} 0.0
`,
	}
	// The scrape target's labels and the deployment's track, which Prometheus adds.
	added := map[string]bool{m.Labels.Cluster: true, "job": true, "instance": true, "namespace": true, "pod": true, m.Release.Label: true}
	for name, text := range scraped {
		samples, err := promql.ParseExposition([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := m.Metrics[name]; !ok {
			t.Errorf("%s: not declared", name)
		}
		for _, label := range m.Metrics[name].Labels {
			if !added[label] {
				if _, ok := samples[0].Labels[label]; !ok {
					t.Errorf("%s: the catalog declares label %s, which the server does not write", name, label)
				}
			}
		}
	}
}
