// Package output declares the layout of a generated tree once: the path of every file gpuobs
// writes, relative to the output root, for each rule format and topology, and which of them a
// reader of an output tree (diff, backtest) reads. Generators, emit, diff and backtest take
// their paths from here.
package output

import (
	"path"
	"regexp"
	"strings"
)

// Rule files: the plain files, their sharded layers, and the formats that repeat them.
const (
	RulesDir       = "rules"
	RecordingRules = RulesDir + "/recording.yaml"
	AlertRules     = RulesDir + "/alerts.yaml"
	// OperatorRules is a Prometheus Operator PrometheusRule (--rules-format operator).
	OperatorRules = RulesDir + "/" + OperatorFormat + "/prometheusrule.yaml"
	// MimirRules is a Mimir ruler namespace file (--rules-format mimir), and MimirRemoteWrite
	// the write_relabel_configs a sharded fleet's shards remote-write with.
	MimirRules       = RulesDir + "/" + MimirFormat + "/gpuobs.yaml"
	MimirRemoteWrite = RulesDir + "/" + MimirFormat + "/shard-remote-write.yaml"
)

// The rule formats written besides the plain files, each in its directory under RulesDir.
const (
	OperatorFormat = "operator"
	MimirFormat    = "mimir"
)

// RepeatedRuleFormats are the directories under RulesDir whose files repeat the plain rule
// files in another format: a reader of an output tree reads the plain files only.
var RepeatedRuleFormats = []string{OperatorFormat, MimirFormat}

// LayerRules is the plain rule file of a sharded topology's layer (shard, global):
// rules/<layer>/recording.yaml or alerts.yaml, after the unsharded file's name.
func LayerRules(file, layer string) string {
	return RulesDir + "/" + layer + "/" + path.Base(file)
}

// LayerFile is a rule format's file for one layer: name-layer.yaml, or name.yaml without layers.
func LayerFile(file, layer string) string {
	if layer == "" {
		return file
	}
	return strings.TrimSuffix(file, ".yaml") + "-" + layer + ".yaml"
}

// Alertmanager's configuration, its fragment for an existing root route, and the Prometheus
// Operator's AlertmanagerConfig.
const (
	AlertmanagerDir      = "alertmanager"
	AlertmanagerConfig   = AlertmanagerDir + "/alertmanager.yml"
	AlertmanagerFragment = AlertmanagerDir + "/gpuobs-fragment.yml"
	AlertmanagerOperator = AlertmanagerDir + "/alertmanagerconfig.yaml"
)

// Dashboards: one JSON file per level for file provisioning, the same as ConfigMaps for
// Grafana's sidecar (deploy.grafana.sidecar), and as v2 resources (deploy.grafana.schemas).
const (
	DashboardsDir   = "dashboards"
	DashboardsV2Dir = DashboardsDir + "/v2"
	SidecarDir      = "grafana"
)

// Dashboard is the file of a dashboard level (dashboards/l1.json).
func Dashboard(level string) string { return DashboardsDir + "/" + strings.ToLower(level) + ".json" }

// DashboardV2 is the v2 resource file of a dashboard level (dashboards/v2/l1.json).
func DashboardV2(level string) string {
	return DashboardsV2Dir + "/" + strings.ToLower(level) + ".json"
}

// SidecarDashboard is the ConfigMap file of a dashboard level (grafana/l1.yaml).
func SidecarDashboard(level string) string {
	return SidecarDir + "/" + strings.ToLower(level) + ".yaml"
}

// RunbooksDir holds one page per alert.
const RunbooksDir = "runbooks"

// Runbook is the page of an alert (runbooks/<alert>.md).
func Runbook(alert string) string { return RunbooksDir + "/" + alert + ".md" }

// The exporter's counter file, in dcgm-exporter's own format, and the same for the GPU Operator
// (a ConfigMap) and the dcgm-exporter Helm chart (values).
const (
	ExporterDir        = "exporter"
	Counters           = ExporterDir + "/dcgm-counters.csv"
	ExporterConfigMap  = ExporterDir + "/configmap.yaml"
	ExporterHelmValues = ExporterDir + "/helm-values.yaml"
)

// The promtool tests: alert scenarios, recording rules on the synthetic fleet, catalog records.
const (
	TestsDir       = "tests/promtool"
	AlertTests     = TestsDir + "/alerts.test.yaml"
	RecordingTests = TestsDir + "/recording.test.yaml"
	RecordsTests   = TestsDir + "/records.test.yaml"
)

// The generated catalog reference.
const (
	DocsDir    = "docs"
	CatalogDoc = DocsDir + "/catalog.md"
)

// Journal is the write journal of a generate run, left in the output root only by a run that
// was killed.
const Journal = ".gpuobs-journal.json"

// HashedDirs are the directories whose files a reader of an output tree compares by content
// only (dashboards are also read panel by panel).
var HashedDirs = []string{DashboardsDir, SidecarDir, RunbooksDir, "tests", DocsDir}

// Fixed are the files of the layout with a fixed path (the others are one per dashboard level,
// per alert or per sharded layer: Dashboard, SidecarDashboard, Runbook, LayerRules, LayerFile).
var Fixed = []string{
	RecordingRules, AlertRules, OperatorRules, MimirRules, MimirRemoteWrite,
	AlertmanagerConfig, AlertmanagerFragment, AlertmanagerOperator,
	Counters, ExporterConfigMap, ExporterHelmValues,
	AlertTests, RecordingTests, RecordsTests, CatalogDoc,
}

// ReadDirs are the directories of an output tree its readers (diff, a git base) read.
var ReadDirs = append([]string{RulesDir, AlertmanagerDir, ExporterDir}, HashedDirs...)

// declared matches every path gpuobs may write.
var declared = regexp.MustCompile(`^(` + strings.Join([]string{
	regexp.QuoteMeta(RulesDir) + `/((shard|global)/)?(recording|alerts)\.yaml`,
	regexp.QuoteMeta(RulesDir) + `/(` + OperatorFormat + `/prometheusrule|` + MimirFormat + `/gpuobs)(-(shard|global))?\.yaml`,
	regexp.QuoteMeta(MimirRemoteWrite),
	regexp.QuoteMeta(AlertmanagerConfig), regexp.QuoteMeta(AlertmanagerFragment), regexp.QuoteMeta(AlertmanagerOperator),
	regexp.QuoteMeta(DashboardsDir) + `/(v2/)?[a-z0-9][a-z0-9_-]*\.json`,
	regexp.QuoteMeta(SidecarDir) + `/[a-z0-9][a-z0-9_-]*\.yaml`,
	regexp.QuoteMeta(RunbooksDir) + `/[A-Za-z0-9_]+\.md`,
	regexp.QuoteMeta(Counters), regexp.QuoteMeta(ExporterConfigMap), regexp.QuoteMeta(ExporterHelmValues),
	regexp.QuoteMeta(AlertTests), regexp.QuoteMeta(RecordingTests), regexp.QuoteMeta(RecordsTests),
	regexp.QuoteMeta(CatalogDoc),
}, "|") + `)$`)

// Declared reports whether path (slash-separated, relative to the output root) is a file of
// the layout.
func Declared(path string) bool { return declared.MatchString(path) }
