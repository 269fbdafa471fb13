package alertmanager

import (
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/gpuobs/gpuobs/internal/amconfig"
	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/output"
	"github.com/gpuobs/gpuobs/internal/plan"
	"github.com/gpuobs/gpuobs/internal/promql"
	"github.com/gpuobs/gpuobs/internal/testutil"
	"github.com/gpuobs/gpuobs/internal/testutil/plantest"
)

// root is the repository root, where the generated output is checked in.
const root = "../.."

func loadConfig(t *testing.T, path string) *amconfig.Config {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, path))
	if err != nil {
		t.Fatal(err)
	}
	c, err := amconfig.Load(data)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return c
}

// alertLabels is the label set an alert fires with: its static labels and a value for each
// label of its identity (value names the label, so two alerts of the same thing agree).
func alertLabels(p *plan.Plan, name string, values func(label string) string) map[string]string {
	out := maps.Clone(p.Alerts[name].Labels)
	out["alertname"] = name
	for _, l := range p.Model.Alerts[name].Identity {
		out[l] = values(l)
	}
	return out
}

// adopter is a team's own catalog: every label and team renamed.
const adopter = root + "/internal/testutil/plantest/testdata/adopter.jsonnet"

// eachCatalog runs a test on the embedded catalog with its checked-in configuration and on the
// adopter's catalog with the configuration generated from it.
func eachCatalog(t *testing.T, test func(t *testing.T, p *plan.Plan, c *amconfig.Config)) {
	t.Run("embedded", func(t *testing.T) { test(t, plantest.Plan(t, ""), loadConfig(t, output.AlertmanagerConfig)) })
	t.Run("adopter", func(t *testing.T) {
		p := plantest.Plan(t, adopter)
		files, err := Generate(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		c, err := amconfig.Load(files[0].Content)
		if err != nil {
			t.Fatal(err)
		}
		test(t, p, c)
	})
}

// TestAmtoolAcceptsTheConfig runs the pinned amtool (tools/amtool/go.mod) on the adopter's
// generated configuration (make test runs it on the embedded catalog's).
func TestAmtoolAcceptsTheConfig(t *testing.T) {
	files, err := Generate(plantest.Plan(t, adopter), nil)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "alertmanager.yml")
	if err := os.WriteFile(path, files[0].Content, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(testutil.Tool(t, "amtool"), "check-config", path)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("amtool check-config: %v\n%s", err, out)
	}
}

func same(label string) string { return "value-of-" + label }

func mustDuration(t *testing.T, d string) time.Duration {
	t.Helper()
	v, err := promql.ParseDuration(d)
	if err != nil {
		t.Fatal(err)
	}
	return time.Duration(v)
}

// TestEveryAlertRoutesToItsReceiver routes every catalog alert through the checked-in
// configuration with Alertmanager's dispatcher: exactly one route, the team's receiver for the
// alert's severity (info: the silent receiver), the family's grouping (info: the default's)
// and the tier's timing.
func TestEveryAlertRoutesToItsReceiver(t *testing.T) {
	eachCatalog(t, everyAlertRoutesToItsReceiver)
}

