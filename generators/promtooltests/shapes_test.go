package promtooltests_test

import (
	"github.com/gpuobs/gpuobs/internal/testutil"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/gpuobs/gpuobs/internal/conventions"
	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/output"
	"github.com/gpuobs/gpuobs/internal/promql"
	"github.com/gpuobs/gpuobs/internal/synth"
	"github.com/gpuobs/gpuobs/internal/testutil/plantest"
)

// TestScenariosHoldWhereTargetLabelsWin runs every generated alert and recording test again on
// its series as a ServiceMonitor with honorLabels: false stores them (the dcgm-exporter chart's
// and the GPU Operator's default): every exporter series carries its target's own pod, and a
// workload's pod arrives as exported_namespace, exported_pod and exported_container. The
// expected alerts and samples are the same: the rules read the pod wherever it arrives. On the
// embedded catalog, a team's own (every label renamed, sections off) and a training fleet's.
func TestScenariosHoldWhereTargetLabelsWin(t *testing.T) {
	testutil.Long(t)
	t.Parallel()
	for _, config := range []string{"", "../../internal/testutil/plantest/testdata/adopter-gb200.jsonnet", trainingCatalog} {
		t.Run(filepath.Base(config), func(t *testing.T) {
			t.Parallel()
			m := plantest.Plan(t, config).Model
			dir := generateInto(t, config)
			for _, f := range []string{output.AlertTests, output.RecordingTests} {
				targetLabelsWin(t, m, filepath.Join(dir, f))
				if out, err := promtoolTest(t, dir, f, nil); err != nil {
					t.Errorf("promtool test rules %s, the pod as exported_*: %v\n%s", f, err, out)
				}
			}
		})
	}
}

// targetLabelsWin rewrites a generated test file's input series as honorLabels: false stores
// them: on the series of the exporter's fields that carry a workload's pod, the pod moves to
// the exported_* labels and the target's own pod takes its place; so it does on the expected
// samples of the record that keeps every label of the exporter's series (conventions.Health).
func targetLabelsWin(t *testing.T, m *model.Model, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var file map[string]any
	if err := yaml.Unmarshal(b, &file); err != nil {
		t.Fatal(err)
	}
	l, moved := m.Labels, 0
	// move rewrites one series (metric{labels}) where it is an exporter's with a workload's pod.
	move := func(text string) string {
		n, err := promql.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		labels := synth.Labels{}
		for _, matcher := range n.Matchers {
			labels[matcher.Name] = matcher.Value
		}
		target := synth.Entity{Labels: labels}.TargetPod(m)
		if labels[l.Pod] == "" || labels[l.Pod] == target[l.Pod] {
			return text
		}
		for _, names := range [][2]string{{l.Namespace, l.ExportedNamespace}, {l.Pod, l.ExportedPod}, {l.Container, "exported_" + l.Container}} {
			labels[names[1]], labels[names[0]] = labels[names[0]], target[names[0]]
		}
		moved++
		return synth.Series(n.Name, labels)
	}
	for _, group := range file["tests"].([]any) {
		for _, in := range group.(map[string]any)["input_series"].([]any) {
			series := in.(map[string]any)
			if text := series["series"].(string); strings.HasPrefix(text, "DCGM_") {
				series["series"] = move(text)
			}
		}
		tests, _ := group.(map[string]any)["promql_expr_test"].([]any)
		for _, test := range tests {
			if test := test.(map[string]any); test["expr"] == conventions.Health {
				for _, sample := range test["exp_samples"].([]any) {
					sample := sample.(map[string]any)
					sample["labels"] = move(sample["labels"].(string))
				}
			}
		}
	}
	if moved == 0 {
		t.Fatalf("%s: no series of a workload's pod to move", path)
	}
	if b, err = yaml.Marshal(file); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
