package alertmanager

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	"github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1alpha1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/gpuobs/gpuobs/internal/amconfig"
	"github.com/gpuobs/gpuobs/internal/emit"
	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/output"
)

// operatorSecrets is where the Prometheus Operator mounts the secrets an Alertmanager resource
// lists (spec.secrets): <operatorSecrets><secret>/<key>. A secret file there is the key of that
// Kubernetes Secret, which an AlertmanagerConfig names by a SecretKeySelector.
const operatorSecrets = "/etc/alertmanager/secrets/"

// operatorConfig renders the configuration as an AlertmanagerConfig, in the operator's own
// types: integrations move from Alertmanager's schema to the resource's (camelCase fields),
// each secret file becomes the SecretKeySelector of the Secret the operator mounts it from.
func operatorConfig(m *model.Model, c config) (emit.File, error) {
	spec := v1alpha1.AlertmanagerConfigSpec{}
	var err error
	if spec.Route, err = operatorRoute(c.Route); err != nil {
		return emit.File{}, err
	}
	for _, r := range c.Receivers {
		receiver, err := operatorReceiver(r)
		if err != nil {
			return emit.File{}, fmt.Errorf("alertmanager.integrations[%q].%w", r.Name, err)
		}
		spec.Receivers = append(spec.Receivers, receiver)
	}
	for _, in := range c.InhibitRules {
		rule := v1alpha1.InhibitRule{Equal: in.Equal}
		if rule.SourceMatch, err = operatorMatchers(in.SourceMatchers); err != nil {
			return emit.File{}, err
		}
		if rule.TargetMatch, err = operatorMatchers(in.TargetMatchers); err != nil {
			return emit.File{}, err
		}
		spec.InhibitRules = append(spec.InhibitRules, rule)
	}
	var body any
	if err := remarshal(spec, &body); err != nil {
		return emit.File{}, err
	}
	op := m.Deploy.Operator
	return emit.YAML(output.AlertmanagerOperator, emit.MustYAML(map[string]any{
		"apiVersion": "monitoring.coreos.com/v1alpha1",
		"kind":       "AlertmanagerConfig",
		"metadata":   map[string]any{"name": op.Name, "namespace": op.Namespace, "labels": op.Labels},
		"spec":       body,
	})), nil
}

// operatorRoute converts a route and its children.
func operatorRoute(r *route) (*v1alpha1.Route, error) {
	out := &v1alpha1.Route{Receiver: r.Receiver, GroupBy: r.GroupBy}
	for _, d := range []struct {
		from string
		to   **monitoringv1.NonEmptyDuration
	}{{r.GroupWait, &out.GroupWait}, {r.GroupInterval, &out.GroupInterval}, {r.RepeatInterval, &out.RepeatInterval}} {
		if d.from != "" {
			v := monitoringv1.NonEmptyDuration(d.from)
			*d.to = &v
		}
	}
	var err error
	if out.Matchers, err = operatorMatchers(r.Matchers); err != nil {
		return nil, err
	}
	for _, child := range r.Routes {
		converted, err := operatorRoute(child)
		if err != nil {
			return nil, err
		}
		raw, err := json.Marshal(converted)
		if err != nil {
			return nil, err
		}
		out.Routes = append(out.Routes, apiextensionsv1.JSON{Raw: raw})
	}
	return out, nil
}

// operatorMatchers converts matchers of Alertmanager's syntax to the resource's.
func operatorMatchers(matchers []string) ([]v1alpha1.Matcher, error) {
	var out []v1alpha1.Matcher
	for _, s := range matchers {
		name, op, value, err := amconfig.ParseMatcher(s)
		if err != nil {
			return nil, err
		}
		out = append(out, v1alpha1.Matcher{Name: name, MatchType: v1alpha1.MatchType(op), Value: value})
	}
	return out, nil
}

// operatorReceiver converts a receiver's integrations, decoded strictly into the operator's
// Receiver type: a field the resource does not have is an error, not dropped.
func operatorReceiver(r receiver) (v1alpha1.Receiver, error) {
	converted := map[string]any{"name": r.Name}
	for key, v := range r.Integrations {
		c, err := operatorValue(v, key)
		if err != nil {
			return v1alpha1.Receiver{}, err
		}
		converted[camel(key)] = c
	}
	var out v1alpha1.Receiver
	raw, err := json.Marshal(converted)
	if err != nil {
		return out, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&out); err != nil {
		return out, fmt.Errorf("%s: the AlertmanagerConfig resource has no such field: %w", r.Name, err)
	}
	return out, nil
}

// operatorValue converts an integration value at path: keys to camelCase, X_file secrets to
// the SecretKeySelector of field X (a webhook's url_file to urlSecret).
func operatorValue(v any, path string) (any, error) {
	switch v := v.(type) {
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			c, err := operatorValue(e, fmt.Sprintf("%s[%d]", path, i))
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	case map[string]any:
		out := map[string]any{}
		for key, e := range v {
			if field, ok := strings.CutSuffix(key, "_file"); ok {
				file, _ := e.(string)
				secret, secretKey, ok := strings.Cut(strings.TrimPrefix(file, operatorSecrets), "/")
				if !strings.HasPrefix(file, operatorSecrets) || !ok || strings.Contains(secretKey, "/") {
					return nil, fmt.Errorf("%s.%s: for an AlertmanagerConfig, give it as %s<secret>/<key>, where the Prometheus Operator mounts the Secrets of the Alertmanager's spec.secrets", path, key, operatorSecrets)
				}
				if field == "url" {
					field = "url_secret" // a webhook's URL from a secret
				}
				out[camel(field)] = map[string]any{"name": secret, "key": secretKey}
				continue
			}
			c, err := operatorValue(e, path+"."+key)
			if err != nil {
				return nil, err
			}
			out[camel(key)] = c
		}
		return out, nil
	}
	return v, nil
}

// camel writes a snake_case name of Alertmanager's schema as the resource spells it:
// send_resolved is sendResolved, api_url apiURL, chat_id chatID, tls_config tlsConfig.
func camel(snake string) string {
	parts := strings.Split(snake, "_")
	for i := 1; i < len(parts); i++ {
		switch parts[i] {
		case "url", "id", "tls":
			parts[i] = strings.ToUpper(parts[i])
		default:
			if parts[i] != "" {
				parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
			}
		}
	}
	return strings.Join(parts, "")
}

// remarshal turns a typed value into its JSON-shaped generic form (for YAML with the resource's
// field names).
func remarshal(v, into any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, into)
}
