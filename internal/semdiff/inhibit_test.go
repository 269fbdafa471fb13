package semdiff_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gpuobs/gpuobs/internal/semdiff"
)

// alertmanagerWith is an Alertmanager configuration with one inhibit rule per name ("" for an
// unnamed rule).
func alertmanagerWith(names ...string) []byte {
	var b strings.Builder
	b.WriteString("route:\n  receiver: r\nreceivers:\n  - name: r\ninhibit_rules:\n")
	for _, name := range names {
		if name != "" {
			fmt.Fprintf(&b, "  - name: %s\n    source_matchers: ['alertname=\"%s\"']\n", name, name)
		} else {
			b.WriteString("  - source_matchers: ['alertname=\"Unnamed\"']\n")
		}
		b.WriteString("    target_matchers: ['severity=\"warning\"']\n    equal: [cluster]\n")
	}
	return []byte(b.String())
}

// TestInhibitRuleChanges: added rules come in head's order, removed ones sorted; a rule on both
// sides and an unnamed rule are no change.
func TestInhibitRuleChanges(t *testing.T) {
	for _, c := range []struct {
		name           string
		base, head     []string
		added, removed []string
	}{
		{"same rules", []string{"gpu-gone", "exporter-down"}, []string{"gpu-gone", "exporter-down"}, nil, nil},
		{"added in head's order", []string{"gpu-gone"}, []string{"thermal-page-over-ticket", "gpu-gone", "ecc-page-over-ticket"}, []string{"thermal-page-over-ticket", "ecc-page-over-ticket"}, nil},
		{"removed sorted", []string{"zeta", "gpu-gone", "alpha"}, []string{"gpu-gone"}, nil, []string{"alpha", "zeta"}},
		{"both", []string{"old", "kept"}, []string{"kept", "new"}, []string{"new"}, []string{"old"}},
		{"unnamed rules are not compared", []string{"", "kept"}, []string{"kept", ""}, nil, nil},
		{"no rules before", nil, []string{"gpu-gone"}, []string{"gpu-gone"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			added, removed, err := semdiff.InhibitRuleChanges(alertmanagerWith(c.base...), alertmanagerWith(c.head...))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(added, c.added) || !slices.Equal(removed, c.removed) {
				t.Errorf("added %q, removed %q; want %q, %q", added, removed, c.added, c.removed)
			}
		})
	}
}

// TestInhibitRuleChangesRefusesWhatDoesNotLoad: a side Alertmanager would not load is an error
// that names the side.
func TestInhibitRuleChangesRefusesWhatDoesNotLoad(t *testing.T) {
	good, bad := alertmanagerWith("gpu-gone"), []byte("route: [\n")
	for _, c := range []struct {
		name       string
		base, head []byte
		want       string
	}{
		{"base", bad, good, "base alertmanager/alertmanager.yml: "},
		{"head", good, bad, "head alertmanager/alertmanager.yml: "},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, _, err := semdiff.InhibitRuleChanges(c.base, c.head); err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Errorf("error %v, want it to start with %q", err, c.want)
			}
		})
	}
}
