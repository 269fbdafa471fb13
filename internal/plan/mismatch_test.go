package plan_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/gpuobs/gpuobs/internal/plan"
	"github.com/gpuobs/gpuobs/internal/testutil/plantest"
	"github.com/gpuobs/gpuobs/internal/testutil/testcatalog"
)

// TestLabelMismatchTargetsAreDerived: the tickets an exporter label mismatch silences are
// the ones it makes fire for every GPU or node, derived from the expressions (the replay in
// generators/promtooltests shows the same set firing): a team's alert of that kind must be
// listed, a listed alert must be one, and a page of that kind is refused (a ticket cannot
// silence it). On the embedded catalog and on the adopter's, which renames the labels.
func TestLabelMismatchTargetsAreDerived(t *testing.T) {
	for _, base := range []string{"(import 'gpuobs.libsonnet')", "(import 'adopter.jsonnet')"} {
		p, err := plan.Build(testcatalog.Model(t, plantest.Catalog(t, base)))
		if err != nil {
			t.Fatal(err)
		}
		if got := p.AbsentByExporterLabels(); !slices.Equal(got, []string{"DCGMExporterMissingOnNode", "GPUSeriesMissing"}) {
			t.Errorf("%s: derived %v", base, got)
		}
		// A node with GPUs whose exporter sends nothing: kube-state-metrics' nodes unless the
		// exporter's series on the node.
		own := func(severity, targets string) string {
			return base + ` { alerts+: { GPUNodeWithoutTelemetry: $.alerts.GPUTemperatureHigh {
  local c = $.labels.cluster, local h = $.labels.host,
  severity: '` + severity + `',
  expr: 'max by (%s, %s) (label_replace(kube_node_info, "%s", "$1", "node", "(.+)")) unless on (%s, %s) group by (%s, %s) (DCGM_FI_DEV_GPU_TEMP)' % [c, h, h, c, h, c, h],
} }, alertmanager+: { inhibit+: { labelMismatchTargets+: ` + targets + ` } } }`
		}
		for _, c := range []struct{ severity, targets, want string }{
			{"warning", "[]", "alertmanager.inhibit.labelMismatchTargets: lacks GPUNodeWithoutTelemetry, which an exporter label mismatch (DCGMExporterLabelMismatch) makes fire for every GPU or node"},
			{"warning", "['GPUNodeWithoutTelemetry']", ""},
			{"warning", "['GPUNodeWithoutTelemetry', 'GPUTemperatureHigh']", "alertmanager.inhibit.labelMismatchTargets[3]: GPUTemperatureHigh does not fire under an exporter label mismatch"},
			{"critical", "[]", "alerts.GPUNodeWithoutTelemetry: a page that an exporter label mismatch (DCGMExporterLabelMismatch) makes fire for every GPU or node"},
		} {
			_, err := plan.Build(testcatalog.Model(t, plantest.Catalog(t, own(c.severity, c.targets))))
			if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
				t.Errorf("%s, %s listing %s: %v, want %q", base, c.severity, c.targets, err, c.want)
			}
			// The message names the labels as the catalog does.
			if l := p.Model.Labels; err != nil && !strings.Contains(err.Error(), l.Host+" or "+l.Cluster) {
				t.Errorf("%s: %v does not name %s and %s", base, err, l.Host, l.Cluster)
			}
		}
	}
}
