package promtooltests

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gpuobs/gpuobs/generators/rules"
	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/promql"
	"github.com/gpuobs/gpuobs/internal/synth"
)

const scenarioCluster = "prod"

// scenarioGPU is the synthetic GPU a scenario plays on: its own host and exporter.
func scenarioGPU(alertIndex, caseIndex int, alert string, c model.AlertCase) synth.GPU {
	g := synth.GPU{
		Cluster:  scenarioCluster,
		Host:     fmt.Sprintf("%s-%d", strings.ToLower(alert), caseIndex),
		Instance: fmt.Sprintf("10.1.%d.%d:9400", alertIndex, caseIndex),
		Seq:      1000 + alertIndex*16 + caseIndex,
		Model:    synth.ModelName,
	}
	pod := func(i int) *synth.Pod {
		return &synth.Pod{Namespace: "ml-team", Name: fmt.Sprintf("%s-%d-%d", strings.ToLower(alert), caseIndex, i), Container: "worker"}
	}
	if c.MIG {
		g.MIG = []synth.MIGInstance{{ID: 1, Profile: "3g.40gb"}, {ID: 2, Profile: "3g.40gb"}}
		if c.Pod {
			g.MIG[0].Pod, g.MIG[1].Pod = pod(0), pod(1)
		}
	} else if c.Pod {
		g.Pod = pod(0)
	}
	return g
}

// healthyGPUs share the alert scenarios' test group and must never make an alert fire:
// a whole GPU held by a pod, an idle unallocated GPU, and a MIG GPU with one instance in use.
func healthyGPUs() []synth.GPU {
	return []synth.GPU{
		{Cluster: scenarioCluster, Host: "healthy-0", Instance: "10.2.0.1:9400", Index: 0, Seq: 1, Model: synth.ModelName,
			Pod: &synth.Pod{Namespace: "ml-team", Name: "trainer-0", Container: "trainer"}},
		{Cluster: scenarioCluster, Host: "healthy-0", Instance: "10.2.0.1:9400", Index: 1, Seq: 2, Model: synth.ModelName},
		{Cluster: scenarioCluster, Host: "healthy-1", Instance: "10.2.0.2:9400", Index: 0, Seq: 3, Model: synth.ModelName,
			MIG: []synth.MIGInstance{{ID: 1, Profile: "1g.10gb", Pod: &synth.Pod{Namespace: "inference", Name: "llm-0", Container: "vllm"}}, {ID: 2, Profile: "1g.10gb"}}},
	}
}

// expectation is one alert expected to fire at the evaluation time.
type expectation struct {
	labels synth.Labels
	value  float64
}

// alertTests puts every scenario in one test group (promtool's cost grows with groups, not
// cases) and checks each alert once, at the evaluation time: the alert's firing set must be
// exactly the GPUs of its firing scenarios, which proves the quiet scenarios stay quiet.
func alertTests(m *model.Model, steps int) (testFile, error) {
	group := testGroup{Name: "alerts: every scenario, one GPU each", Interval: m.Tests.Interval}
	expected := map[string][]expectation{}
	names := model.SortedKeys(m.Alerts)
	for ai, name := range names {
		a := m.Alerts[name]
		for ci, c := range a.Tests {
			g := scenarioGPU(ai, ci, name, c)
			group.InputSeries = append(group.InputSeries, scenarioSeries(m, g, c)...)
			identities := alertIdentities(m, g, a.Identity)
			if c.Fires {
				for _, id := range identities {
					expected[name] = append(expected[name], expectation{labels: id, value: *c.Value})
				}
			}
			for _, also := range c.AlsoFires {
				for _, id := range alertIdentities(m, g, m.Alerts[also.Alert].Identity) {
					expected[also.Alert] = append(expected[also.Alert], expectation{labels: id, value: also.Value})
				}
			}
		}
	}
	seenUp := map[string]bool{}
	for _, g := range healthyGPUs() {
		group.InputSeries = append(group.InputSeries, gpuSeries(m, g, steps, flatCounters, 1)...)
		if !seenUp[g.Instance] {
			seenUp[g.Instance] = true
			group.InputSeries = append(group.InputSeries, upSeries(m, g, constant(1, steps)))
		}
	}
	for _, name := range names {
		t := alertTest{EvalTime: m.Tests.EvalTime, Alertname: name, ExpAlerts: []expAlert{}}
		for _, e := range expected[name] {
			ea, err := expectedAlert(m, name, e)
			if err != nil {
				return testFile{}, err
			}
			t.ExpAlerts = append(t.ExpAlerts, ea)
		}
		sort.Slice(t.ExpAlerts, func(i, j int) bool {
			return synth.Series("", t.ExpAlerts[i].ExpLabels) < synth.Series("", t.ExpAlerts[j].ExpLabels)
		})
		group.AlertRuleTests = append(group.AlertRuleTests, t)
	}
	return testFile{RuleFiles: ruleFiles, EvaluationInterval: m.Tests.Interval, Tests: []testGroup{group}}, nil
}

// scenarioSeries are a scenario's input series on its GPU: its own series on every entity of
// the GPU, the health field, and the exporter's up series.
func scenarioSeries(m *model.Model, g synth.GPU, c model.AlertCase) []series {
	var out []series
	for _, s := range c.Series {
		for _, e := range g.Entities(m, synth.EntityOf(m, s.Metric)) {
			out = append(out, series{Series: synth.Series(s.Metric, e.Labels.With(s.Labels)), Values: s.Values})
		}
	}
	if c.Health != "" {
		for _, e := range g.Entities(m, synth.EntityOf(m, m.Exporter.HealthField)) {
			out = append(out, series{Series: synth.Series(m.Exporter.HealthField, e.Labels), Values: c.Health})
		}
	}
	if c.ExtraHealth != "" {
		out = append(out, series{Series: synth.Series(m.Exporter.HealthField, g.WithoutPod(m)), Values: c.ExtraHealth})
	}
	return append(out, upSeries(m, g, c.Up))
}

// alertIdentities are the label sets an alert with the given identity has on this GPU: one per
// reporting entity (each MIG instance has its own pod), deduplicated.
func alertIdentities(m *model.Model, g synth.GPU, identity []string) []synth.Labels {
	seen := map[string]bool{}
	var out []synth.Labels
	for _, e := range g.Entities(m, model.EntityMIGRepeated) {
		id := e.Labels.Project(identity)
		if key := synth.Series("", id); !seen[key] {
			seen[key] = true
			out = append(out, id)
		}
	}
	return out
}

// expectedAlert renders the labels and annotations promtool must see, expanding the
// description with Prometheus' own template engine.
func expectedAlert(m *model.Model, name string, e expectation) (expAlert, error) {
	a := m.Alerts[name]
	labels := map[string]string{}
	for k, v := range e.labels {
		labels[k] = v
	}
	annotations := rules.Annotations(m, name)
	for key, text := range annotations {
		expanded, err := promql.ExpandAlertTemplate(name, text, labels, e.value)
		if err != nil {
			return expAlert{}, fmt.Errorf("alerts.%s annotation %s: %w", name, key, err)
		}
		annotations[key] = expanded
	}
	for k, v := range rules.AlertLabels(a) {
		labels[k] = v
	}
	return expAlert{ExpLabels: labels, ExpAnnotations: annotations}, nil
}
