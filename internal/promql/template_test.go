package promql

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/promql"
	"github.com/prometheus/prometheus/template"
)

// TestTemplateExpansionIsBounded: an annotation that loops two billion times is refused within
// the bound, naming the alert; an ordinary one expands.
func TestTemplateExpansionIsBounded(t *testing.T) {
	start := time.Now()
	_, err := ExpandAlertTemplate("Hostile", `{{ range $i := 2000000000 }}{{ end }}`, nil, 1)
	if err == nil || !strings.Contains(err.Error(), "the template of Hostile did not finish expanding within 2s") {
		t.Errorf("ExpandAlertTemplate: %v, want the bound named", err)
	}
	if took := time.Since(start); took > TemplateBound+time.Second {
		t.Errorf("took %s, bound %s", took, TemplateBound)
	}
	got, err := ExpandAlertTemplate("GPUHot", `GPU {{ $labels.gpu }} at {{ $value }}`, map[string]string{"gpu": "3"}, 91)
	if err != nil || got != "GPU 3 at 91" {
		t.Errorf("ordinary template: %q, %v", got, err)
	}
}

// TestTextWithoutActionExpandsAsPrometheusDoes: a text with no template action is returned as
// it is, which is what Prometheus' expander makes of it (its definitions emit nothing), HTML
// and format characters included.
func TestTextWithoutActionExpandsAsPrometheusDoes(t *testing.T) {
	for _, text := range []string{
		"A GPU has fallen off the bus.",
		`Power < 80 % & "clocks" at 1,980 MHz: drain 'node-1' {now}`,
		"",
		"a lone } and { and $value",
	} {
		exp := template.NewTemplateExpander(context.Background(), alertTemplateDefs+text, "__alert_T", template.AlertTemplateData(nil, nil, "", promql.Sample{F: 1}), model.Time(0), nil, &url.URL{}, nil)
		want, err := exp.Expand()
		if err != nil {
			t.Fatalf("%q: Prometheus: %v", text, err)
		}
		if got, err := ExpandAlertTemplate("T", text, nil, 1); err != nil || got != want {
			t.Errorf("%q: got %q, %v; Prometheus expands it to %q", text, got, err, want)
		}
	}
}
