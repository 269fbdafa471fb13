package amconfig

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func integrations(t *testing.T, doc string) map[string]any {
	t.Helper()
	var out map[string]any
	if err := yaml.Unmarshal([]byte(doc), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCheckReceiver: integrations with secrets by reference load; every inline secret is
// reported at its path with the field that takes it by reference; what Alertmanager refuses
// is reported in its words; no message quotes a value.
func TestCheckReceiver(t *testing.T) {
	const token = "s3cr3t-T0KEN-d0-not-print"
	for _, c := range []struct {
		name, doc string
		want      []string
	}{
		{"by reference", `
pagerduty_configs: [{routing_key_file: /etc/alertmanager/secrets/pd}]
slack_configs: [{api_url_file: /etc/alertmanager/secrets/slack, channel: '#gpu'}]
webhook_configs: [{url_file: /etc/alertmanager/secrets/hook}]
msteamsv2_configs: [{webhook_url_file: /etc/alertmanager/secrets/teams}]
email_configs: [{to: gpu@example.com, from: am@example.com, smarthost: 'smtp.example.com:587', auth_username: am, auth_password_file: /etc/alertmanager/secrets/smtp}]
`, nil},
		{"pagerduty routing key inline", `pagerduty_configs: [{routing_key: ` + token + `}]`,
			[]string{"pagerduty_configs[0].routing_key: holds a secret inline; give it by reference (routing_key_file)"}},
		{"slack URL inline", `slack_configs: [{api_url: 'https://hooks.slack.com/services/` + token + `', channel: '#gpu'}]`,
			[]string{"slack_configs[0].api_url: holds a secret inline; give it by reference (api_url_file)"}},
		{"webhook URL inline", `webhook_configs: [{url: 'https://hooks.example.com/` + token + `'}]`,
			[]string{"webhook_configs[0].url: holds a secret inline; give it by reference (url_file)"}},
		{"basic auth password inline", `webhook_configs: [{url_file: /s, http_config: {basic_auth: {username: u, password: ` + token + `}}}]`,
			[]string{"webhook_configs[0].http_config.basic_auth.password: holds a secret inline; give it by reference (password_file)"}},
		{"two at once", `pagerduty_configs: [{routing_key_file: /s}, {service_key: ` + token + `}]
slack_configs: [{api_url: 'https://hooks.slack.com/services/` + token + `'}]`,
			[]string{"pagerduty_configs[1].service_key: holds a secret", "slack_configs[0].api_url: holds a secret"}},
		{"a URL Alertmanager cannot parse", `slack_configs: [{api_url: 'htp//` + token + `'}]`,
			[]string{"unsupported scheme"}},
		{"an unknown integration", `pagerduty_config: [{routing_key_file: /s}]`, []string{"pagerduty_config"}},
		{"the name given again", `name: x`, []string{"name: is the receiver's key"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, p := range CheckReceiver("gpu-infra-pager", integrations(t, c.doc)) {
				got = append(got, p.Path+": "+p.Message)
			}
			text := strings.Join(got, "\n")
			if strings.Contains(text, "T0KEN") {
				t.Errorf("a message quotes the secret:\n%s", text)
			}
			if len(c.want) == 0 && len(got) > 0 {
				t.Errorf("problems with secrets by reference:\n%s", text)
			}
			if len(got) != len(c.want) {
				t.Errorf("got %d problems, want %d:\n%s", len(got), len(c.want), text)
			}
			for _, w := range c.want {
				if !strings.Contains(text, w) {
					t.Errorf("no problem says %q:\n%s", w, text)
				}
			}
		})
	}
}

// TestPasswordURLsAndControlCharacters: a URL with a password in its user-info is refused by
// its path in any field, typed as secret by Alertmanager or not; a URL holding a control
// character is refused by its path before Alertmanager (whose error says no path) sees it.
func TestPasswordURLsAndControlCharacters(t *testing.T) {
	for _, c := range []struct{ doc, want string }{
		{`opsgenie_configs: [{api_key_file: /s, api_url: 'https://u:T0KEN@api.example.com/'}]`, "opsgenie_configs[0].api_url: is a URL with a password"},
		{`webhook_configs: [{url_file: /s, http_config: {proxy_url: 'http://p:T0KEN@proxy:3128'}}]`, "webhook_configs[0].http_config.proxy_url: is a URL with a password"},
		{"slack_configs: [{api_url: \"https://hooks.example.com/T0KEN\\n\"}]", "slack_configs[0].api_url: is a URL with a control character"},
	} {
		var got []string
		for _, p := range CheckReceiver("r", integrations(t, c.doc)) {
			got = append(got, p.Path+": "+p.Message)
		}
		text := strings.Join(got, "\n")
		if len(got) != 1 || !strings.Contains(text, c.want) || strings.Contains(text, "T0KEN") {
			t.Errorf("%s:\n%s\nwant one problem saying %q", c.doc, text, c.want)
		}
	}
}

// FuzzReceiverValues: whatever a receiver's values hold (control characters, quotes, percent
// signs, a URL's user-info), no problem CheckReceiver reports quotes them, in any quoting: the
// fuzzed text surrounds a marker that must never reach a message.
func FuzzReceiverValues(f *testing.F) {
	for _, seed := range [][2]string{{"https://hooks.example.com/", "\n"}, {"http://u:", "@h/"}, {"htp//", "%zz"}, {"https://h/\"", "\x1b[0m"}, {"", ""}} {
		f.Add(seed[0], seed[1])
	}
	const marker = "Zq7MARKzz"
	f.Fuzz(func(t *testing.T, before, after string) {
		value := before + marker + after
		for _, field := range []func(v string) map[string]any{
			func(v string) map[string]any {
				return map[string]any{"slack_configs": []any{map[string]any{"api_url": v}}}
			},
			func(v string) map[string]any {
				return map[string]any{"webhook_configs": []any{map[string]any{"url": v}}}
			},
			func(v string) map[string]any {
				return map[string]any{"webhook_configs": []any{map[string]any{"url_file": "/s", "http_config": map[string]any{"proxy_url": v}}}}
			},
			func(v string) map[string]any {
				return map[string]any{"opsgenie_configs": []any{map[string]any{"api_key_file": "/s", "api_url": v}}}
			},
			func(v string) map[string]any { return map[string]any{"email_configs": []any{map[string]any{"to": v}}} },
			func(v string) map[string]any {
				return map[string]any{"pagerduty_configs": []any{map[string]any{"routing_key": v}}}
			},
		} {
			for _, p := range CheckReceiver("r", field(value)) {
				if strings.Contains(p.Path+p.Message, marker) {
					t.Fatalf("a message quotes the value %q: %s: %s", value, p.Path, p.Message)
				}
			}
		}
	})
}
