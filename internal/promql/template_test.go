package promql

import (
	"strings"
	"testing"
	"time"
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
