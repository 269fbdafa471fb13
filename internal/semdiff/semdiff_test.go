package semdiff_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gpuobs/gpuobs/generators"
	"github.com/gpuobs/gpuobs/internal/emit"
	"github.com/gpuobs/gpuobs/internal/escape"
	"github.com/gpuobs/gpuobs/internal/semdiff"
	"github.com/gpuobs/gpuobs/internal/testutil/plantest"
)

// generate writes the output of the embedded catalog with an override into a temporary
// directory; an empty override is the embedded catalog.
func generate(t *testing.T, override string) string {
	t.Helper()
	config := ""
	if override != "" {
		config = filepath.Join(t.TempDir(), "gpuobs.jsonnet")
		if err := os.WriteFile(config, []byte("(import 'gpuobs.libsonnet') + "+override), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files, managed, err := generators.Run(plantest.Plan(t, config), generators.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := emit.Write(dir, files, managed); err != nil {
		t.Fatal(err)
	}
	return dir
}

func load(t *testing.T, dir string) *semdiff.Output {
	t.Helper()
	o, err := semdiff.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// summary lists a report's changes one a line: alerts with their changed fields and, when it
// changed, their routing on each side; records, panels and counter fields with their change.
func summary(r *semdiff.Report) []string {
	var out []string
	for _, a := range r.Alerts {
		var fields []string
		for _, f := range a.Fields {
			fields = append(fields, f.Field)
		}
		line := a.Change + " alert " + a.Name + " [" + strings.Join(fields, " ") + "]"
		if a.RoutingChanged {
			line += " routing " + route(a.Base) + " -> " + route(a.Head)
		}
		out = append(out, line)
	}
	for _, c := range r.Records {
		out = append(out, c.Change+" record "+c.Name)
	}
	for _, c := range r.Panels {
		out = append(out, c.Change+" panel "+c.Dashboard+" "+c.Title)
	}
	for _, c := range r.Counters {
		out = append(out, c.Change+" counter "+c.Field)
	}
	for _, c := range r.Receivers {
		var fields []string
		for _, f := range c.Fields {
			fields = append(fields, f.Field+": "+f.Base+" -> "+f.Head)
		}
		out = append(out, c.Change+" receiver "+c.Name+" ["+strings.Join(fields, "; ")+"]")
	}
	for _, c := range r.Files {
		out = append(out, c.Change+" file "+c.Path)
	}
	return out
}

func route(a *semdiff.Alert) string {
	if a == nil {
		return "absent"
	}
	return strings.Join(a.Receivers, ",") + " silenced by " + strings.Join(a.SilencedBy, ",")
}

// TestCatalogEdits generates the embedded catalog and edited copies, and checks that diff
// reports exactly what each edit changes, routing and silencers from Alertmanager's code.
func TestCatalogEdits(t *testing.T) {
	t.Parallel()
	baseDir := generate(t, "")
	base := load(t, baseDir)
	const silencers = "DCGMExporterDown,GPUFellOffBus"
	for _, c := range []struct {
		name, override string
		want           []string
	}{
		{
			name:     "a threshold",
			override: `{ thresholds+: { gpuTemperatureCelsius: 90 } }`,
			want: []string{
				"changed alert GPUTemperatureHigh [expr annotations.description]",
				// The dashboards' threshold lines follow the catalog outside their queries;
				// the runbook and the scenarios too.
				"changed file dashboards/l2.json",
				"changed file dashboards/l3.json",
				"changed file dashboards/l5.json",
				"changed file runbooks/GPUTemperatureHigh.md",
				"changed file tests/promtool/alerts.test.yaml",
			},
		},
		{
			name:     "a team",
			override: `{ alerts+: { GPUTemperatureHigh+: { team: 'ml-platform' } } }`,
			want: []string{
				"changed alert GPUTemperatureHigh [labels.team] routing infra-ticket silenced by " + silencers + " -> ml-platform-ticket silenced by " + silencers,
				"changed file docs/catalog.md",
				"changed file runbooks/GPUTemperatureHigh.md",
				"changed file tests/promtool/alerts.test.yaml",
			},
		},
		{
			name:     "a family",
			override: `{ alerts+: { GPUTemperatureHigh+: { family: 'workload' } } }`,
			want: []string{
				// Workload alerts go to their team, and a cordon silences them.
				"changed alert GPUTemperatureHigh [labels.family] routing infra-ticket silenced by " + silencers + " -> infra-ticket silenced by " + silencers + ",GPUKubeStateMetricsDown,GPUNodeCordoned",
				"changed file docs/catalog.md",
				"changed file tests/promtool/alerts.test.yaml",
			},
		},
		{
			name:     "a keep_firing_for",
			override: `{ alerts+: { GPUTemperatureHigh+: { keepFiringFor: '15m' } } }`,
			want: []string{
				"changed alert GPUTemperatureHigh [keep_firing_for]",
				"changed file runbooks/GPUTemperatureHigh.md",
			},
		},
		{
			name:     "a removed alert",
			override: `{ alerts+: { GPUMemoryTemperatureHigh:: null } }`,
			want: []string{
				"removed alert GPUMemoryTemperatureHigh [] routing infra-ticket silenced by " + silencers + " -> absent",
				// Its threshold's red line leaves the L3 and L5 memory-temperature panels with it.
				"changed file dashboards/l3.json",
				"changed file dashboards/l5.json",
				"changed file docs/catalog.md",
				"removed file runbooks/GPUMemoryTemperatureHigh.md",
				"changed file tests/promtool/alerts.test.yaml",
			},
		},
		{
			name:     "an inhibition widened to a family",
			override: `{ alertmanager+: { inhibit+: { nodeUnschedulableFamilies+: ['thermal'] } } }`,
			want: []string{
				"changed alert GPUHotterThanFleetPeers [] routing infra-ticket silenced by " + silencers + " -> infra-ticket silenced by " + silencers + ",GPUKubeStateMetricsDown,GPUNodeCordoned",
				"changed alert GPUMemoryTemperatureHigh [] routing infra-ticket silenced by " + silencers + " -> infra-ticket silenced by " + silencers + ",GPUKubeStateMetricsDown,GPUNodeCordoned",
				"changed alert GPUTemperatureHigh [] routing infra-ticket silenced by " + silencers + " -> infra-ticket silenced by " + silencers + ",GPUKubeStateMetricsDown,GPUNodeCordoned",
				"changed alert GPUThermalThrottling [] routing infra-ticket silenced by " + silencers + " -> infra-ticket silenced by " + silencers + ",GPUKubeStateMetricsDown,GPUNodeCordoned",
				// kube-state-metrics down silences what the cordon silences (derived), and its runbook names the families.
				"changed file runbooks/GPUKubeStateMetricsDown.md",
			},
		},
		{
			// A page silences the tickets of its family on the same GPU.
			name:     "a new inhibition source",
			override: `{ alerts+: { GPUThermalThrottling+: { severity: 'critical' } } }`,
			want: []string{
				"changed alert GPUHotterThanFleetPeers [] routing infra-ticket silenced by " + silencers + " -> infra-ticket silenced by " + silencers + ",GPUThermalThrottling",
				"changed alert GPUMemoryTemperatureHigh [] routing infra-ticket silenced by " + silencers + " -> infra-ticket silenced by " + silencers + ",GPUThermalThrottling",
				"changed alert GPUTemperatureHigh [] routing infra-ticket silenced by " + silencers + " -> infra-ticket silenced by " + silencers + ",GPUThermalThrottling",
				"changed alert GPUThermalThrottling [labels.severity] routing infra-ticket silenced by " + silencers + " -> infra-pager silenced by " + silencers,
				"changed file docs/catalog.md",
				// It lists the alerts the default counter set leaves blind, with their tiers.
				"changed file runbooks/DCGMExporterStockCounterSet.md",
				"changed file runbooks/GPUThermalThrottling.md",
				"changed file tests/promtool/alerts.test.yaml",
			},
		},
		{
			// A receiver gets a webhook: no alert's receiver name changes, the receiver's
			// integrations do.
			name:     "a receiver's integration",
			override: `{ alertmanager+: { integrations+: { 'infra-pager': { webhook_configs: [{ url_file: '/etc/alertmanager/secrets/hook' }] } } } }`,
			want: []string{
				"changed receiver infra-pager [webhook_configs[0].url_file:  -> /etc/alertmanager/secrets/hook]",
			},
		},
		{
			// Timing is not modelled: the file's change is reported.
			name:     "a notification timing",
			override: `{ alertmanager+: { timing+: { warning+: { groupWait: '5m' } } } }`,
			want:     []string{"changed file alertmanager/alertmanager.yml", "changed file alertmanager/gpuobs-fragment.yml"},
		},
		{
			name:     "a dashboard change",
			override: `{ dashboards+: { L1+: { rows: [r + { panels: [p for p in r.panels if p.title != 'GPUs healthy'] } for r in super.rows] } } }`,
			want:     []string{"removed panel dashboards/l1.json GPUs healthy"},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			head := load(t, generate(t, c.override))
			got := summary(semdiff.Compare("base", base, "head", head))
			if !slices.Equal(got, c.want) {
				t.Errorf("changes:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(c.want, "\n  "))
			}
		})
	}
}

// TestLayoutIsNotAChange: an expression written differently but meaning the same (Prometheus'
// canonical form) is no change.
func TestLayoutIsNotAChange(t *testing.T) {
	t.Parallel()
	dir := generate(t, "")
	before := load(t, dir)
	path := filepath.Join(dir, "rules", "alerts.yaml")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const written = "        expr: |2-\n            max by (cluster, Hostname, gpu, UUID, pci_bus_id, modelName, namespace, pod) (\n              label_replace(\n                label_replace(DCGM_FI_DEV_GPU_TEMP, \"namespace\", \"$1\", \"exported_namespace\", \"(.+)\"),\n                \"pod\",\n                \"$1\",\n                \"exported_pod\",\n                \"(.+)\"\n              )\n            )\n          >\n            85\n"
	relaid := strings.Replace(string(b), written, "        expr: max by(cluster,Hostname,gpu,UUID,pci_bus_id,modelName,namespace,pod)(label_replace(label_replace(DCGM_FI_DEV_GPU_TEMP,\"namespace\",\"$1\",\"exported_namespace\",\"(.+)\"),\"pod\",\"$1\",\"exported_pod\",\"(.+)\"))>85\n", 1)
	if relaid == string(b) {
		t.Fatal("the temperature alert's expression is not in the file as expected")
	}
	if err := os.WriteFile(path, []byte(relaid), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := semdiff.Compare("a", before, "b", load(t, dir)); !r.Empty() {
		t.Errorf("a relaid expression reported: %v", summary(r))
	}
}

// TestLoadReportsEveryProblem: a directory without rules, and a broken rule file and
// dashboard, are reported together, each with its file.
func TestLoadReportsEveryProblem(t *testing.T) {
	t.Parallel()
	if _, err := semdiff.Load(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no rule files under rules/") {
		t.Errorf("empty directory: %v", err)
	}
	dir := t.TempDir()
	for name, content := range map[string]string{
		"rules/alerts.yaml": "groups:\n  - name: g\n    rules:\n      - alert: A\n        expr: sum(\n",
		"dashboards/x.json": "[1, 2",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err := semdiff.Load(dir)
	if err == nil || !strings.Contains(err.Error(), "rules/alerts.yaml:5:") || !strings.Contains(err.Error(), "dashboards/x.json:") {
		t.Errorf("want both files located, got %v", err)
	}
}

// TestNamesCannotInjectIntoReports: a pull request's rule file whose alert name and annotation
// hold a newline with a GitHub workflow command, an HTML comment and code fences cannot start
// a line of the text report, nor hide or break out of anything in the Markdown comment.
func TestNamesCannotInjectIntoReports(t *testing.T) {
	t.Parallel()
	base := generate(t, "")
	head := generate(t, "")
	planted := "groups:\n  - name: planted\n    rules:\n      - alert: \"Planted\\n::error::owned <!-- `x` ```\"\n        expr: up == 0\n        labels: {severity: critical}\n        annotations: {summary: \"line\\n```\\n<!-- hidden\"}\n"
	if err := os.WriteFile(filepath.Join(head, "rules", "planted.yaml"), []byte(planted), 0o644); err != nil {
		t.Fatal(err)
	}
	r := semdiff.Compare("base", load(t, base), "head", load(t, head))
	var text, md strings.Builder
	if err := semdiff.Reporters.Write(&text, "text", r); err != nil {
		t.Fatal(err)
	}
	if err := semdiff.Reporters.Write(&md, "markdown", r); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(text.String(), "\n") {
		if strings.HasPrefix(line, "::") {
			t.Errorf("the text report has a line of the name's: %q", line)
		}
	}
	// The name shows only as a code span that it cannot close; outside it, nothing of the
	// data is HTML.
	name := "Planted\n::error::owned <!-- `x` ```"
	if rest := strings.ReplaceAll(md.String(), escape.Code(name), ""); strings.Contains(rest, "<!--") || rest == md.String() {
		t.Errorf("the Markdown report holds an HTML comment from the data outside the name's code span:\n%s", md.String())
	}
	// Every code block the report opens is closed by its own fence.
	open := ""
	for _, line := range strings.Split(md.String(), "\n") {
		switch {
		case open == "" && strings.HasPrefix(line, "```"):
			open = strings.TrimRight(line, "abcdefghijklmnopqrstuvwxyz")
		case open != "" && line == open:
			open = ""
		}
	}
	if open != "" || !strings.Contains(md.String(), "Planted") {
		t.Errorf("a code block is left open (%q) or the alert is missing:\n%s", open, md.String())
	}
}

// TestLinksOutOfTheTreeAreNotRead: a checked-in counter file that is a link to a file outside
// the output tree (the environment, a token) is refused unread: no field of it reaches the
// report.
func TestLinksOutOfTheTreeAreNotRead(t *testing.T) {
	t.Parallel()
	head := generate(t, "")
	secret := filepath.Join(t.TempDir(), "environ")
	if err := os.WriteFile(secret, []byte("TOKEN_9d3e=never,shown,here\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	counters := filepath.Join(head, "exporter", "dcgm-counters.csv")
	if err := os.Remove(counters); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, counters); err != nil {
		t.Fatal(err)
	}
	o, err := semdiff.Load(head)
	if err == nil || !strings.Contains(err.Error(), "is a symbolic link out of") || strings.Contains(err.Error(), "TOKEN") {
		t.Fatalf("Load: %v, want the link refused unread", err)
	}
	for field := range o.Counters {
		if strings.Contains(field, "TOKEN") {
			t.Errorf("a field of the linked file was read: %s", field)
		}
	}
}

// TestV2DashboardsAreCompared: with the v2 schema written, a panel removed from the catalog is
// reported in the v2 resource as in the classic JSON; on the adopter's catalog too.
func TestV2DashboardsAreCompared(t *testing.T) {
	t.Parallel()
	both := `{ deploy+: { grafana+: { schemas: ['classic', 'v2'] } } }`
	removed := both + ` + { dashboards+: { L1+: { rows: [r + { panels: [p for p in r.panels if p.title != 'GPUs healthy'] } for r in super.rows] } } }`
	for _, catalog := range []string{"(import 'gpuobs.libsonnet')", "(import 'adopter.jsonnet')"} {
		write := func(override string) string {
			files, managed, err := generators.Run(plantest.Plan(t, plantest.Catalog(t, catalog+" + "+override)), generators.Options{})
			if err != nil {
				t.Fatal(err)
			}
			out := t.TempDir()
			if err := emit.Write(out, files, managed); err != nil {
				t.Fatal(err)
			}
			return out
		}
		got := summary(semdiff.Compare("base", load(t, write(both)), "head", load(t, write(removed))))
		want := []string{"removed panel dashboards/l1.json GPUs healthy", "removed panel dashboards/v2/l1.json GPUs healthy"}
		if !slices.Equal(got, want) {
			t.Errorf("%s: changes:\n  %s\nwant:\n  %s", catalog, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
		}
	}
}

// TestReceiverIntegrationsAreComparedNotShown: an output whose receiver moves from PagerDuty to
// a webhook, written inline by hand, is reported in every format, and neither the key nor the
// URL appears in any of them.
func TestReceiverIntegrationsAreComparedNotShown(t *testing.T) {
	t.Parallel()
	dir := generate(t, "")
	path := filepath.Join(dir, "alertmanager", "alertmanager.yml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	withIntegration := func(integration string) *semdiff.Output {
		edited := strings.Replace(string(data), "  - name: infra-pager\n", "  - name: infra-pager\n"+integration, 1)
		if edited == string(data) {
			t.Fatal("no infra-pager receiver in the generated configuration")
		}
		if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
			t.Fatal(err)
		}
		return load(t, dir)
	}
	const key, url = "0123456789abcdef0123456789abcdef", "https://hooks.example.com/services/T0/B0/XYZ-secret-token"
	base := withIntegration("    pagerduty_configs:\n      - routing_key: " + key + "\n")
	head := withIntegration("    webhook_configs:\n      - url: " + url + "\n")
	r := semdiff.Compare("base", base, "head", head)
	want := []string{"changed receiver infra-pager [pagerduty_configs[0].routing_key: (a value, not shown) -> ; webhook_configs[0].url:  -> (a value, not shown)]"}
	if got := summary(r); !slices.Equal(got, want) {
		t.Errorf("changes:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	for _, format := range semdiff.Reporters.Formats() {
		var b strings.Builder
		if err := semdiff.Reporters.Write(&b, format, r); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "infra-pager") || strings.Contains(b.String(), key) || strings.Contains(b.String(), "XYZ-secret-token") {
			t.Errorf("%s: the receiver's change, without its values:\n%s", format, b.String())
		}
	}
}

// TestEveryReportShowsEveryKindOfChange: a changed panel (its queries), counter field and
// other generated file each appear in every report format, not only in the summary's counts.
func TestEveryReportShowsEveryKindOfChange(t *testing.T) {
	t.Parallel()
	r := &semdiff.Report{
		Base: "base", Head: "head",
		Panels:   []semdiff.PanelChange{{Dashboard: "gpuobs-l3", Title: "SM activity", Change: semdiff.Changed, Added: []string{"avg_new_query"}, Removed: []string{"avg_old_query"}}},
		Counters: []semdiff.CounterChange{{Field: "DCGM_FI_DEV_PCIE_LINK_WIDTH", Change: semdiff.Added, Head: "gauge"}},
		Files:    []semdiff.FileChange{{Path: "runbooks/GPUFellOffBus.md", Change: semdiff.Changed}},
	}
	for _, format := range semdiff.Reporters.Formats() {
		var b strings.Builder
		if err := semdiff.Reporters.Write(&b, format, r); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"SM activity", "avg_new_query", "avg_old_query", "DCGM_FI_DEV_PCIE_LINK_WIDTH", "runbooks/GPUFellOffBus.md"} {
			if !strings.Contains(b.String(), want) {
				t.Errorf("the %s report lacks %s:\n%s", format, want, b.String())
			}
		}
	}
}

// TestMarkdownKeepsEveryChangeInAComment: a diff whose changes hold long text (a planted
// alert's 200,000-character expression and annotation) fits GitHub's comment limit with every
// change kept: each alert and record named, the long text cut with a mark, and a line saying
// so; the JSON report keeps it whole.
func TestMarkdownKeepsEveryChangeInAComment(t *testing.T) {
	t.Parallel()
	base := generate(t, "")
	head := generate(t, "")
	long := strings.Repeat("x", 200_000)
	planted := func(job string) []byte {
		return []byte("groups:\n  - name: planted\n    rules:\n      - alert: PlantedLong\n        expr: up{job=\"" + job + "\"} == 0\n        labels: {severity: warning}\n        annotations: {summary: \"" + job + "\"}\n      - alert: PlantedShort\n        expr: up{job=\"" + job + "\"} == 1\n        labels: {severity: warning}\n")
	}
	for dir, job := range map[string]string{base: "short", head: long} {
		if err := os.WriteFile(filepath.Join(dir, "rules", "planted.yaml"), planted(job), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := semdiff.Compare("base", load(t, base), "head", load(t, head))
	var whole, md strings.Builder
	if err := semdiff.Reporters.Write(&whole, "json", r); err != nil {
		t.Fatal(err)
	}
	if err := semdiff.Reporters.Write(&md, "markdown", r); err != nil {
		t.Fatal(err)
	}
	if n := utf8.RuneCountInString(md.String()); n > escape.CommentLimit || !strings.Contains(md.String(), "**Cut cells:**") || strings.Contains(md.String(), "**Cut here:**") {
		t.Errorf("the Markdown report has %d characters (limit %d), ending:\n%s", n, escape.CommentLimit, md.String()[max(0, md.Len()-600):])
	}
	for _, name := range []string{"PlantedLong", "PlantedShort"} {
		if !strings.Contains(md.String(), escape.Code(name)) {
			t.Errorf("the Markdown report lost alert %s", name)
		}
	}
	if !strings.Contains(whole.String(), long) {
		t.Error("the JSON report lost the expression")
	}
}