func everyAlertRoutesToItsReceiver(t *testing.T, p *plan.Plan, c *amconfig.Config) {
	m := p.Model
	for _, name := range model.SortedKeys(m.Alerts) {
		a := m.Alerts[name]
		got := c.Routes(alertLabels(p, name, same))
		if len(got) != 1 {
			t.Errorf("%s: routed to %d routes, want 1: %+v", name, len(got), got)
			continue
		}
		r := got[0]
		want := m.Alertmanager.SilentReceiver
		if a.Severity != model.SeverityInfo {
			want = m.Alertmanager.Receivers[a.Team][a.Severity]
		}
		if r.Receiver != want {
			t.Errorf("%s (team %s, %s): receiver %s, want %s", name, a.Team, a.Severity, r.Receiver, want)
		}
		// Info alerts share one route to the silent receiver, grouped as the default: they
		// notify nobody, so their family's grouping has nothing to shape.
		family := a.Family
		if a.Severity == model.SeverityInfo {
			family = defaultGroup
		}
		if wantGroup := slices.Sorted(slices.Values(GroupBy(m, family))); !slices.Equal(r.GroupBy, wantGroup) {
			t.Errorf("%s: group_by %v, want %v", name, r.GroupBy, wantGroup)
		}
		if a.Severity == model.SeverityInfo {
			continue
		}
		timing := m.Alertmanager.Timing[a.Severity]
		if r.GroupWait != mustDuration(t, timing.GroupWait) || r.GroupInterval != mustDuration(t, timing.GroupInterval) || r.RepeatInterval != mustDuration(t, timing.RepeatInterval) {
			t.Errorf("%s: group_wait %v, group_interval %v, repeat_interval %v, want %s, %s and %s", name, r.GroupWait, r.GroupInterval, r.RepeatInterval, timing.GroupWait, timing.GroupInterval, timing.RepeatInterval)
		}
	}
}

// TestOneBrokenNodeIsOneNotification: the hardware alerts of one node share a group key.
func TestOneBrokenNodeIsOneNotification(t *testing.T) {
	eachCatalog(t, oneBrokenNodeIsOneNotification)
}

func oneBrokenNodeIsOneNotification(t *testing.T, p *plan.Plan, c *amconfig.Config) {
	m := p.Model
	for _, name := range []string{"GPUEccDoubleBit", "GPUXidFatal", "GPUTemperatureHigh", "DCGMExporterDown"} {
		r := c.Routes(alertLabels(p, name, same))
		if len(r) != 1 || !slices.Contains(r[0].GroupBy, m.Labels.Host) || slices.Contains(r[0].GroupBy, "alertname") {
			t.Errorf("%s: grouped by %v, want the node's labels without alertname", name, r)
		}
	}
}

// TestInhibitRules plays, for every inhibit rule, a source alert with a target alert on the
// same thing (inhibited) and on another (not inhibited), through Alertmanager's inhibitor.
func TestInhibitRules(t *testing.T) {
	eachCatalog(t, inhibitRules)
}

