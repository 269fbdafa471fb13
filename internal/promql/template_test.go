package promql

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/promql"
	"github.com/prometheus/prometheus/template"
)

// TestTemplateExpansionIsBounded: an annotation that loops two billion times, and one whose
// defined templates call each other a million times without a loop, are refused at once,
// naming the alert; one that takes too long within the steps is refused at the time bound and
// stopped; an ordinary one expands.
func TestTemplateExpansionIsBounded(t *testing.T) {
	fanOut := ""
	for i := range 20 {
		fanOut += fmt.Sprintf(`{{ define "t%d" }}{{ template "t%d" }}{{ template "t%d" }}{{ end }}`, i, i+1, i+1)
	}
	fanOut += `{{ define "t20" }}{{ end }}{{ template "t0" }}`
	for name, text := range map[string]string{
		"a range":           `{{ range $i := 2000000000 }}{{ end }}`,
		"nested ranges":     `{{ range $i := 2000 }}{{ range $j := 2000 }}{{ end }}{{ end }}`,
		"defined templates": fanOut,
	} {
		start := time.Now()
		_, err := ExpandAlertTemplate("Hostile", text, nil, 1)
		if err == nil || !strings.Contains(err.Error(), "the template of Hostile loops more than 100000 times") {
			t.Errorf("%s: %v, want the bound named", name, err)
		}
		if took := time.Since(start); took > TemplateBound/2 {
			t.Errorf("%s: took %s: it was not stopped by its steps", name, took)
		}
	}
	// Past the time bound (here a millisecond: 90,000 steps formatting 100 kB each take seconds), the
	// expansion is refused, and stopped at its next step rather than left to run.
	before := runtime.NumGoroutine()
	_, err := expandWithin("Slow", `{{ range $i := 90000 }}{{ $x := printf "%0100000d" $i }}{{ end }}`, nil, 1, time.Millisecond)
	if !errors.Is(err, ErrTemplateTooLong) || !strings.Contains(err.Error(), "the template of Slow did not finish expanding") {
		t.Errorf("past the time bound: %v, want ErrTemplateTooLong naming the alert", err)
	}
	for deadline := time.Now().Add(time.Second); runtime.NumGoroutine() > before; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("an expansion past the time bound still runs: %d goroutines, %d before", runtime.NumGoroutine(), before)
		}
	}
	got, err := ExpandAlertTemplate("GPUHot", `GPU {{ $labels.gpu }} at {{ $value }}`, map[string]string{"gpu": "3"}, 91)
	if err != nil || got != "GPU 3 at 91" {
		t.Errorf("ordinary template: %q, %v", got, err)
	}
}

// TestStepsLeaveTheTextAsItWas: the steps ExpandAlertTemplate puts in every loop body and
// defined template expand to nothing, spaces trimmed by the body's actions included: each
// template expands to what Prometheus makes of it without them.
func TestStepsLeaveTheTextAsItWas(t *testing.T) {
	labels := map[string]string{"gpu": "3", "Hostname": "node-1"}
	for _, text := range []string{
		`{{ range $k, $v := $labels }}{{ $k }}={{ $v }} {{ end }}`,
		`[{{ range $labels -}}   x {{- end }}]`,
		`[{{ range $labels }}   {{- . -}}   {{ end }}]`,
		"[{{ range $labels }}\n\t{{- . }}{{ end }}]",
		`[{{ range $i := 3 }}{{ end }}]`,
		`[{{ range $i := 0 }}a{{ else }} none {{ end }}]`,
		`[{{ range $i := 3 }}{{ if eq $i 1 }}{{ continue }}{{ end }}{{ $i }}{{ end }}]`,
		`[{{ range $labels }}{{/* a comment */}}{{ . }}{{ end }}]`,
		`{{ define "x" }} [{{ . }}] {{ end }}{{ template "x" "a" }}{{ template "x" "b" }}`,
		`{{ define "y" -}}   trimmed   {{- end }}<{{ template "y" }}>`,
		`<{{ block "z" . }} b {{ end }}>`,
		`{{ with $labels.gpu }}{{ range $i := 2 }} {{ $i }}{{ end }}{{ end }}`,
	} {
		data := template.AlertTemplateData(labels, nil, "", promql.Sample{F: 1})
		exp := template.NewTemplateExpander(context.Background(), alertTemplateDefs+text, "__alert_T", data, model.Time(0), nil, &url.URL{}, nil)
		want, err := exp.Expand()
		if err != nil {
			t.Fatalf("%q: Prometheus: %v", text, err)
		}
		if got, err := ExpandAlertTemplate("T", text, labels, 1); err != nil || got != want {
			t.Errorf("%q: got %q, %v; Prometheus expands it to %q", text, got, err, want)
		}
		if steps := strings.Count(withSteps(alertTemplateDefs+text), stepFunc); steps == 0 {
			t.Errorf("%q: no step", text)
		}
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
