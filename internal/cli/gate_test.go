package cli

import (
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// leaks reports the quoting in which a secret appears in text: raw, Go-quoted or URL-escaped.
func leaks(text, value string) string {
	quoted := strconv.Quote(value)
	for name, form := range map[string]string{"raw": value, "Go-quoted": quoted[1 : len(quoted)-1], "URL-escaped": url.QueryEscape(value), "path-escaped": url.PathEscape(value), "trimmed": strings.TrimSpace(value)} {
		if strings.Contains(text, form) {
			return name
		}
	}
	return ""
}

// TestReceiverValuesAreNeverPrinted: an inline Slack webhook URL that ends in a newline (as
// importstr reads a CI-written file, or a ||| block ends) is refused by its catalog path by
// generate, generate --check and lint -c, and none of them prints it in any quoting; a URL with
// a password in its user-info in a field Alertmanager does not type as secret (opsgenie's
// api_url, an http_config's proxy_url) is refused by its path, and written nowhere.
func TestReceiverValuesAreNeverPrinted(t *testing.T) {
	const token = "T0KEN-5ecr3t-XyZ"
	for _, c := range []struct{ name, integration, value, path string }{
		{"a webhook URL ending in a newline", "slack_configs: [{ api_url: %s, channel: '#gpu' }]", "https://hooks.slack.com/services/" + token + "\n", "slack_configs[0].api_url"},
		{"a ||| block", "webhook_configs: [{ url: %s }]", "https://hooks.example.com/" + token + "\n\n", "webhook_configs[0].url"},
		{"a password in opsgenie's api_url", "opsgenie_configs: [{ api_key_file: '/s', api_url: %s }]", "https://gpu:" + token + "@api.opsgenie.com/", "opsgenie_configs[0].api_url"},
		{"a password in a proxy URL", "webhook_configs: [{ url_file: '/s', http_config: { proxy_url: %s } }]", "http://proxy:" + token + "@proxy.example.com:3128", "webhook_configs[0].http_config.proxy_url"},
	} {
		t.Run(c.name, func(t *testing.T) {
			body := "gpuobs { alertmanager+: { integrations+: { 'infra-ticket': { " +
				strings.Replace(c.integration, "%s", strconv.Quote(c.value), 1) + " } } } }"
			config, _ := hostileCatalog(t, body)
			out := t.TempDir()
			for _, args := range [][]string{
				{"generate", "-c", config, "-o", out},
				{"generate", "--check", "-c", config, "-o", out},
				{"lint", "-c", config, out},
			} {
				code, stdout, stderr := run(t, args...)
				if code != ExitError || !strings.Contains(stderr, c.path) {
					t.Errorf("%s: exit %d, want a refusal naming %s\n%s", args[0], code, c.path, stderr)
				}
				if form := leaks(stdout+stderr, strings.TrimSpace(c.value)); form != "" {
					t.Errorf("%s prints the value (%s):\n%s%s", strings.Join(args, " "), form, stdout, stderr)
				}
				if form := leaks(stdout+stderr, token); form != "" {
					t.Errorf("%s prints the token (%s):\n%s%s", strings.Join(args, " "), form, stdout, stderr)
				}
			}
			err := filepath.WalkDir(out, func(p string, e os.DirEntry, err error) error {
				if err != nil || e.IsDir() {
					return err
				}
				data, err := os.ReadFile(p)
				if strings.Contains(string(data), token) {
					t.Errorf("%s holds the token", p)
				}
				return err
			})
			if err != nil && !os.IsNotExist(err) {
				t.Error(err)
			}
		})
	}
}

// TestRoutingGateSeesReceivers: a receiver whose pages move from PagerDuty to a webhook (no
// alert changes receiver name) fails --fail-on-routing-change and is reported by diff, as is
// a change of notification timing in alertmanager.yml that diff does not model.
func TestRoutingGateSeesReceivers(t *testing.T) {
	outputOf := func(body string) string {
		config, _ := hostileCatalog(t, body)
		out := t.TempDir()
		if code, _, stderr := run(t, "generate", "-c", config, "-o", out); code != ExitOK {
			t.Fatalf("generate: exit %d\n%s", code, stderr)
		}
		return out
	}
	base := outputOf(`gpuobs { alertmanager+: { integrations+: { 'infra-pager': { pagerduty_configs: [{ routing_key_file: '/etc/alertmanager/secrets/pagerduty' }] } } } }`)
	head := outputOf(`gpuobs { alertmanager+: { integrations+: { 'infra-pager': { webhook_configs: [{ url_file: '/etc/alertmanager/secrets/hook' }] } } } }`)
	code, stdout, stderr := run(t, "diff", "--fail-on-routing-change", base, head)
	if code != ExitFindings || !strings.Contains(stderr, "1 receivers notify otherwise") ||
		!strings.Contains(stdout, "~ receiver infra-pager\n") || !strings.Contains(stdout, `webhook_configs[0].url_file: (absent) → "/etc/alertmanager/secrets/hook"`) {
		t.Errorf("a receiver's integration: exit %d, want %d\n%s%s", code, ExitFindings, stdout, stderr)
	}
	timing := outputOf(`gpuobs { alertmanager+: { integrations+: { 'infra-pager': { pagerduty_configs: [{ routing_key_file: '/etc/alertmanager/secrets/pagerduty' }] } }, timing+: { critical+: { groupWait: '10m' } } } }`)
	if code, stdout, stderr := run(t, "diff", base, timing); code != ExitOK || !strings.Contains(stdout, "~ alertmanager/alertmanager.yml\n") {
		t.Errorf("notification timing: exit %d\n%s%s", code, stdout, stderr)
	}
}