func inhibitRules(t *testing.T, p *plan.Plan, c *amconfig.Config) {
	m := p.Model
	inhibitions, err := Inhibitions(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range inhibitions {
		if slices.Contains(in.Equal, m.Labels.Host) && !slices.Contains(in.Present, m.Labels.Host) {
			t.Errorf("%s compares hosts but does not require its source to have one", in.Name)
		}
	}
	if len(inhibitions) < 5 {
		t.Fatalf("%d inhibit rules, want gpu-gone, exporter-down, node-unschedulable, page-over-ticket and SLO rules", len(inhibitions))
	}
	for _, in := range inhibitions {
		t.Run(in.Name, func(t *testing.T) {
			for _, target := range in.Targets {
				source := alertLabels(p, in.Sources[0], same)
				sameThing := alertLabels(p, target, same)
				if muted, err := c.Inhibited([]map[string]string{source}, sameThing); err != nil || !muted {
					t.Errorf("%s with %s firing on the same %v: inhibited %v (%v), want true", target, in.Sources[0], in.Equal, muted, err)
				}
				last := in.Equal[len(in.Equal)-1]
				other := alertLabels(p, target, func(l string) string {
					if l == last {
						return "another-" + l
					}
					return same(l)
				})
				if muted, err := c.Inhibited([]map[string]string{source}, other); err != nil || muted {
					t.Errorf("%s on another %s than %s: inhibited %v (%v), want false", target, last, in.Sources[0], muted, err)
				}
			}
			// Fail closed: a source without a machine label (a host label profile that does
			// not match the exporter) silences nothing, even targets that lack it too.
			for _, missing := range in.Present {
				source := alertLabels(p, in.Sources[0], same)
				delete(source, missing)
				for _, target := range in.Targets {
					lacking := alertLabels(p, target, same)
					delete(lacking, missing)
					if muted, err := c.Inhibited([]map[string]string{source}, lacking); err != nil || muted {
						t.Errorf("%s without %s inhibits %s without it: %v (%v)", in.Sources[0], missing, target, muted, err)
					}
				}
			}
			// A source never silences itself.
			self := alertLabels(p, in.Sources[0], same)
			if muted, _ := c.Inhibited([]map[string]string{self}, self); muted {
				t.Errorf("%s inhibits itself", in.Sources[0])
			}
		})
	}
}

// TestEqualLabelsMustSurviveTheExpressions: an alert whose expression aggregates away a label
// an inhibit rule compares fails generation.
func TestEqualLabelsMustSurviveTheExpressions(t *testing.T) {
	p := plantest.Plan(t, "")
	m := p.Model
	a := m.Alerts["DCGMExporterDown"]
	a.Expr = `max by (cluster, instance, job) (up{job="dcgm-exporter"} == 0)`
	a.Identity = nil // derived from the expression (a named one fails earlier, in the plan)
	m.Alerts["DCGMExporterDown"] = a
	rebuilt, err := plan.Build(m)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Generate(rebuilt, nil)
	if err == nil || !strings.Contains(err.Error(), `equal label "Hostname" does not survive the expression of alert DCGMExporterDown`) {
		t.Fatalf("Generate: %v, want the Hostname of exporter-down reported", err)
	}
}

// TestFragmentMergesIntoAnExistingConfig puts the fragment under another root route, as a
// user merges it: gpuobs' alerts reach their receivers, other alerts stay with the user's.
func TestFragmentMergesIntoAnExistingConfig(t *testing.T) {
	p := plantest.Plan(t, "")
	m := p.Model
	data, err := os.ReadFile(filepath.Join(root, output.AlertmanagerFragment))
	if err != nil {
		t.Fatal(err)
	}
	var fragment map[string]any
	if err := yaml.Unmarshal(data, &fragment); err != nil {
		t.Fatal(err)
	}
	receivers := append(fragment["receivers"].([]any), map[string]any{"name": "theirs"})
	merged, err := yaml.Marshal(map[string]any{
		"route":         map[string]any{"receiver": "theirs", "routes": []any{fragment["route"]}},
		"receivers":     receivers,
		"inhibit_rules": fragment["inhibit_rules"],
	})
	if err != nil {
		t.Fatal(err)
	}
	c, err := amconfig.Load(merged)
	if err != nil {
		t.Fatalf("merged config: %v", err)
	}
	if r := c.Routes(map[string]string{"alertname": "NodeDown", "severity": "critical", "team": "infra"}); len(r) != 1 || r[0].Receiver != "theirs" {
		t.Errorf("a foreign alert routes to %+v, want theirs", r)
	}
	a := m.Alerts["GPUEccDoubleBit"]
	if r := c.Routes(alertLabels(p, "GPUEccDoubleBit", same)); len(r) != 1 || r[0].Receiver != m.Alertmanager.Receivers[a.Team][a.Severity] {
		t.Errorf("GPUEccDoubleBit routes to %+v", r)
	}
}

// TestSmallCatalog shows the output on the small fixture catalog (go test -update rewrites it).
func TestSmallCatalog(t *testing.T) {
	files, err := Generate(plantest.Small(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	plantest.GoldenFiles(t, "testdata/small", files)
}

// TestWorkloadTicketsGroupByNamespace: the ML platform's tickets about one namespace on many
// nodes are one notification.
func TestWorkloadTicketsGroupByNamespace(t *testing.T) {
	p := plantest.Plan(t, "")
	m := p.Model
	c := loadConfig(t, output.AlertmanagerConfig)
	for _, name := range []string{"GPUAllocatedIdle", "GPUTrainingStraggler", "GPUMemoryExhaustionRisk"} {
		keys := map[string]bool{}
		for _, host := range []string{"node-a", "node-b"} {
			labels := alertLabels(p, name, same)
			labels[m.Labels.Host] = host
			r := c.Routes(labels)
			if len(r) != 1 {
				t.Fatalf("%s routes to %d routes", name, len(r))
			}
			key := ""
			for _, l := range r[0].GroupBy {
				key += l + "=" + labels[l] + ","
			}
			keys[key] = true
		}
		if len(keys) != 1 {
			t.Errorf("%s on two nodes of one namespace makes %d groups (%v), want 1", name, len(keys), keys)
		}
	}
}

// TestCordonSilencesTheRMAFollowUp: while a GPU waits for its RMA, the follow-up ticket stops
// once its node is cordoned; the page of the failure itself never does.
func TestCordonSilencesTheRMAFollowUp(t *testing.T) {
	p := plantest.Plan(t, "")
	c := loadConfig(t, output.AlertmanagerConfig)
	cordon := alertLabels(p, p.Model.Alertmanager.Inhibit.NodeUnschedulable, same)
	for alert, want := range map[string]bool{"GPURowRemapFailureUnrepaired": true, "GPURowRemapFailure": false} {
		muted, err := c.Inhibited([]map[string]string{cordon}, alertLabels(p, alert, same))
		if err != nil || muted != want {
			t.Errorf("%s on a cordoned node: inhibited %v (%v), want %v", alert, muted, err, want)
		}
	}
}

// TestLabelMismatchSilencesOnlyItsTickets: while an exporter of a cluster sends other label
// names than the catalog expects (an upgrade renamed the host label), the GPUs "missing" under
// the old labels and the nodes "without an exporter" ticket nobody in that cluster; another cluster's are still ticketed, pages are
// never silenced, and a mismatch alert without its cluster silences nothing.
func TestLabelMismatchSilencesOnlyItsTickets(t *testing.T) {
	eachCatalog(t, func(t *testing.T, p *plan.Plan, cfg *amconfig.Config) {
		ib, cluster := p.Model.Alertmanager.Inhibit, p.Model.Labels.Cluster
		mismatch := alertLabels(p, ib.LabelMismatch, same)
		for _, c := range []struct {
			name   string
			source map[string]string
			target map[string]string
			want   bool
		}{
			{"a GPU missing in the same cluster", mismatch, alertLabels(p, "GPUSeriesMissing", same), true},
			{"a node without an exporter in the same cluster", mismatch, alertLabels(p, "DCGMExporterMissingOnNode", same), true},
			{"a GPU missing in another cluster", mismatch, alertLabels(p, "GPUSeriesMissing", func(l string) string {
				if l == cluster {
					return "another-cluster"
				}
				return same(l)
			}), false},
			{"a page in the same cluster", mismatch, alertLabels(p, "GPUXidFatal", same), false},
			{"a mismatch without its cluster", func() map[string]string { m := maps.Clone(mismatch); delete(m, cluster); return m }(), func() map[string]string {
				m := alertLabels(p, "GPUSeriesMissing", same)
				delete(m, cluster)
				return m
			}(), false},
		} {
			t.Run(c.name, func(t *testing.T) {
				if muted, err := cfg.Inhibited([]map[string]string{c.source}, c.target); err != nil || muted != c.want {
					t.Errorf("inhibited %v (%v), want %v", muted, err, c.want)
				}
			})
		}
	})
}

// TestExportersDownInClusterIsOneTicket: while most exporters of a cluster are down, each
// target's exporter-down ticket and the tickets of GPUs and nodes read as missing are silenced
// in that cluster, not in another, and no page is.
func TestExportersDownInClusterIsOneTicket(t *testing.T) {
	eachCatalog(t, func(t *testing.T, p *plan.Plan, cfg *amconfig.Config) {
		ib, cluster := p.Model.Alertmanager.Inhibit, p.Model.Labels.Cluster
		source := alertLabels(p, ib.ExportersDownInCluster, same)
		elsewhere := func(l string) string {
			if l == cluster {
				return "another-cluster"
			}
			return same(l)
		}
		for _, c := range []struct {
			name   string
			target map[string]string
			want   bool
		}{
			{"an exporter down in the cluster", alertLabels(p, ib.ExporterDown, same), true},
			{"a GPU missing in the cluster", alertLabels(p, "GPUSeriesMissing", same), true},
			{"a node without an exporter in the cluster", alertLabels(p, "DCGMExporterMissingOnNode", same), true},
			{"an exporter down in another cluster", alertLabels(p, ib.ExporterDown, elsewhere), false},
			{"a page in the cluster", alertLabels(p, "GPUXidFatal", same), false},
		} {
			t.Run(c.name, func(t *testing.T) {
				if muted, err := cfg.Inhibited([]map[string]string{source}, c.target); err != nil || muted != c.want {
					t.Errorf("inhibited %v (%v), want %v", muted, err, c.want)
				}
			})
		}
	})
}

// TestKubeStateMetricsDownSilencesWhatTheCordonWould: with kube-state-metrics silent in a
// cluster, the cordon inhibition has no source; its targets that do not read kube-state-metrics
// themselves (they would ticket a cordoned node) are silenced there by the outage alert, and
// nothing that pages.
func TestKubeStateMetricsDownSilencesWhatTheCordonWould(t *testing.T) {
	eachCatalog(t, func(t *testing.T, p *plan.Plan, cfg *amconfig.Config) {
		inhibitions, err := Inhibitions(p)
		if err != nil {
			t.Fatal(err)
		}
		var cordon, ksm []string
		for _, in := range inhibitions {
			switch in.Name {
			case "node-unschedulable":
				cordon = in.Targets
			case "kube-state-metrics-down":
				ksm = in.Targets
			}
		}
		if len(ksm) == 0 {
			t.Fatal("no kube-state-metrics-down inhibit rule")
		}
		down := alertLabels(p, p.Model.Alertmanager.Inhibit.KubeStateMetricsDown, same)
		for _, target := range cordon {
			want := !needsKubeStateMetrics(p.Alerts[target]) && p.Model.Alerts[target].Severity != model.SeverityCritical
			if muted, err := cfg.Inhibited([]map[string]string{down}, alertLabels(p, target, same)); err != nil || muted != want {
				t.Errorf("%s with kube-state-metrics down in its cluster: inhibited %v (%v), want %v", target, muted, err, want)
			}
		}
		// Named cases, not derived: an idle ticket would fire on a cordoned node; a straggler
		// ticket needs kube_pod_owner and goes blind instead; an XID ticket's page reads kube-state-
		// metrics only in its maintenance "unless" and still fires; a page is never silenced.
		for alert, want := range map[string]bool{"GPUAllocatedIdle": true, "GPUTrainingStraggler": false, "GPUXidHardware": false, "GPUXidFatal": false} {
			if muted, err := cfg.Inhibited([]map[string]string{down}, alertLabels(p, alert, same)); err != nil || muted != want {
				t.Errorf("%s with kube-state-metrics down in its cluster: inhibited %v (%v), want %v", alert, muted, err, want)
			}
		}
	})
}

// TestTwoRolesOneTeam: a team that holds two roles (one name for infra and ml-platform) gets
// one pager and one ticket receiver, and Alertmanager accepts the configuration; the
// catalog's evaluation failed on a duplicate receiver before.
func TestTwoRolesOneTeam(t *testing.T) {
	config := plantest.Catalog(t, `(import 'adopter.jsonnet') { teams+: { infra: 'gpu-platform', 'ml-platform': 'gpu-platform' } }`)
	files, err := Generate(plantest.Plan(t, config), nil)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "alertmanager.yml")
	if err := os.WriteFile(path, files[0].Content, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, receiver := range []string{"gpu-platform-pager", "gpu-platform-ticket"} {
		if n := strings.Count(string(files[0].Content), "- name: "+receiver+"\n"); n != 1 {
			t.Errorf("receiver %s defined %d times, want once", receiver, n)
		}
	}
	if out, err := exec.Command(testutil.Tool(t, "amtool"), "check-config", path).CombinedOutput(); err != nil {
		t.Fatalf("amtool check-config: %v\n%s", err, out)
	}
}
