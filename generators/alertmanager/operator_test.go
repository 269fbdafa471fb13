package alertmanager

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1alpha1"
	"sigs.k8s.io/yaml"

	"github.com/gpuobs/gpuobs/internal/testutil/plantest"
)

// TestAlertmanagerConfigResource: the adopter's configuration as an AlertmanagerConfig decodes
// strictly into the Prometheus Operator's type, with every receiver, its integrations (secrets
// as the SecretKeySelectors of the Secrets the operator mounts), the whole routing tree and
// every inhibit rule of alertmanager.yml.
func TestAlertmanagerConfigResource(t *testing.T) {
	p := plantest.Plan(t, adopter)
	files, err := Operator(p)
	if err != nil {
		t.Fatal(err)
	}
	var res v1alpha1.AlertmanagerConfig
	if err := yaml.UnmarshalStrict(files[0].Content, &res); err != nil {
		t.Fatalf("%s does not decode as an AlertmanagerConfig: %v", files[0].Path, err)
	}
	full, err := fullConfig(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Spec.Receivers) != len(full.Receivers) || len(res.Spec.InhibitRules) != len(full.InhibitRules) {
		t.Fatalf("%d receivers and %d inhibit rules, want %d and %d", len(res.Spec.Receivers), len(res.Spec.InhibitRules), len(full.Receivers), len(full.InhibitRules))
	}
	for _, r := range res.Spec.Receivers {
		switch {
		case strings.HasSuffix(r.Name, "-pager"):
			if len(r.PagerDutyConfigs) != 1 || r.PagerDutyConfigs[0].RoutingKey == nil || r.PagerDutyConfigs[0].RoutingKey.Name != "pagerduty" || r.PagerDutyConfigs[0].RoutingKey.Key != strings.TrimSuffix(r.Name, "-pager") {
				t.Errorf("%s: %+v, want the routing key from Secret pagerduty, key %s", r.Name, r.PagerDutyConfigs, strings.TrimSuffix(r.Name, "-pager"))
			}
		case strings.HasSuffix(r.Name, "-ticket"):
			if len(r.SlackConfigs) != 1 || r.SlackConfigs[0].APIURL == nil || r.SlackConfigs[0].APIURL.Name != "slack" || r.SlackConfigs[0].Channel == nil || *r.SlackConfigs[0].Channel != "#"+strings.TrimSuffix(r.Name, "-ticket") {
				t.Errorf("%s: %+v, want Slack from Secret slack, its channel", r.Name, r.SlackConfigs)
			}
		}
	}
	// Every route of the tree, in order, with its receiver and matchers.
	var want, got []string
	var walk func(r *route)
	walk = func(r *route) {
		want = append(want, r.Receiver+" "+strings.Join(r.Matchers, ","))
		for _, c := range r.Routes {
			walk(c)
		}
	}
	walk(full.Route)
	var walkOperator func(r *v1alpha1.Route)
	walkOperator = func(r *v1alpha1.Route) {
		var ms []string
		for _, m := range r.Matchers {
			ms = append(ms, m.Name+string(m.MatchType)+`"`+m.Value+`"`)
		}
		got = append(got, r.Receiver+" "+strings.Join(ms, ","))
		children, err := r.ChildRoutes()
		if err != nil {
			t.Fatal(err)
		}
		for i := range children {
			walkOperator(&children[i])
		}
	}
	walkOperator(res.Spec.Route)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("routes differ:\n got %v\nwant %v", got, want)
	}
	if len(want) < 10 {
		t.Fatalf("only %d routes", len(want))
	}
}

// TestAlertmanagerConfigSecretsMountedByTheOperator: a secret file the operator does not mount
// cannot become a SecretKeySelector: generation fails, naming the field.
func TestAlertmanagerConfigSecretsMountedByTheOperator(t *testing.T) {
	config := filepath.Join(t.TempDir(), "gpuobs.jsonnet")
	catalog := `(import 'gpuobs.libsonnet') { alertmanager+: { integrations+: { 'infra-pager': { pagerduty_configs: [{ routing_key_file: '/run/secrets/pd' }] } } } }`
	if err := os.WriteFile(config, []byte(catalog), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Operator(plantest.Plan(t, config))
	if err == nil || !strings.Contains(err.Error(), `alertmanager.integrations["infra-pager"].pagerduty_configs[0].routing_key_file: for an AlertmanagerConfig, give it as /etc/alertmanager/secrets/<secret>/<key>`) {
		t.Errorf("Operator: %v, want the secret file named", err)
	}
}
